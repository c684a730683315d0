//! Field axioms (quickcheck), known answers, root orders, and Plonky3's roots.

use super::*;
use quickcheck::{Arbitrary, Gen, QuickCheck};

#[derive(Clone, Debug)]
struct Elems<F>(F, F, F);

macro_rules! arbitrary_elems {
    ($t:ty, $gen:expr) => {
        impl Arbitrary for Elems<$t> {
            fn arbitrary(g: &mut Gen) -> Self {
                let f: fn(u64) -> $t = $gen;
                let mut pick = || {
                    // Edge values often, random values otherwise.
                    let x = u64::arbitrary(g);
                    match x % 8 {
                        0 => f(0),
                        1 => f(1),
                        2 => -f(1),
                        _ => f(x),
                    }
                };
                Elems(pick(), pick(), pick())
            }
        }
    };
}
arbitrary_elems!(MlKem, MlKem::from_u64);
arbitrary_elems!(BabyBear, BabyBear::from_u64);
arbitrary_elems!(MlDsa, MlDsa::from_u64);
arbitrary_elems!(KoalaBear, KoalaBear::from_u64);
arbitrary_elems!(Goldilocks, Goldilocks::from_u64);
arbitrary_elems!(Gf2_64, Gf2_64::from_u64);

fn axioms<F: Field>(Elems(a, b, c): Elems<F>) -> bool {
    let zero = F::zero();
    let one = F::one();
    a + b == b + a
        && a * b == b * a
        && (a + b) + c == a + (b + c)
        && (a * b) * c == a * (b * c)
        && a * (b + c) == a * b + a * c
        && a + zero == a
        && a * one == a
        && a * zero == zero
        && a - b == -(b - a)
        && a + (-a) == zero
        && (a - b) + b == a
        && a.inverse().is_none_or(|inv| inv * a == one)
        && (a == zero) == a.inverse().is_none()
        && F::from_u64(a.to_canonical_u64()) == a
        && a.mul_twiddle(F::prepare_twiddle(b)) == a * b
}

fn check_axioms<F: Field>()
where
    Elems<F>: Arbitrary,
{
    QuickCheck::new()
        .tests(if cfg!(miri) { 20 } else { 2000 })
        .quickcheck(axioms::<F> as fn(Elems<F>) -> bool);
}

#[test]
fn mlkem_satisfies_field_axioms() {
    check_axioms::<MlKem>();
}

#[test]
fn mldsa_satisfies_field_axioms() {
    check_axioms::<MlDsa>();
}

#[test]
fn koalabear_satisfies_field_axioms() {
    check_axioms::<KoalaBear>();
}

#[test]
fn goldilocks_satisfies_field_axioms() {
    check_axioms::<Goldilocks>();
    // Edge sums and products.
    let m = Goldilocks::new(Goldilocks::MODULUS - 1);
    assert_eq!(m + m, Goldilocks::new(Goldilocks::MODULUS - 2));
    assert_eq!(m * m, Goldilocks::ONE);
    assert_eq!(
        Goldilocks::reduce128(u128::MAX).to_canonical_u64(),
        (u128::MAX % Goldilocks::MODULUS as u128) as u64
    );
}

