//! Wisdom (FFTW's word): measured plans kept as text, keyed by the
//! transform, the settings they were asked with and the CPU they were
//! measured on, so that the next planner uses them without measuring.
//!
//! The file is plain text, one plan's own text per entry:
//!
//! ```text
//! nttfuse wisdom 1
//! cpu        GenuineIntel family 6 model 143 (…); avx2 avx512f …; L1 48 KiB, L2 2 MiB, L3 105 MiB; 2 threads
//! == plan, threads asked: all, backend asked: any
//! transform  BabyBear DFT forward, n = 2^16, output natural, lanes = 256, batch = 1
//! backend    avx512, threads: all
//! …
//! cost       …
//! == end
//! ```
//!
//! An entry is used through [`Plan::from_text`]: it plans the text's
//! transform with the text's settings and must give the same text, so an
//! entry this build would plan otherwise is never run (the plan says so).

use super::{Plan, Planner, Threads};
use crate::backend::{Backend, Kernels};
use crate::error::Error;
use crate::transform::Transform;
use alloc::{
    format,
    string::{String, ToString},
    vec::Vec,
};
use core::fmt;

const HEADER: &str = "nttfuse wisdom 1";
const CPU: &str = "cpu        ";
const ENTRY: &str = "== plan, threads asked: ";
const END: &str = "== end";

/// Measured plans of one CPU, kept as text so that the next planner uses
/// them without measuring ([`Planner::with_wisdom`]). The file is plain
/// text, one plan's own text per entry, keyed by the transform line, the
/// thread setting and forced backend asked for, and the CPU:
///
/// ```text
/// nttfuse wisdom 1
/// cpu        GenuineIntel family 6 model 143 (…); avx2 avx512f …; L1 48 KiB, L2 2048 KiB, L3 …; 2 threads
/// == plan, threads asked: all, backend asked: any
/// transform  BabyBear DFT forward, n = 2^16, output natural, lanes = 256, batch = 1
/// backend    avx512, threads: all
/// …
/// cost       …
/// == end
/// ```
///
/// An entry is used through [`Plan::from_text`]: it must plan to the same
/// text, so an entry this build would plan otherwise is never run (the plan
/// says so).
///
/// ```
/// use nttfuse::{BabyBear, Planner, Transform, Wisdom};
/// use std::{sync::Arc, time::Duration};
/// let spec = Transform::<BabyBear>::dft(10).lanes(4);
/// let asked = Planner::new().measure(Duration::from_millis(20));
/// let mut wisdom = Wisdom::new();
/// wisdom.add(&asked, &asked.plan(&spec)?);
/// let path = std::env::temp_dir().join(format!("nttfuse-doc-{}.wisdom", std::process::id()));
/// wisdom.save(&path)?;
/// let wisdom = Arc::new(Wisdom::load(&path)?);
/// // No measuring now: the plan is the measured one, read back.
/// let plan = Planner::new().with_wisdom(wisdom).plan(&spec)?;
/// assert!(plan.to_string().contains("\nwisdom     "));
/// # std::fs::remove_file(&path).ok();
/// # Ok::<(), nttfuse::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Wisdom {
    cpu: String,
    entries: Vec<Entry>,
}

/// One measured plan and the settings it was asked with.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Entry {
    threads: Threads,
    backend: Option<Backend>,
    text: String,
}

impl Entry {
    fn transform_line(&self) -> &str {
        self.text.lines().next().unwrap_or_default()
    }
}

fn threads_name(t: Threads) -> String {
    match t {
        Threads::All => "all".to_string(),
        Threads::Count(n) => n.to_string(),
    }
}

const BACKENDS: [Backend; 4] = [
    Backend::Scalar,
    Backend::Avx512,
    Backend::Avx2,
    Backend::Neon,
];

impl Default for Wisdom {
    fn default() -> Self {
        Self::new()
    }
}

impl Wisdom {
    /// Empty wisdom of this CPU.
    pub fn new() -> Self {
        Wisdom {
            cpu: Self::this_cpu(),
            entries: Vec::new(),
        }
    }

    /// This CPU as wisdom names it: vendor, family and model, the ISA
    /// features the kernels use, the cache sizes and the thread count
    /// (everything a plan's choices depend on).
    pub fn this_cpu() -> String {
        static CPU: std::sync::OnceLock<String> = std::sync::OnceLock::new();
        CPU.get_or_init(Self::read_cpu).clone()
    }

