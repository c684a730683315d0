//! `BabyBear4` = BabyBear\[x\] / (x⁴ − 11): Plonky3's
//! `BinomialExtensionField<BabyBear, 4>`, laid out as four BabyBear
//! coefficients (`#[repr(C)]`, lowest first), so DFTs of extension columns
//! run on the BabyBear kernels over 4 × the lanes.

use super::{impl_field_ops, BabyBear, ExtensionOf, Field, TwoAdicField};

/// W with x⁴ = W (Plonky3's `BinomialExtensionData<4>::W` for BabyBear).
const W: u32 = 11;

/// An element of the degree-4 binomial extension of BabyBear.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
#[repr(C)]
pub struct BabyBear4(pub [BabyBear; 4]);

impl BabyBear4 {
    /// 0.
    pub const ZERO: Self = Self([BabyBear::ZERO; 4]);
    /// 1.
    pub const ONE: Self = Self([
        BabyBear::ONE,
        BabyBear::ZERO,
        BabyBear::ZERO,
        BabyBear::ZERO,
    ]);

    /// (c0 + c1·y) · (d0 + d1·y)⁻¹-style helpers live in `inverse`.
    fn w() -> BabyBear {
        BabyBear::new(W)
    }
}

impl BabyBear4 {
    fn add_impl(self, rhs: Self) -> Self {
        Self(core::array::from_fn(|i| self.0[i] + rhs.0[i]))
    }

    fn sub_impl(self, rhs: Self) -> Self {
        Self(core::array::from_fn(|i| self.0[i] - rhs.0[i]))
    }

    /// Schoolbook, folding x^(4+k) = W·x^k.
    fn mul_impl(self, rhs: Self) -> Self {
        let (a, b) = (self.0, rhs.0);
        let mut c = [BabyBear::ZERO; 7];
        for i in 0..4 {
            for j in 0..4 {
                c[i + j] += a[i] * b[j];
            }
        }
        let w = Self::w();
        Self([c[0] + w * c[4], c[1] + w * c[5], c[2] + w * c[6], c[3]])
    }
}

impl_field_ops!(BabyBear4);

impl core::fmt::Debug for BabyBear4 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{:?}", self.0)
    }
}

impl Field for BabyBear4 {
    const NAME: &'static str = "BabyBear4";
    type Twiddle = Self;

    #[inline(always)]
    fn prepare_twiddle(w: Self) -> Self {
        w
    }

    #[inline(always)]
    fn mul_twiddle(self, w: Self) -> Self {
        self * w
    }

    /// Embeds the BabyBear element `x mod p`.
    fn from_u64(x: u64) -> Self {
        Self::from_base(BabyBear::from_u64(x))
    }

    /// The canonical value of coefficient 0 (the whole element only for
    /// base-field values).
    fn to_canonical_u64(self) -> u64 {
        self.0[0].to_canonical_u64()
    }

    /// With y = x², a = A + x·B (A, B in BabyBear\[y\]/(y² − W)):
    /// a·(A − x·B) = A² − y·B² lies in that quadratic field; invert it there.
    fn inverse(self) -> Option<Self> {
        if self == Self::ZERO {
            return None;
        }
        let [a0, a1, a2, a3] = self.0;
        let w = Self::w();
        // A = a0 + a2·y, B = a1 + a3·y; A² − y·B² = c0 + c1·y.
        let a_sq = (a0 * a0 + w * a2 * a2, a0 * a2 + a0 * a2);
        let b_sq = (a1 * a1 + w * a3 * a3, a1 * a3 + a1 * a3);
        let (c0, c1) = (a_sq.0 - w * b_sq.1, a_sq.1 - b_sq.0);
        // (c0 + c1·y)⁻¹ = (c0 − c1·y) / (c0² − W·c1²).
        let norm_inv = (c0 * c0 - w * c1 * c1).inverse()?;
        let (d0, d1) = (c0 * norm_inv, -c1 * norm_inv);
        // a⁻¹ = (A − x·B)·(d0 + d1·y), with y = x².
        let conj = Self([a0, -a1, a2, -a3]);
        Some(conj * Self([d0, BabyBear::ZERO, d1, BabyBear::ZERO]))
    }
}

impl TwoAdicField for BabyBear4 {
    /// The roots used for transforms are BabyBear's (twiddles in the base
    /// field, so extension columns run on base kernels).
    const TWO_ADICITY: usize = BabyBear::TWO_ADICITY;

    /// x + 8, Plonky3's `EXT_GENERATOR`.
    fn multiplicative_generator() -> Self {
        Self([
            BabyBear::new(8),
            BabyBear::ONE,
            BabyBear::ZERO,
            BabyBear::ZERO,
        ])
    }

    fn two_adic_generator(bits: usize) -> Option<Self> {
        BabyBear::two_adic_generator(bits).map(Self::from_base)
    }
}

// SAFETY: `#[repr(C)]` over `[BabyBear; 4]`: four base coefficients, lowest
// first, no padding.
unsafe impl ExtensionOf<BabyBear> for BabyBear4 {
    type Degree = typenum::U4;

    fn coefficient(&self, i: usize) -> BabyBear {
        self.0[i]
    }

    fn from_coefficients(mut f: impl FnMut(usize) -> BabyBear) -> Self {
        Self([f(0), f(1), f(2), f(3)])
    }
}