/// `signed_power_of_two` finds every power of 2 (all 192, 2^96 = −1) with
/// the exponent and sign that give it back, and nothing else.
#[test]
fn goldilocks_signed_powers_of_two_are_exactly_the_powers_of_two() {
    let two = Goldilocks::from_u64(2);
    let mut w = Goldilocks::ONE;
    let mut powers = Vec::new();
    for e in 0..192u32 {
        let (k, negative) = w
            .signed_power_of_two()
            .unwrap_or_else(|| panic!("2^{e} not found"));
        assert_eq!((k, negative), (e % 96, e >= 96), "2^{e}");
        let back = two.pow(u64::from(k));
        assert_eq!(if negative { -back } else { back }, w, "2^{e}");
        powers.push(w);
        w *= two;
    }
    assert_eq!(w, Goldilocks::ONE, "2 has order 192");
    // Not powers of 2: zero, small odd numbers, neighbours of the powers,
    // 7 (the generator) and its powers.
    let mut others = vec![0u64, 3, 5, 6, 7, 9, 0xffff_fffe, 0x1_0000_0001];
    others.extend(
        powers
            .iter()
            .flat_map(|p| [p.value() ^ 1, p.value().wrapping_add(2)]),
    );
    let seven = Goldilocks::from_u64(7);
    others.extend((1..if cfg!(miri) { 20 } else { 200u64 }).map(|e| seven.pow(e).value()));
    for v in others.into_iter().filter(|&v| v < Goldilocks::MODULUS) {
        let x = Goldilocks::from_u64(v);
        assert_eq!(
            x.signed_power_of_two().is_some(),
            powers.contains(&x),
            "{v:#x}"
        );
    }
}

#[test]
fn babybear4_is_a_field() {
    QuickCheck::new()
        .tests(if cfg!(miri) { 10 } else { 500 })
        .quickcheck(
            (|x: u64, y: u64, z: u64| {
                let e = |v: u64| BabyBear4([v, v >> 7, v >> 13, v >> 29].map(BabyBear::from_u64));
                let (a, b, c) = (e(x), e(y), e(z));
                a * b == b * a
                    && (a * b) * c == a * (b * c)
                    && a * (b + c) == a * b + a * c
                    && a.inverse().is_none_or(|i| i * a == BabyBear4::ONE)
            }) as fn(u64, u64, u64) -> bool,
        );
    // x⁴ = 11.
    let x = BabyBear4([
        BabyBear::ZERO,
        BabyBear::ONE,
        BabyBear::ZERO,
        BabyBear::ZERO,
    ]);
    assert_eq!(x * x * x * x, BabyBear4::from_base(BabyBear::new(11)));
}

#[test]
fn babybear_satisfies_field_axioms() {
    check_axioms::<BabyBear>();
}

#[test]
fn gf2_64_satisfies_field_axioms() {
    check_axioms::<Gf2_64>();
}

#[test]
fn gf2_64_known_product() {
    let a = Gf2_64::new(0x01090913877ed8ed);
    let b = Gf2_64::new(0x66ab35ac2768468f);
    assert_eq!((a * b).bits(), 0x50c4519dc383744a);
}

#[test]
fn gf2_64_portable_clmul_matches_hardware() {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..if cfg!(miri) { 100 } else { 10_000 } {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let y = x.rotate_left(29) ^ 0xdead_beef;
        assert_eq!(gf2_64::clmul_portable(x, y), clmul(x, y));
    }
    assert_eq!(
        gf2_64::clmul_portable(u64::MAX, u64::MAX).1,
        0x5555_5555_5555_5555
    );
}

#[test]
fn gf2_64_table_fold_matches_the_shift_reduction() {
    // The SIMD kernels reduce with shifts below x^64 plus one lookup of
    // FOLD_TOP_NIBBLE; every top nibble, and random words around each.
    let mut x = 0x2545_f491_4f6c_dd1du64;
    for i in 0..4096u64 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let hi = (x & (u64::MAX >> 4)) | ((i % 16) << 60);
        let lo = x.rotate_left(17);
        let shifted = lo ^ hi ^ (hi << 1) ^ (hi << 3) ^ (hi << 4);
        let table = shifted ^ u64::from(FOLD_TOP_NIBBLE[(hi >> 60) as usize]);
        assert_eq!(table, gf2_64::reduce(lo, hi), "hi = {hi:#x}");
    }
    assert_eq!(
        FOLD_TOP_NIBBLE[0], 0,
        "bytes other than the index byte read entry 0"
    );
}