    /// [`Wisdom::this_cpu`], read from the OS.
    fn read_cpu() -> String {
        let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let field = |name: &str| {
            info.lines()
                .filter_map(|l| l.split_once(':'))
                .find(|(k, _)| k.trim() == name)
                .map(|(_, v)| v.trim().to_string())
                .unwrap_or_else(|| "?".to_string())
        };
        let model = if cfg!(target_arch = "aarch64") {
            format!(
                "implementer {} part {}",
                field("CPU implementer"),
                field("CPU part")
            )
        } else {
            format!(
                "{} family {} model {} ({})",
                field("vendor_id"),
                field("cpu family"),
                field("model"),
                field("model name")
            )
        };
        #[allow(unused_mut)]
        let mut features: Vec<&str> = Vec::new();
        #[cfg(target_arch = "x86_64")]
        {
            let all = [
                ("avx2", x86_has!("avx2")),
                ("avx512f", x86_has!("avx512f")),
                ("avx512bw", x86_has!("avx512bw")),
                ("avx512vl", x86_has!("avx512vl")),
                ("avx512dq", x86_has!("avx512dq")),
                ("avx512ifma", x86_has!("avx512ifma")),
                ("pclmulqdq", x86_has!("pclmulqdq")),
                ("vpclmulqdq", x86_has!("vpclmulqdq")),
                ("gfni", x86_has!("gfni")),
            ];
            features.extend(all.iter().filter(|f| f.1).map(|f| f.0));
        }
        #[cfg(target_arch = "aarch64")]
        {
            let all = [("neon", aarch64_has!("neon")), ("aes", aarch64_has!("aes"))];
            features.extend(all.iter().filter(|f| f.1).map(|f| f.0));
        }
        let b = super::Budgets::detect();
        format!(
            "{model}; {}; L1 {} KiB, L2 {} KiB, L3 {} KiB; {} threads",
            features.join(" "),
            b.l1 >> 10,
            b.l2 >> 10,
            b.l3 >> 10,
            crate::par::current_num_threads()
        )
    }

    /// Whether this wisdom was measured on this CPU.
    pub fn is_of_this_cpu(&self) -> bool {
        static CPU: std::sync::OnceLock<String> = std::sync::OnceLock::new();
        self.cpu == *CPU.get_or_init(Self::read_cpu)
    }

    /// The CPU this wisdom was measured on.
    pub fn cpu(&self) -> &str {
        &self.cpu
    }

    /// Plans held.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether it holds no plan.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Keeps `plan` (normally a measured one) as the answer to planning its
    /// transform with `asked`'s thread setting and forced backend, in place
    /// of an older answer.
    pub fn add<F: Kernels>(&mut self, asked: &Planner, plan: &Plan<F>) {
        let entry = Entry {
            threads: asked.thread_setting(),
            backend: asked.forced_backend(),
            text: plan
                .to_string()
                .lines()
                .filter(|l| !l.starts_with("wisdom     "))
                .collect::<Vec<_>>()
                .join("\n"),
        };
        self.entries.retain(|e| {
            (e.threads, e.backend, e.transform_line())
                != (entry.threads, entry.backend, entry.transform_line())
        });
        self.entries.push(entry);
    }

    /// The plan wisdom holds for `spec` asked with `planner`'s settings,
    /// read back from its text; `None` (with a note saying why, where there
    /// is something to say) otherwise.
    pub(super) fn plan_for<F: Kernels>(
        &self,
        planner: &Planner,
        spec: &Transform<F>,
        notes: &mut Vec<String>,
    ) -> Option<Plan<F>> {
        if !self.is_of_this_cpu() {
            notes.push(format!(
                "wisdom     ignored: made on another CPU ({})",
                self.cpu
            ));
            return None;
        }
        let line = format!("transform  {}", spec.describe());
        let entry = self.entries.iter().find(|e| {
            e.threads == planner.thread_setting()
                && e.backend == planner.forced_backend()
                && e.transform_line() == line
        })?;
        match Plan::<F>::from_text(&entry.text) {
            Ok(mut plan) => {
                plan.notes
                    .push("wisdom     from wisdom of this CPU: not measured again".to_string());
                Some(plan)
            }
            Err(e) => {
                notes.push(format!("wisdom     entry not used: {e}"));
                None
            }
        }
    }

