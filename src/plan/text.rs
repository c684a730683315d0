//! Plans read back from their text: the transform line names the spec, the
//! backend and budgets lines the planner's settings; planning that spec with
//! those settings must give the very same text, or reading fails.
//!
//! This is what lets a plan travel: a scheduler ships a plan's text to every
//! worker, and each worker either runs exactly that plan or gets an error
//! saying which line its build or CPU would plan differently.

use super::{Budgets, Plan, Planner, Threads};
use crate::backend::{Backend, Kernels};
use crate::error::Error;
use crate::transform::Transform;
use alloc::{
    format,
    string::{String, ToString},
};

/// The error for `line` (1-based) of a plan's text.
fn text_error(line: usize, reason: impl Into<String>) -> Error {
    Error::PlanText {
        line,
        reason: reason.into(),
    }
}

/// Line `index` (0-based) of `lines` without its `label` column.
fn field<'a>(lines: &[&'a str], index: usize, label: &str) -> Result<&'a str, Error> {
    let line = lines
        .get(index)
        .ok_or_else(|| text_error(index + 1, "the text ends early"))?;
    line.strip_prefix(label)
        .ok_or_else(|| text_error(index + 1, format!("expected \"{label}\" at \"{line}\"")))
}

/// A size as plans print it (`"48 KiB"`, `"1 MiB"`, `"1.5 KiB"`, `"512 B"`;
/// one decimal at most, as printed).
fn bytes(text: &str) -> Option<usize> {
    let (number, unit) = text.trim().split_once(' ')?;
    let scale: usize = match unit {
        "B" => 1,
        "KiB" => 1 << 10,
        "MiB" => 1 << 20,
        _ => return None,
    };
    let (whole, tenths) = match number.split_once('.') {
        Some((w, t)) if t.len() == 1 => (w, t.parse::<usize>().ok()?),
        Some(_) => return None,
        None => (number, 0),
    };
    let whole: usize = whole.parse().ok()?;
    whole.checked_mul(scale)?.checked_add(tenths * scale / 10)
}

/// The backend, threads and budgets the plan's second and third lines
/// print, and the register count they show.
fn settings(lines: &[&str]) -> Result<(Backend, Threads, Budgets, usize), Error> {
    let backend_line = field(lines, 1, "backend    ")?;
    let (name, threads) = backend_line
        .split_once(", threads: ")
        .ok_or_else(|| text_error(2, "expected \", threads: \""))?;
    let backend = [
        Backend::Scalar,
        Backend::Avx512,
        Backend::Avx2,
        Backend::Neon,
    ]
    .into_iter()
    .find(|b| b.name() == name)
    .ok_or_else(|| text_error(2, format!("unknown backend \"{name}\"")))?;
    let threads = threads.split(' ').next().unwrap_or_default();
    let threads = match threads {
        "all" => Threads::All,
        n => Threads::Count(
            n.parse()
                .map_err(|_| text_error(2, format!("unknown thread count \"{n}\"")))?,
        ),
    };
    let budgets_line = field(lines, 2, "budgets    registers ")?;
    let bad_budgets = || text_error(3, format!("unreadable budgets \"{budgets_line}\""));
    let (registers, caches) = budgets_line
        .split_once(" values, ")
        .ok_or_else(bad_budgets)?;
    let registers: usize = registers.parse().map_err(|_| bad_budgets())?;
    let mut sizes = caches.split(", ").map(|part| {
        part.split_once(' ')
            .and_then(|(_, size)| bytes(size))
            .ok_or_else(bad_budgets)
    });
    let mut next = || sizes.next().unwrap_or_else(|| Err(bad_budgets()));
    let budgets = Budgets::fixed(next()?, next()?, next()?);
    Ok((backend, threads, budgets, registers))
}

/// The 1-based number of the first line where `a` and `b` differ, with both.
fn first_difference(a: &str, b: &str) -> (usize, String, String) {
    let (mut x, mut y) = (a.lines(), b.lines());
    let mut line = 1;
    loop {
        match (x.next(), y.next()) {
            (Some(p), Some(q)) if p == q => line += 1,
            (p, q) => {
                return (
                    line,
                    p.unwrap_or("(end)").to_string(),
                    q.unwrap_or("(end)").to_string(),
                )
            }
        }
    }
}

impl<F: Kernels> Plan<F> {
    /// The plan `text` is the text of ([`Display`](core::fmt::Display)):
    /// its transform and settings read back and planned again, which must
    /// give the same text line for line. A worker handed a plan's text thus
    /// runs exactly that plan, whatever its own cache sizes, or gets a
    /// typed error naming the line its build or CPU plans differently (a
    /// backend this CPU lacks, another crate version's rules).
    ///
    /// ```
    /// use nttfuse::{BabyBear, Budgets, Plan, Planner, Transform};
    /// let plan = Planner::new()
    ///     .budgets(Budgets::fixed(1 << 10, 4 << 10, 64 << 10))
    ///     .plan(&Transform::<BabyBear>::dft(12).lanes(8))?;
    /// let text = plan.to_string();
    /// let again: Plan<BabyBear> = text.parse()?;
    /// assert_eq!(again, plan);
    /// assert_eq!(again.to_string(), text);
    /// # Ok::<(), nttfuse::Error>(())
    /// ```
    pub fn from_text(text: &str) -> Result<Self, Error> {
        // How the plan was chosen (measured, from wisdom) is carried over as
        // it is; the rest must be what planning gives.
        let is_note = |(i, line): &(usize, &str)| {
            *i >= 3 && (line.starts_with("measured   ") || line.starts_with("wisdom     "))
        };
        let notes: alloc::vec::Vec<String> = text
            .lines()
            .enumerate()
            .filter(is_note)
            .map(|(_, line)| line.to_string())
            .collect();
        let lines: alloc::vec::Vec<&str> = text
            .trim_end()
            .lines()
            .enumerate()
            .filter(|l| !is_note(l))
            .map(|(_, line)| line)
            .collect();
        let body = lines.join("\n");
        let text = body.as_str();
        let line = field(&lines, 0, "transform  ")?;
        let spec = Transform::<F>::read(line, &F::constructors()).map_err(|r| text_error(1, r))?;
        let (backend, threads, budgets, registers) = settings(&lines)?;
        let planner = Planner::with_settings(backend, threads, budgets);
        // The budgets line prints the register count whether or not it was
        // set; the plan that reads back is the one that prints the text.
        let mut nearest = None;
        for register_values in [None, Some(registers)] {
            let plan = planner.clone().budgets(Budgets {
                register_values,
                ..budgets
            });
            let mut plan = plan.plan(&spec)?;
            let again = plan.to_string();
            if again == text {
                plan.notes = notes;
                return Ok(plan);
            }
            nearest.get_or_insert(again);
        }
        let (line, want, got) = first_difference(text, &nearest.unwrap_or_default());
        Err(text_error(
            line,
            format!("this build plans \"{got}\" where the text has \"{want}\""),
        ))
    }
}

impl<F: Kernels> core::str::FromStr for Plan<F> {
    type Err = Error;

    /// [`Plan::from_text`].
    fn from_str(text: &str) -> Result<Self, Error> {
        Self::from_text(text)
    }
}

/// Two plans are equal when they plan the same transform the same way:
/// equal specs and the same text (every decision a plan makes — backend,
/// passes, tiles, groups, kernels, bounds, threads — shows in its text).
impl<F: Kernels> PartialEq for Plan<F> {
    fn eq(&self, other: &Self) -> bool {
        self.spec == other.spec && self.to_string() == other.to_string()
    }
}