#[test]
fn gf2_64_x_is_primitive() {
    // x^(2^64−1) = 1 and x^((2^64−1)/p) ≠ 1 for each prime p | 2^64 − 1.
    let x = Gf2_64::new(2);
    let order = u64::MAX;
    assert_eq!(x.pow(order), Gf2_64::ONE);
    for p in [3u64, 5, 17, 257, 641, 65537, 6700417] {
        assert_ne!(x.pow(order / p), Gf2_64::ONE, "x^((2^64-1)/{p})");
    }
}

#[test]
fn mlkem_montgomery_constants() {
    use mlkem::*;
    assert_eq!((Q as i32 * QINV as i32) & 0xffff, 1);
    assert_eq!(R2, 1353);
    // Every i16 natively; a spread of them under Miri (an interpreter).
    for a in (i16::MIN..=i16::MAX).step_by(if cfg!(miri) { 97 } else { 1 }) {
        let r = reduce_canonical(a);
        assert!(
            (0..Q).contains(&r) && (a as i32 - r as i32) % Q as i32 == 0,
            "{a}"
        );
    }
}

fn check_roots<F: TwoAdicField>() {
    for bits in 0..=F::TWO_ADICITY {
        let w = F::two_adic_generator(bits).unwrap();
        // w has order exactly 2^bits.
        assert_eq!(w.pow(1 << bits), F::one(), "{} root 2^{bits}", F::NAME);
        if bits > 0 {
            assert_ne!(
                w.pow(1 << (bits - 1)),
                F::one(),
                "{} root 2^{bits}",
                F::NAME
            );
        }
    }
    assert!(F::two_adic_generator(F::TWO_ADICITY + 1).is_none());
}

#[test]
fn roots_of_unity_have_exact_order() {
    check_roots::<MlKem>();
    check_roots::<BabyBear>();
    check_roots::<MlDsa>();
    check_roots::<KoalaBear>();
    check_roots::<Goldilocks>();
    let base = MlDsa::new(10).pow((mldsa::Q as u64 - 1) >> 13);
    assert_eq!(MlDsa::two_adic_generator(13), Some(base.pow(181)));
    assert_eq!(MlKem::two_adic_generator(8), Some(MlKem::new(17)));
}

#[test]
fn extension_of_degree_one_is_the_field() {
    use typenum::Unsigned;
    let x = Gf2_64::new(0xabc);
    assert_eq!(<Gf2_64 as ExtensionOf<Gf2_64>>::Degree::USIZE, 1);
    assert_eq!(<Gf2_64 as ExtensionOf<Gf2_64>>::from_base(x), x);
    assert_eq!(x.coefficient(0), x);
}

#[test]
fn lattice_from_u64_reduces_like_the_remainder() {
    // The division-free reduction against `%`, at the edges of every
    // quotient (multiples of q and their neighbours, the top of u64) and on
    // random words, for both lattice moduli and an odd 31-bit prime.
    const MODULI: [u64; 3] = [3329, 8_380_417, (1 << 31) - (1 << 27) + 1];
    fn check(q: u64, x: u64) -> bool {
        lattice::reduce_u64(x, q) == x % q
    }
    QuickCheck::new()
        .tests(if cfg!(miri) { 200 } else { 5000 })
        .quickcheck((|x: u64, i: u8| check(MODULI[usize::from(i) % 3], x)) as fn(u64, u8) -> bool);
    for q in MODULI {
        for x in [
            0,
            1,
            q - 1,
            q,
            q + 1,
            2 * q - 1,
            2 * q,
            u64::MAX,
            u64::MAX - 1,
        ] {
            assert!(check(q, x), "q = {q}, x = {x}");
        }
        let top = u64::MAX / q * q;
        for x in [top - 1, top, top + 1, top - q, top - q + 1] {
            assert!(check(q, x), "q = {q}, x = {x}");
        }
    }
    assert_eq!(
        MlKem::from_u64(u64::MAX),
        MlKem::new((u64::MAX % 3329) as i16)
    );
    assert_eq!(
        MlDsa::from_u64(u64::MAX),
        MlDsa::new((u64::MAX % 8_380_417) as i32)
    );
}