    /// Wisdom from its text; `source` names it in errors (a path, or
    /// `"text"`). A text that is not wisdom, or is cut short, is an error
    /// naming the line.
    pub fn from_text(text: &str, source: &str) -> Result<Self, Error> {
        let error = |line: usize, reason: String| Error::Wisdom {
            source: source.to_string(),
            line,
            reason,
        };
        let lines: Vec<&str> = text.lines().collect();
        if lines.first() != Some(&HEADER) {
            return Err(error(1, format!("expected \"{HEADER}\"")));
        }
        let cpu = lines
            .get(1)
            .and_then(|l| l.strip_prefix(CPU))
            .ok_or_else(|| error(2, "expected the \"cpu\" line".to_string()))?;
        let mut entries = Vec::new();
        let mut at = 2;
        loop {
            let Some(&head) = lines.get(at) else {
                return Err(error(at + 1, format!("cut short: no \"{END}\" line")));
            };
            if head == END {
                if at + 1 != lines.len() {
                    return Err(error(at + 2, format!("text after \"{END}\"")));
                }
                break;
            }
            let asked = head
                .strip_prefix(ENTRY)
                .ok_or_else(|| error(at + 1, format!("expected \"{ENTRY}…\" or \"{END}\"")))?;
            let (threads, backend) = asked
                .split_once(", backend asked: ")
                .ok_or_else(|| error(at + 1, "expected \", backend asked: \"".to_string()))?;
            let threads = match threads {
                "all" => Threads::All,
                n => Threads::Count(
                    n.parse()
                        .map_err(|_| error(at + 1, format!("unknown thread count \"{n}\"")))?,
                ),
            };
            let backend = match backend {
                "any" => None,
                name => Some(
                    BACKENDS
                        .into_iter()
                        .find(|b| b.name() == name)
                        .ok_or_else(|| error(at + 1, format!("unknown backend \"{name}\"")))?,
                ),
            };
            let first = at + 1;
            let mut end = first;
            while lines.get(end).is_some_and(|l| !l.starts_with("== ")) {
                end += 1;
            }
            let body = &lines[first..end];
            for (k, label) in ["transform  ", "backend    ", "budgets    "]
                .iter()
                .enumerate()
            {
                if !body.get(k).is_some_and(|l| l.starts_with(label)) {
                    return Err(error(
                        first + k + 1,
                        format!("expected \"{}\"", label.trim()),
                    ));
                }
            }
            if !body.last().is_some_and(|l| l.starts_with("cost       ")) {
                return Err(error(end, "a plan ends with its \"cost\" line".to_string()));
            }
            entries.push(Entry {
                threads,
                backend,
                text: body.join("\n"),
            });
            at = end;
        }
        Ok(Wisdom {
            cpu: cpu.to_string(),
            entries,
        })
    }

    /// Wisdom from the file at `path`.
    pub fn load(path: impl AsRef<std::path::Path>) -> Result<Self, Error> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|e| Error::Wisdom {
            source: path.display().to_string(),
            line: 0,
            reason: e.to_string(),
        })?;
        Self::from_text(&text, &path.display().to_string())
    }

    /// Writes this wisdom to `path`, atomically (a whole file or none:
    /// written beside it, then renamed over it), so that readers never see
    /// half a file. Entries already in the file from this CPU that this
    /// wisdom does not replace are kept; a file from another CPU, or one
    /// that does not read as wisdom, is replaced.
    pub fn save(&self, path: impl AsRef<std::path::Path>) -> Result<(), Error> {
        let path = path.as_ref();
        let io = |e: std::io::Error| Error::Wisdom {
            source: path.display().to_string(),
            line: 0,
            reason: e.to_string(),
        };
        let mut merged = self.clone();
        if let Ok(old) = Self::load(path) {
            if old.cpu == self.cpu {
                let mut kept: Vec<Entry> = old
                    .entries
                    .into_iter()
                    .filter(|o| {
                        !self.entries.iter().any(|e| {
                            (e.threads, e.backend, e.transform_line())
                                == (o.threads, o.backend, o.transform_line())
                        })
                    })
                    .collect();
                kept.append(&mut merged.entries);
                merged.entries = kept;
            }
        }
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let mut temp = std::ffi::OsString::from(path.as_os_str());
        temp.push(format!(".{}.{nanos}.tmp", std::process::id()));
        std::fs::write(&temp, merged.to_string()).map_err(io)?;
        std::fs::rename(&temp, path).map_err(|e| {
            let _ = std::fs::remove_file(&temp);
            io(e)
        })
    }
}

impl fmt::Display for Wisdom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{HEADER}")?;
        writeln!(f, "{CPU}{}", self.cpu)?;
        for e in &self.entries {
            writeln!(
                f,
                "{ENTRY}{}, backend asked: {}",
                threads_name(e.threads),
                e.backend.map_or("any", Backend::name)
            )?;
            writeln!(f, "{}", e.text)?;
        }
        writeln!(f, "{END}")
    }
}
