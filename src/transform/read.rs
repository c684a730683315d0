//! Reading a transform back from the line it describes itself with
//! ([`Transform::describe`], the first line of a plan's text).
//!
//! Which constructors a field has depends on its traits (`dft` needs a
//! two-adic field, `additive_ntt` a binary one, the FIPS transforms their
//! ring), so each field hands the reader its [`Constructors`]; the reader
//! parses the line, calls them, and accepts the result only if it describes
//! itself with the very same line.

use super::{Basis, LogBlowup, NttOrder, Order, Reduction, Transform};
use crate::field::{BinaryField, Field, TwoAdicField};
use alloc::{format, string::String};

/// A field's FIPS transforms: `[forward, inverse]`.
type RingConstructors<F> = [fn() -> Transform<F>; 2];

/// `Transform::dft_encode`'s shape.
type EncodeConstructor<F> = fn(u32, LogBlowup, F) -> Transform<F>;

/// The constructors of one field, as the description reader calls them.
#[doc(hidden)]
pub struct Constructors<F: Field> {
    dft: Option<fn(u32) -> Transform<F>>,
    idft: Option<fn(u32) -> Transform<F>>,
    dft_encode: Option<EncodeConstructor<F>>,
    additive_encode: Option<fn(u32, LogBlowup) -> Transform<F>>,
    additive_ntt: Option<fn(u32) -> Transform<F>>,
    additive_intt: Option<fn(u32) -> Transform<F>>,
    negacyclic: Option<RingConstructors<F>>,
}

impl<F: Field> Constructors<F> {
    /// None (a field no transform reads back on).
    pub fn none() -> Self {
        Self {
            dft: None,
            idft: None,
            dft_encode: None,
            additive_encode: None,
            additive_ntt: None,
            additive_intt: None,
            negacyclic: None,
        }
    }

    /// The multiplicative families of a two-adic field.
    pub fn two_adic() -> Self
    where
        F: TwoAdicField,
    {
        Self {
            dft: Some(Transform::dft),
            idft: Some(Transform::idft),
            dft_encode: Some(Transform::dft_encode),
            ..Self::none()
        }
    }

    /// The additive family of a binary field.
    pub fn binary() -> Self
    where
        F: BinaryField,
    {
        Self {
            additive_ntt: Some(Transform::additive_ntt),
            additive_intt: Some(Transform::additive_intt),
            additive_encode: Some(Transform::additive_encode),
            ..Self::none()
        }
    }

    /// A two-adic field's families and its ring's FIPS transforms.
    pub fn ring(forward: fn() -> Transform<F>, inverse: fn() -> Transform<F>) -> Self
    where
        F: TwoAdicField,
    {
        Self {
            negacyclic: Some([forward, inverse]),
            ..Self::two_adic()
        }
    }
}

/// `text` after `prefix`, or why not.
fn after<'a>(text: &'a str, prefix: &str) -> Result<&'a str, String> {
    text.strip_prefix(prefix)
        .ok_or_else(|| format!("expected \"{prefix}\" at \"{text}\""))
}

/// A number.
fn number<T: core::str::FromStr>(text: &str) -> Result<T, String> {
    text.trim()
        .parse()
        .map_err(|_| format!("expected a number, found \"{text}\""))
}

/// `2^k` as k.
fn power(text: &str) -> Result<u32, String> {
    number(after(text.trim(), "2^")?)
}

/// An element as its `Debug` text prints it: the base-field integer the
/// text starts with, accepted only if it prints the same.
fn element<F: Field>(text: &str) -> Result<F, String> {
    let first = text.trim_start_matches(['[', '(']);
    // Binary fields print hexadecimal ("0x3039"), prime fields decimal.
    let value = match first.strip_prefix("0x") {
        Some(hex) => {
            let digits: String = hex.chars().take_while(char::is_ascii_hexdigit).collect();
            u64::from_str_radix(&digits, 16)
                .map_err(|_| format!("expected a hexadecimal number, found \"{text}\""))?
        }
        None => {
            let digits: String = first.chars().take_while(char::is_ascii_digit).collect();
            number(&digits)?
        }
    };
    let value = F::from_u64(value);
    if format!("{value:?}") == text {
        Ok(value)
    } else {
        Err(format!(
            "the shift \"{text}\" is not a base-field value this reader can rebuild"
        ))
    }
}

/// Splits `text` at its last `", " + marker` into (before, after marker).
fn split_last<'a>(text: &'a str, marker: &str) -> Option<(&'a str, &'a str)> {
    let at = text.rfind(&format!(", {marker}"))?;
    Some((&text[..at], &text[at + 2 + marker.len()..]))
}

