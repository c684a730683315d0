//! How a transform describes itself (the first line of a plan's text).

use super::{Direction, Family, NttOrder, Order, Reduction, Transform};
use crate::field::Field;
use alloc::string::String;

impl<F: Field> Transform<F> {
    /// One line naming the transform, as plans print it.
    pub fn describe(&self) -> String {
        let dir = match self.direction {
            Direction::Forward => "forward",
            Direction::Inverse => "inverse",
        };
        let what = match self.family {
            Family::Cyclic if self.encode => format!(
                "DFT encode, n = 2^{}, blowup 2^{}{}",
                self.log_n,
                self.first_layer,
                if self.shift == F::one() {
                    String::new()
                } else {
                    format!(", coset shift {:?}", self.shift)
                }
            ),
            Family::Cyclic => format!(
                "DFT {dir}, n = 2^{}{}",
                self.log_n,
                if self.shift == F::one() {
                    String::new()
                } else {
                    format!(", coset shift {:?}", self.shift)
                }
            ),
            Family::Negacyclic => format!(
                "negacyclic NTT {dir}, n = 2^{}, layers 1-{}{}{}",
                self.log_n,
                self.layer_end(),
                match (self.ntt_order, self.direction) {
                    (NttOrder::Standard, _) => "",
                    (NttOrder::Permuted, Direction::Forward) => ", output permuted",
                    (NttOrder::Permuted, Direction::Inverse) => ", input permuted",
                },
                match self.reduction {
                    Reduction::Canonical => "",
                    Reduction::Lazy => ", lazy",
                }
            ),
            Family::Additive if self.encode => format!(
                "additive encode, n = 2^{}, rate 2^-{}, {} basis{}{}",
                self.log_n,
                self.first_layer,
                self.basis.name(),
                self.additive_shift(),
                if self.depth > 0 {
                    format!(
                        ", the top layers of a 2^{}-point encode",
                        u64::from(self.log_n) + u64::from(self.depth)
                    )
                } else {
                    String::new()
                }
            ),
            Family::Additive => format!(
                "additive NTT {dir}, n = 2^{}{}, {} basis{}",
                self.log_n,
                if self.first_layer > 0 {
                    format!(", from layer {}", u64::from(self.first_layer) + 1)
                } else {
                    String::new()
                },
                self.basis.name(),
                self.additive_shift()
            ),
        };
        let order = match (self.family, self.direction, self.order) {
            (Family::Cyclic, Direction::Forward, o) => format!(", output {}", order_name(o)),
            (Family::Cyclic, Direction::Inverse, o) => format!(", input {}", order_name(o)),
            _ => String::new(),
        };
        let what = if self.prune > 0 {
            format!(
                "{what}, keeping the first 2^{} outputs",
                u64::from(self.log_n).saturating_sub(u64::from(self.prune))
            )
        } else {
            what
        };
        format!(
            "{} {what}{order}, lanes = {}{}, batch = {}",
            F::NAME,
            self.lanes,
            if self.lane_major_input {
                " (input lane-major)"
            } else {
                ""
            },
            self.batch
        )
    }

    /// ", shift s" for an additive transform on a shifted domain (the
    /// domain is s + span(basis); unshifted, s = 0, it prints nothing).
    fn additive_shift(&self) -> String {
        if self.shift == F::zero() {
            String::new()
        } else {
            format!(", shift {:?}", self.shift)
        }
    }
}

fn order_name(o: Order) -> &'static str {
    match o {
        Order::Natural => "natural",
        Order::BitReversed => "bit-reversed",
    }
}
