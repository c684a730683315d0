//! The one error type of the crate.

use alloc::string::String;
use core::fmt;

/// Everything that can go wrong when describing, planning or executing a
/// transform. Every variant says what was expected and what was given.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// A data slice whose length is not the transform's.
    LengthMismatch {
        /// What the slice is (`"data"`, `"input"`, `"output"`, `"scratch"`).
        what: &'static str,
        /// Elements the plan needs: its `input_len()` for an input, its
        /// `len()` (output rows × lanes × batch) for data and output, at
        /// least its `scratch_len()` for scratch.
        expected: usize,
        /// Elements given.
        got: usize,
    },
    /// A transform size that is not a power of two.
    NotPowerOfTwo {
        /// The size given.
        len: usize,
    },
    /// log₂ of the size exceeds what the field supports (two-adicity for
    /// multiplicative transforms, basis dimension for additive ones).
    SizeTooLarge {
        /// The field.
        field: &'static str,
        /// log₂ of the size asked for.
        log_n: u32,
        /// The largest log₂ size this field allows.
        max_log_n: u32,
    },
    /// `lanes` (interleaved columns) is zero.
    ZeroLanes,
    /// `batch` (transforms one after another) is zero.
    ZeroBatch,
    /// rows × lanes × batch does not fit in memory addresses.
    SizeOverflow {
        /// log₂ of the rows.
        log_n: u32,
        /// Columns.
        lanes: usize,
        /// Transforms in the batch.
        batch: usize,
    },
    /// A rate 2^−r above the codeword (r > log n), or a first layer r that
    /// leaves no layer to run (r ≥ log n, on anything but an additive
    /// encode, whose one-row message is replicated).
    RateTooHigh {
        /// log₂ of the inverse rate, or the first layer asked for.
        log_inv_rate: u32,
        /// log₂ of the codeword length.
        log_n: u32,
    },
    /// An option this transform does not have (e.g. an order on a transform
    /// whose order the standard fixes).
    Unsupported {
        /// What was asked for.
        what: &'static str,
    },
    /// A backend forced on a machine (or for a field) where it cannot run.
    BackendUnavailable {
        /// The backend's name.
        backend: &'static str,
        /// Why it cannot run here.
        reason: String,
    },
    /// The allocator could not provide the plan's own tables (twiddles in
    /// kernel order, about two field elements per row): the transform is
    /// valid but too large for this machine. Planning fails before building
    /// anything, instead of aborting the process part-way.
    OutOfMemory {
        /// What could not be allocated.
        what: &'static str,
        /// Bytes asked for.
        bytes: usize,
    },
    /// Raw words that are not all canonical residues (in `[0, q)`), given
    /// where the field's elements are expected. Which word is out of range
    /// is not said: the check is one constant-time pass, so that it leaks
    /// nothing but its verdict about secret coefficients.
    NotCanonical {
        /// The field.
        field: &'static str,
        /// Words checked.
        len: usize,
    },
    /// A thread count of zero, or a thread pool that could not be built.
    Threads {
        /// What went wrong.
        reason: String,
    },
    /// Text that is not a plan's text, or that this build and CPU plan
    /// differently ([`Plan::from_text`](crate::Plan::from_text)).
    PlanText {
        /// The line (1-based) where reading stopped.
        line: usize,
        /// Why.
        reason: String,
    },
    /// Wisdom that could not be read or written
    /// ([`Wisdom`](crate::Wisdom)): a file error, or text that is not
    /// wisdom or is cut short.
    Wisdom {
        /// The file (or `"text"`).
        source: String,
        /// The line (1-based); 0 for the file as a whole.
        line: usize,
        /// Why.
        reason: String,
    },
    /// A file (or a caller's row storage) that could not be read or
    /// written where an out-of-core transform needed it: too short, read
    /// only, a full disk, or a word that is not a canonical element.
    Io {
        /// The file's name (or the storage's).
        file: String,
        /// The byte offset of the failed access.
        offset: u64,
        /// Why.
        reason: String,
    },
    /// A resident-memory budget too small for the out-of-core plan's
    /// smallest tiles.
    BudgetTooSmall {
        /// Bytes given.
        budget: usize,
        /// Bytes the plan needs at least.
        needed: usize,
    },
    /// An out-of-core run stopped by its caller's progress callback. The
    /// input is never written, so running again from the start resumes.
    Interrupted {
        /// The pass (1-based) that was running.
        pass: usize,
        /// Passes of the plan.
        passes: usize,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::LengthMismatch {
                what: "scratch",
                expected,
                got,
            } => write!(
                f,
                "scratch has {got} elements but the plan needs at least {expected} (Plan::scratch_len)"
            ),
            Error::LengthMismatch {
                what: "register-round data",
                expected,
                got,
            } => write!(f, "register-round data has {got} elements but needs at least {expected}"),
            Error::LengthMismatch {
                what: "input",
                expected,
                got,
            } => write!(
                f,
                "input has {got} elements but the plan needs {expected} (its input_len(): input rows × lanes × batch; an encode's or LDE's input is the shorter message)"
            ),
            Error::LengthMismatch { what, expected, got } => write!(
                f,
                "{what} has {got} elements but the plan needs {expected} (its len(): output rows × lanes × batch)"
            ),
            Error::NotPowerOfTwo { len } => {
                write!(f, "transform size {len} is not a power of two")
            }
            Error::SizeTooLarge { field, log_n, max_log_n } => write!(
                f,
                "transform size 2^{log_n} is beyond {field}'s limit of 2^{max_log_n}"
            ),
            Error::ZeroLanes => write!(f, "lanes must be at least 1"),
            Error::ZeroBatch => write!(f, "batch must be at least 1"),
            Error::SizeOverflow { log_n, lanes, batch } => write!(
                f,
                "2^{log_n} rows × {lanes} lanes × {batch} transforms overflows usize"
            ),
            Error::RateTooHigh { log_inv_rate, log_n } => write!(
                f,
                "rate 2^-{log_inv_rate} leaves no layer of a 2^{log_n} transform to run (need log_inv_rate < log_n; an additive encode allows log_inv_rate = log_n)"
            ),
            Error::Unsupported { what } => write!(f, "unsupported: {what}"),
            Error::BackendUnavailable { backend, reason } => {
                write!(f, "backend {backend} is unavailable: {reason}")
            }
            Error::OutOfMemory { what, bytes } => {
                write!(f, "out of memory: {what} need {bytes} bytes")
            }
            Error::NotCanonical { field, len } => write!(
                f,
                "the {len} raw words are not all canonical {field} residues (each in [0, q))"
            ),
            Error::Threads { reason } => write!(f, "threads: {reason}"),
            Error::PlanText { line, reason } => write!(f, "plan text, line {line}: {reason}"),
            Error::Wisdom {
                source,
                line: 0,
                reason,
            } => write!(f, "wisdom {source}: {reason}"),
            Error::Wisdom {
                source,
                line,
                reason,
            } => write!(f, "wisdom {source}, line {line}: {reason}"),
            Error::Io {
                file,
                offset,
                reason,
            } => write!(f, "{file}, byte {offset}: {reason}"),
            Error::BudgetTooSmall { budget, needed } => write!(
                f,
                "a resident budget of {budget} bytes is too small: the plan's smallest tiles need {needed}"
            ),
            Error::Interrupted { pass, passes } => write!(
                f,
                "interrupted in pass {pass} of {passes}; the input is untouched: run again to resume"
            ),
        }
    }
}

impl core::error::Error for Error {}