impl<F: Field> Transform<F> {
    /// The transform `line` describes (the inverse of
    /// [`Transform::describe`]), built with the field's `constructors`.
    pub(crate) fn read(text: &str, constructors: &Constructors<F>) -> Result<Self, String> {
        let missing = |what: &str| format!("{} has no {what} transform", F::NAME);
        let line = text;
        let body = after(line, F::NAME)?
            .strip_prefix(' ')
            .ok_or("expected a space after the field name")?;
        // The tail every description ends with.
        let (body, batch) = split_last(body, "batch = ").ok_or("no \"batch = \"")?;
        let batch: usize = number(batch)?;
        let (body, lanes) = split_last(body, "lanes = ").ok_or("no \"lanes = \"")?;
        let (lanes, lane_major) = match lanes.strip_suffix(" (input lane-major)") {
            Some(l) => (l, true),
            None => (lanes, false),
        };
        let lanes: usize = number(lanes)?;
        // The evaluation order of a cyclic DFT.
        let mut order = None;
        for (marker, o) in [
            ("output natural", Order::Natural),
            ("output bit-reversed", Order::BitReversed),
            ("input natural", Order::Natural),
            ("input bit-reversed", Order::BitReversed),
        ] {
            if let Some(rest) = body.strip_suffix(&format!(", {marker}")) {
                if body.starts_with("DFT") {
                    order = Some((rest, o));
                    break;
                }
            }
        }
        let (body, order) = match order {
            Some((rest, o)) => (rest, Some(o)),
            None => (body, None),
        };
        // A pruned transform keeps 2^kept of its rows.
        let (body, kept) = match split_last(body, "keeping the first ") {
            Some((rest, kept)) => (
                rest,
                Some(power(
                    kept.strip_suffix(" outputs")
                        .ok_or("expected \" outputs\"")?,
                )?),
            ),
            None => (body, None),
        };
        let mut parts = body.split(", ");
        let head = parts.next().unwrap_or_default();
        let log_n = power(after(parts.next().unwrap_or_default(), "n = ")?)?;
        let rest: alloc::vec::Vec<&str> = parts.collect();
        let mut t = if let Some(kind) = head.strip_prefix("DFT ") {
            let (dft, idft) = constructors
                .dft
                .zip(constructors.idft)
                .ok_or_else(|| missing("DFT"))?;
            // "coset shift" may print an extension element with commas.
            let (plain, shift) = match body.find(", coset shift ") {
                Some(at) => (
                    &body[..at],
                    Some(element::<F>(&body[at + ", coset shift ".len()..])?),
                ),
                None => (body, None),
            };
            let plain: alloc::vec::Vec<&str> = plain.split(", ").skip(2).collect();
            let mut t = match kind {
                "forward" => dft(log_n),
                "inverse" => idft(log_n),
                "encode" => {
                    let blowup = plain
                        .first()
                        .and_then(|b| b.strip_prefix("blowup "))
                        .ok_or("an encode names its blowup")?;
                    let encode = constructors.dft_encode.ok_or_else(|| missing("DFT"))?;
                    encode(log_n, LogBlowup(power(blowup)?), F::one())
                }
                _ => return Err(format!("unknown DFT \"{kind}\"")),
            };
            if let Some(shift) = shift {
                t = t.shift(shift);
            }
            t
        } else if let Some(kind) = head.strip_prefix("negacyclic NTT ") {
            let [forward, inverse] = constructors
                .negacyclic
                .ok_or_else(|| missing("negacyclic"))?;
            let mut t = match kind {
                "forward" => forward(),
                "inverse" => inverse(),
                _ => return Err(format!("unknown negacyclic NTT \"{kind}\"")),
            };
            for part in rest.iter().skip(1) {
                t = match *part {
                    "output permuted" | "input permuted" => t.ntt_order(NttOrder::Permuted),
                    "lazy" => t.reduction(Reduction::Lazy),
                    other => return Err(format!("unknown option \"{other}\"")),
                };
            }
            t
        } else if let Some(kind) = head.strip_prefix("additive ") {
            let (ntt, intt) = constructors
                .additive_ntt
                .zip(constructors.additive_intt)
                .ok_or_else(|| missing("additive"))?;
            // "shift" may print an extension element with commas; it comes
            // after the basis (and before an encode's depth, which internal
            // plans alone have and which does not read back).
            let (rest, shift) = match body.find(", shift ") {
                Some(at) => {
                    let plain: alloc::vec::Vec<&str> = body[..at].split(", ").skip(2).collect();
                    (plain, Some(element::<F>(&body[at + ", shift ".len()..])?))
                }
                None => (rest, None),
            };
            let basis = match rest.last().copied() {
                Some("standard basis") => Basis::Standard,
                Some("Cantor basis") => Basis::Cantor,
                other => return Err(format!("unknown basis {other:?}")),
            };
            let mut t = match kind {
                "NTT forward" => ntt(log_n),
                "NTT inverse" => intt(log_n),
                "encode" => {
                    let rate = rest
                        .first()
                        .and_then(|r| r.strip_prefix("rate 2^-"))
                        .ok_or("an encode names its rate")?;
                    let encode = constructors
                        .additive_encode
                        .ok_or_else(|| missing("additive"))?;
                    encode(log_n, LogBlowup(number(rate)?))
                }
                _ => return Err(format!("unknown additive transform \"{kind}\"")),
            };
            if let Some(from) = rest.first().and_then(|r| r.strip_prefix("from layer ")) {
                let from: u32 = number(from)?;
                t.first_layer = from.checked_sub(1).ok_or("layers count from 1")?;
            }
            t.basis = basis;
            if let Some(shift) = shift {
                t.shift = shift;
            }
            t
        } else {
            return Err(format!("unknown transform \"{head}\""));
        };
        t = t.lanes(lanes).batch(batch);
        if lane_major {
            t = t.lane_major_input();
        }
        if let Some(order) = order {
            t = t.order(order);
        }
        if let Some(kept) = kept {
            let pruned = log_n
                .checked_sub(kept)
                .ok_or("more rows kept than there are")?;
            t = t.retain_prefix(pruned);
        }
        if t.describe() == text {
            Ok(t)
        } else {
            Err(format!(
                "read as \"{}\", which is not the same line",
                t.describe()
            ))
        }
    }
}
