//! What the fuzz targets check, shared by the four targets and by the
//! regression test that replays the saved corpus (`tests/suite/fuzz_corpus.rs`
//! in the root crate includes this file, so a corpus file means the same case,
//! checked by the same code, under `cargo test` as under `cargo fuzz`).
//!
//! Each target decodes its input with `arbitrary` ([`fuzz`]):
//!
//! - `plan` ([`Case`], sizes far outside range too): any description of any
//!   family, including misused options, either gives the typed error of its
//!   own validation or a plan whose output equals the naive definition;
//! - `execute` ([`Case`], valid sizes): every family and field, every
//!   option (bases, coset shifts, encodes, pruning, lane-major inputs), 1 to
//!   64 lanes (odd ones included), run out of place, in place or with caller
//!   scratch on slices starting at unaligned offsets;
//! - `lde` ([`LdeCase`]): the LDE specs planned by `Planner::plan`
//!   (`Transform::coset_lde` over BabyBear, KoalaBear and Goldilocks,
//!   `Transform::additive_lde` over GF(2^64) in both bases; fused passes
//!   where they tile alike), `execute` and `execute_from`, against the naive
//!   inverse followed by the naive encode (or, for shapes whose naive
//!   reference is too slow, the spec's two parts planned apart and run one
//!   after the other);
//! - `lattice` ([`LatticeCase`]): the ML-KEM and ML-DSA ring plans in every
//!   mode (canonical or lazy, standard or permuted order) on raw words, the
//!   NTT-domain products (`MlKemProducts`, `MlDsaProducts`: k terms, caches,
//!   either order and reduction, every entry point and their typed errors),
//!   and NTT → products → inverse round trips against the schoolbook
//!   product in Z_q[X]/(X^256 + 1).
//!
//! Every case carries planner [`Settings`]: the backend (detected, or forced
//! among Scalar, AVX2, AVX-512 and NEON: one that `Backend::check` refuses
//! for the field must be the planner's error, unchanged), threads, cache
//! budgets (mostly small, so gathered passes and their row-moving kernels
//! run) and the register budget.
//!
//! The property: planning either fails with the typed error the inputs call
//! for, or yields a plan whose output equals the definition bit for bit
//! (canonical values), or, for lazy lattice modes, is congruent to it modulo
//! q and within the bound the plan prints. Any panic is a finding.

use arbitrary::{Arbitrary, Unstructured};
use nttfuse::transform::mlkem::multiply_ntts_reference;
use nttfuse::*;

/// A fuzz target: what its input decodes to and which property it checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// Planner parameters, sizes inside and far outside range.
    Plan,
    /// Valid transforms of every family, every execution entry point.
    Execute,
    /// The fused low-degree extensions.
    Lde,
    /// The lattice ring modes and NTT-domain products.
    Lattice,
}

impl Target {
    /// Every target, in the order CI runs them.
    pub const ALL: [Target; 4] = [Target::Plan, Target::Execute, Target::Lde, Target::Lattice];

    /// The target's name: its binary and its corpus directory.
    pub fn name(self) -> &'static str {
        match self {
            Target::Plan => "plan",
            Target::Execute => "execute",
            Target::Lde => "lde",
            Target::Lattice => "lattice",
        }
    }
}

/// Decodes `data` as `target`'s input and checks it; panics on a finding.
pub fn fuzz(target: Target, data: &[u8]) {
    let u = Unstructured::new(data);
    match target {
        Target::Plan => {
            if let Ok(case) = Case::arbitrary_take_rest(u) {
                check(&case, false)
            }
        }
        Target::Execute => {
            if let Ok(case) = Case::arbitrary_take_rest(u) {
                check(&case, true)
            }
        }
        Target::Lde => {
            if let Ok(case) = LdeCase::arbitrary_take_rest(u) {
                check_lde(&case)
            }
        }
        Target::Lattice => {
            if let Ok(case) = LatticeCase::arbitrary_take_rest(u) {
                check_lattice(&case)
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Limits: the naive references are quadratic (cubic for the additive
// inverse), so sizes are kept where they stay fast.

/// Output elements above which a valid description is not planned (its
/// tables and scratch are what the hostile-input tests are for).
const MAX_PLANNED_LEN: usize = 1 << 18;
/// Output elements above which a plan is not run at all.
const MAX_RUN_LEN: usize = 1 << 15;
/// Field operations (about) above which the naive definition is not
/// evaluated; such plans are compared with the scalar backend's plan at
/// default budgets (or, for LDEs, with the unfused composition).
const MAX_REFERENCE_COST: usize = 1 << 20;

// ---------------------------------------------------------------------------
// Planner settings, common to every target.

/// How a case plans: backend, threads, budgets.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub struct Settings {
    backend: u8,
    threads: u8,
    budgets: Option<[u8; 3]>,
    register_values: Option<u8>,
}

/// A cache budget from one byte: 2^0 … 2^23 bytes times 1, 2 or 3 (small
/// ones force gathered passes and many tiles), 255 for zero.
fn budget(x: u8) -> usize {
    if x == 255 {
        0
    } else {
        (1usize << (x % 24)) * (1 + usize::from(x / 24) % 3)
    }
}

fn detected_budgets() -> Budgets {
    static DETECTED: std::sync::OnceLock<Budgets> = std::sync::OnceLock::new();
    *DETECTED.get_or_init(Budgets::detect)
}

impl Settings {
    /// The backend forced, if any (the others are detected).
    fn forced(&self) -> Option<Backend> {
        match self.backend % 5 {
            1 => Some(Backend::Scalar),
            2 => Some(Backend::Avx2),
            3 => Some(Backend::Avx512),
            4 => Some(Backend::Neon),
            _ => None,
        }
    }

    fn threads(&self) -> Threads {
        match self.threads {
            255 => Threads::Count(0),
            t => match t % 4 {
                3 => Threads::All,
                n => Threads::Count(usize::from(n) + 1),
            },
        }
    }

    fn budgets(&self) -> Budgets {
        let budgets = match self.budgets {
            Some([l1, l2, l3]) => Budgets::fixed(budget(l1), budget(l2), budget(l3)),
            None => detected_budgets(),
        };
        Budgets {
            register_values: self.register_values.map(usize::from),
            ..budgets
        }
    }

    fn planner(&self) -> Planner {
        let planner = Planner::new()
            .budgets(self.budgets())
            .threads(self.threads());
        match self.forced() {
            Some(backend) => planner.backend(backend),
            None => planner,
        }
    }

    /// The error planning anything valid over `F` must give with these
    /// settings, whatever the transform: the forced backend's refusal
    /// (`Backend::check`'s own error), else a thread count of zero.
    fn refusal<F: Kernels>(&self) -> Option<Error> {
        if let Some(Err(refused)) = self.forced().map(|b| b.check::<F>().map(|_| ())) {
            return Some(refused);
        }
        match self.threads() {
            Threads::Count(0) => Some(Error::Threads {
                reason: String::new(),
            }),
            _ => None,
        }
    }

    /// Checks `result` (planning something valid over `F`) against
    /// [`Settings::refusal`]; the value when planning must succeed.
    fn expect_planned<F: Kernels, T>(&self, result: Result<T, Error>) -> Result<T, Error> {
        match (self.refusal::<F>(), result) {
            (Some(Error::Threads { .. }), Err(Error::Threads { reason })) => {
                assert!(!reason.is_empty(), "a thread error without a reason");
                Err(Error::Threads { reason })
            }
            (Some(expected), Err(e)) => {
                assert_eq!(e, expected, "another error than the backend's refusal");
                Err(e)
            }
            (Some(expected), Ok(_)) => panic!("planned although {expected}"),
            (None, result) => result,
        }
    }

    /// Checks the backend a plan over `F` runs on: the forced one, or the
    /// detected one (the scalar backend for a lattice plan without whole
    /// polynomials, which the SIMD lattice kernels do not run).
    fn check_backend<F: Kernels>(&self, got: Backend) {
        match self.forced() {
            Some(forced) => assert_eq!(got, forced, "not the forced backend"),
            None => {
                let detected = Backend::detect::<F>();
                assert!(
                    got == detected || (got == Backend::Scalar && F::only_whole_blocks(detected)),
                    "{got:?} planned where {detected:?} was detected"
                );
            }
        }
    }
}

/// A deterministic generator for the data (splitmix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn elements<F: Field>(&mut self, n: usize) -> Vec<F> {
        (0..n).map(|_| F::from_u64(self.next())).collect()
    }
}

/// Lanes from one byte: 1 to 64 (odd ones as often as even), with powers
/// of two and multiples of 16 (whole AVX-512 registers of 32-bit words)
/// drawn more often.
fn lanes_of(x: u8) -> usize {
    match x >> 6 {
        0 | 1 => 1 + usize::from(x % 64),
        2 => 1 << (x % 7),
        _ => 16 * (1 + usize::from(x % 4)),
    }
}

// ---------------------------------------------------------------------------
// `plan` and `execute`: one transform.

/// One input of the `plan` and `execute` targets: a transform description,
/// planner settings and a way of calling `execute`.
#[derive(Arbitrary, Debug, Clone)]
pub struct Case {
    family: u8,
    variant: u8,
    log_n: u8,
    lanes: u8,
    batch: u8,
    rate: u8,
    cantor: bool,
    bit_reversed: bool,
    shift: Option<u64>,
    prune: u8,
    lane_major: bool,
    misuse: u8,
    settings: Settings,
    call: u8,
    in_offset: u8,
    out_offset: u8,
    seed: u64,
}

/// How far sizes reach: `valid_sizes` keeps every parameter in range (the
/// `execute` target), otherwise they also reach far outside it (the `plan`
/// target).
fn sizes(case: &Case, valid_sizes: bool) -> (u32, usize, usize, u32) {
    if valid_sizes {
        // Up to 2^8 rows mostly (the naive definition checks those); 2^9 to
        // 2^12 rows a quarter of the time (checked against the scalar
        // backend), where gathered passes of 4 layers, radix-16 groups
        // moving rows, take small budgets.
        let log_n = match case.log_n {
            0..=191 => case.log_n % 9,
            x => 9 + x % 4,
        };
        return (
            u32::from(log_n),
            lanes_of(case.lanes),
            1 + usize::from(case.batch % 3),
            u32::from(case.rate % 4),
        );
    }
    let log_n = match case.log_n {
        0..=199 => u32::from(case.log_n % 11),
        200..=254 => u32::from(case.log_n - 180), // 20..=74
        255 => u32::MAX,
    };
    let lanes = match case.lanes {
        251 => 0,
        252 => 1 << 40,
        253 => usize::MAX / 2 + 1,
        254 => usize::MAX,
        l => lanes_of(l),
    };
    let batch = match case.batch {
        255 => usize::MAX,
        b => usize::from(b % 4),
    };
    let rate = match case.rate {
        255 => u32::MAX,
        r => u32::from(r % 12),
    };
    (log_n, lanes, batch, rate)
}

fn order(case: &Case) -> Order {
    if case.bit_reversed {
        Order::BitReversed
    } else {
        Order::Natural
    }
}

fn basis(cantor: bool) -> Basis {
    if cantor {
        Basis::Cantor
    } else {
        Basis::Standard
    }
}

/// Checks one case of the `plan` (`valid_sizes` false) or `execute` target;
/// panics on a finding.
pub fn check(case: &Case, valid_sizes: bool) {
    let (log_n, lanes, batch, rate) = sizes(case, valid_sizes);
    let p = case.settings.planner();
    let dims = Dims {
        log_n,
        lanes,
        batch,
        rate,
        valid_sizes,
    };
    match case.family % 12 {
        0 | 1 => additive::<Gf2_64>(case, &p, dims),
        2 => additive::<Gf2_192>(case, &p, dims),
        3 => cyclic::<BabyBear>(case, &p, dims),
        4 => cyclic::<KoalaBear>(case, &p, dims),
        5 => cyclic::<Goldilocks>(case, &p, dims),
        6 => cyclic::<BabyBear4>(case, &p, dims),
        // The lattice fields' cyclic DFTs (up to 2^8 and 2^13 rows) run the
        // portable lazily reduced groups.
        7 => cyclic::<MlKem>(case, &p, dims),
        8 => cyclic::<MlDsa>(case, &p, dims),
        9 => negacyclic::<MlKem>(case, &p, dims),
        10 => negacyclic::<MlDsa>(case, &p, dims),
        _ => {
            let len = if valid_sizes {
                1 << log_n
            } else {
                case.shift.unwrap_or(0) as usize
            };
            let spec = if case.variant % 2 == 1 {
                Transform::<BabyBear>::idft_of_len(len)
            } else {
                Transform::<BabyBear>::dft_of_len(len)
            };
            run(case, &p, spec.lanes(lanes).batch(batch));
        }
    }
}

#[derive(Clone, Copy)]
struct Dims {
    log_n: u32,
    lanes: usize,
    batch: usize,
    rate: u32,
    valid_sizes: bool,
}

/// Options misused on purpose (the `plan` target): each is a typed error.
fn misuse<F: Field>(case: &Case, dims: Dims, spec: Transform<F>) -> Transform<F> {
    if dims.valid_sizes {
        return spec;
    }
    // (On a lattice NTT the reduction and the order are options, not
    // misuses: the `lattice` target checks them.)
    let lattice = spec.family() == Family::Negacyclic;
    match case.misuse % 8 {
        1 if !lattice => spec.reduction(Reduction::Lazy),
        2 if !lattice => spec.ntt_order(NttOrder::Permuted),
        3 => spec.order(Order::BitReversed),
        4 => spec.shift(F::from_u64(3)),
        _ => spec,
    }
}

fn additive<F: BinaryField + Kernels>(case: &Case, planner: &Planner, dims: Dims) {
    let prune = match case.prune {
        255 if !dims.valid_sizes => u32::MAX,
        k => u32::from(k % 4),
    };
    let variant = case.variant % 3;
    let spec = match variant {
        // A pruned transform starts at layer 0 (else it is refused).
        0 if dims.valid_sizes && prune > 0 => Transform::<F>::additive_ntt(dims.log_n),
        0 => Transform::<F>::additive_ntt(dims.log_n).from_layer(dims.rate),
        1 => Transform::<F>::additive_intt(dims.log_n).from_layer(dims.rate),
        _ => Transform::<F>::additive_encode(dims.log_n, LogBlowup(dims.rate)),
    };
    let mut spec = spec.basis(basis(case.cantor));
    if let Some(shift) = case.shift {
        spec = spec.shift(F::from_u64(shift));
    }
    if variant != 1 || !dims.valid_sizes {
        spec = spec.retain_prefix(prune);
    }
    let spec = misuse(case, dims, spec);
    run(case, planner, spec.lanes(dims.lanes).batch(dims.batch));
}

fn cyclic<F: TwoAdicField + Kernels>(case: &Case, planner: &Planner, dims: Dims) {
    let shift = case.shift.map_or(F::one(), F::from_u64);
    let spec = match case.variant % 5 {
        0 => Transform::<F>::dft(dims.log_n),
        1 => Transform::<F>::idft(dims.log_n),
        2 => Transform::<F>::coset_dft(dims.log_n, shift),
        3 => Transform::<F>::coset_idft(dims.log_n, shift),
        _ => Transform::<F>::dft_encode(dims.log_n, LogBlowup(dims.rate), shift),
    };
    let spec = misuse(case, dims, spec.order(order(case)));
    run(case, planner, spec.lanes(dims.lanes).batch(dims.batch));
}

fn negacyclic<L: LatticeField>(case: &Case, planner: &Planner, dims: Dims) {
    let spec = if case.variant % 2 == 1 {
        L::inverse_ntt()
    } else {
        L::forward_ntt()
    };
    let spec = misuse(case, dims, spec);
    run(case, planner, spec.lanes(dims.lanes).batch(dims.batch));
}

/// About how many field operations the naive definition of `spec` takes.
fn reference_cost<F: Field>(spec: &Transform<F>) -> usize {
    let n = spec.rows();
    let m = n >> spec.first_layer();
    let per_column = match (spec.family(), spec.direction()) {
        // Gauss–Jordan on each block's m × m system.
        (Family::Additive, Direction::Inverse) => n * m + (n / m.max(1)) * m * m * m,
        _ => n * m,
    };
    // Extension fields cost several base products per product.
    let weight = core::mem::size_of::<F>().div_ceil(8);
    (spec.lane_count() * spec.batch_count())
        .saturating_mul(per_column)
        .saturating_mul(weight)
}

/// The scalar backend's plan of `spec` at default budgets and one thread:
/// the oracle for shapes whose naive definition is too slow.
fn scalar_output<F: Kernels>(spec: &Transform<F>, input: &[F]) -> Vec<F> {
    let plan = Planner::new()
        .backend(Backend::Scalar)
        .threads(Threads::Count(1))
        .budgets(Budgets::fixed(32 << 10, 1 << 20, 32 << 20))
        .plan(spec)
        .expect("the scalar backend plans every valid transform");
    let mut out = vec![F::zero(); plan.len()];
    plan.execute_from(input, &mut out).expect("execute_from");
    out
}

/// Plans `spec` (valid, of a modest size) and checks the outcome against the
/// settings: the refusal they call for, or a plan on the right backend.
fn plan_checked<F: Kernels>(
    settings: &Settings,
    planner: &Planner,
    spec: &Transform<F>,
) -> Option<Plan<F>> {
    match settings.expect_planned::<F, _>(planner.plan(spec)) {
        Ok(plan) => {
            settings.check_backend::<F>(plan.backend());
            Some(plan)
        }
        // A forced SIMD backend whose lattice kernels hold whole polynomials
        // refuses plans without them (several lanes, small budgets).
        Err(Error::BackendUnavailable { .. })
            if settings.forced().is_some_and(F::only_whole_blocks)
                && settings.refusal::<F>().is_none() =>
        {
            None
        }
        Err(e) if settings.refusal::<F>().is_some() => {
            assert!(!e.to_string().is_empty());
            None
        }
        Err(e) => panic!("a valid description failed to plan: {e}"),
    }
}

fn run<F: Kernels>(case: &Case, planner: &Planner, spec: Transform<F>) {
    let spec = if case.lane_major {
        spec.lane_major_input()
    } else {
        spec
    };
    let _ = spec.describe();
    if let Err(invalid) = spec.validate() {
        let err = planner
            .plan(&spec)
            .expect_err("an invalid description planned");
        assert_eq!(
            err, invalid,
            "planning reported another error than validation"
        );
        return;
    }
    // Sizes are checked before planning: huge lanes need huge tables.
    let out_len = spec.output_len().unwrap();
    if out_len > MAX_PLANNED_LEN {
        return;
    }
    let Some(plan) = plan_checked(&case.settings, planner, &spec) else {
        return;
    };
    assert_eq!(plan.len(), out_len);
    assert_eq!(plan.input_len(), spec.input_len().unwrap());
    assert_eq!(plan.transform(), &spec);
    let _ = (plan.to_string(), plan.cost(), plan.passes(), plan.groups());
    if out_len > MAX_RUN_LEN {
        return;
    }
    let mut rng = Rng(case.seed);
    let input: Vec<F> = rng.elements(plan.input_len());
    let expected = if reference_cost(&spec) <= MAX_REFERENCE_COST {
        reference::evaluate(&spec, &input).expect("reference")
    } else {
        scalar_output(&spec, &input)
    };
    // Unaligned starts: the data begins `offset` elements into its buffer.
    let (in_off, out_off) = (
        usize::from(case.in_offset % 8),
        usize::from(case.out_offset % 8),
    );
    let mut out_buf = vec![F::zero(); plan.len() + out_off];
    let out = &mut out_buf[out_off..];
    if case.call & 4 != 0 && !out.is_empty() {
        // A buffer one element short is a typed error, and writes nothing.
        let short = plan.execute_from(&input, &mut out[1..]);
        assert!(
            matches!(short, Err(Error::LengthMismatch { .. })),
            "{short:?}"
        );
    }
    match case.call % 3 {
        0 => {
            let mut in_buf = vec![F::zero(); plan.input_len() + in_off];
            in_buf[in_off..].copy_from_slice(&input);
            plan.execute_from(&in_buf[in_off..], out)
                .expect("execute_from");
        }
        call if spec.pruned_bits() > 0 || (spec.input_is_lane_major() && spec.lane_count() > 1) => {
            // In place is refused: the output is shorter than the input, or
            // the input is laid out otherwise than the output.
            let result = if call == 1 {
                plan.execute(out)
            } else {
                let mut scratch = vec![F::zero(); plan.scratch_len()];
                plan.execute_with_scratch(out, &mut scratch)
            };
            assert!(
                matches!(result, Err(Error::Unsupported { .. })),
                "in-place execution of {} gave {result:?}",
                plan.transform().describe()
            );
            return;
        }
        call => {
            // In place: an encode's message goes at the front of each item.
            let items = spec.batch_count();
            let (item_in, item_out) = (plan.input_len() / items, plan.len() / items);
            for (dst, src) in out
                .chunks_exact_mut(item_out)
                .zip(input.chunks_exact(item_in))
            {
                dst[..item_in].copy_from_slice(src);
            }
            if call == 1 {
                plan.execute(out).expect("execute");
            } else {
                if plan.scratch_len() > 0 && case.call & 8 != 0 {
                    let mut short = vec![F::zero(); plan.scratch_len() - 1];
                    let result = plan.execute_with_scratch(out, &mut short);
                    assert!(
                        matches!(result, Err(Error::LengthMismatch { .. })),
                        "{result:?}"
                    );
                }
                let mut scratch = vec![F::zero(); plan.scratch_len() + in_off];
                plan.execute_with_scratch(out, &mut scratch[in_off..])
                    .expect("execute_with_scratch");
            }
        }
    }
    assert!(
        out == expected.as_slice(),
        "{} differs from the naive definition on {:?}",
        plan.transform().describe(),
        plan.backend()
    );
}

// ---------------------------------------------------------------------------
// `lde`: the fused low-degree extensions.

/// One input of the `lde` target.
#[derive(Arbitrary, Debug, Clone)]
pub struct LdeCase {
    field: u8,
    log_n: u8,
    log_blowup: u8,
    lanes: u8,
    shift: Option<u64>,
    bit_reversed: bool,
    settings: Settings,
    out_offset: u8,
    seed: u64,
}

/// Checks one case of the `lde` target; panics on a finding.
pub fn check_lde(case: &LdeCase) {
    let log_n = match case.log_n {
        255 => u32::MAX,
        254 => 40,
        0..=191 => u32::from(case.log_n % 9),
        x => u32::from(9 + x % 3),
    };
    let log_blowup = match case.log_blowup {
        255 => u32::MAX,
        x => u32::from(x % 4),
    };
    let lanes = match case.lanes {
        255 => 0,
        x => lanes_of(x),
    };
    let dims = (log_n, log_blowup, lanes);
    match case.field % 5 {
        0 => coset_lde::<BabyBear>(case, dims),
        1 => coset_lde::<KoalaBear>(case, dims),
        2 => coset_lde::<Goldilocks>(case, dims),
        3 => additive_lde(case, dims, Basis::Standard),
        _ => additive_lde(case, dims, Basis::Cantor),
    }
}

/// Runs an LDE both ways (from a separate input into an output at an
/// unaligned offset, and in place) and checks both against `expected`.
fn run_lde<F: Field>(
    case: &LdeCase,
    evals: &[F],
    expected: &[F],
    execute_from: impl Fn(&[F], &mut [F]) -> Result<(), Error>,
    execute: impl Fn(&mut [F]) -> Result<(), Error>,
    what: &str,
) {
    let off = usize::from(case.out_offset % 8);
    let mut out_buf = vec![F::zero(); expected.len() + off];
    execute_from(evals, &mut out_buf[off..]).expect("execute_from");
    assert!(
        out_buf[off..] == *expected,
        "{what}: execute_from differs from the definition"
    );
    let mut data = evals.to_vec();
    // Whatever the rest holds is overwritten.
    data.resize(expected.len(), F::from_u64(case.seed));
    execute(&mut data).expect("execute");
    assert!(
        data == expected,
        "{what}: execute in place differs from the definition"
    );
    // Wrong lengths are typed errors.
    let short = execute_from(evals, &mut out_buf[off + 1..]);
    assert!(
        matches!(short, Err(Error::LengthMismatch { .. })),
        "{short:?}"
    );
}

fn coset_lde<F: TwoAdicField + Kernels>(
    case: &LdeCase,
    (log_n, log_blowup, lanes): (u32, u32, usize),
) {
    let order = if case.bit_reversed {
        Order::BitReversed
    } else {
        Order::Natural
    };
    let mut spec = Transform::<F>::coset_lde(log_n, LogBlowup(log_blowup))
        .lanes(lanes)
        .order(order);
    if let Some(shift) = case.shift {
        spec = spec.shift(F::from_u64(shift));
    }
    lde(case, &spec, spec.parts(), Lde::Coset(spec.clone()));
}

fn additive_lde(case: &LdeCase, (log_n, log_blowup, lanes): (u32, u32, usize), basis: Basis) {
    let spec = Transform::<Gf2_64>::additive_lde(log_n, LogBlowup(log_blowup))
        .basis(basis)
        .lanes(lanes);
    lde(case, &spec, spec.parts(), Lde::Additive(spec.clone()));
}

/// An LDE spec: planning fails with the spec's own errors (its sizes, as
/// `parts` checks them, then the encode's and the inverse's validation) or
/// the settings' refusal; else the plan's output, from `execute_from` and in
/// place, equals the naive inverse followed by the naive encode (or, where
/// that is too slow, the two parts planned apart and run one after the
/// other: never fused).
fn lde<F: Kernels, S: Spec<Plan = LdePlan<F>>>(
    case: &LdeCase,
    spec: &S,
    parts: Result<[Transform<F>; 2], Error>,
    described: Lde<F>,
) {
    let planner = case.settings.planner();
    let parts = parts.and_then(|[inverse, encode]| {
        encode.validate()?;
        inverse.validate()?;
        Ok([inverse, encode])
    });
    let [inverse, encode] = match parts {
        Ok(parts) => parts,
        Err(invalid) => {
            let err = planner.plan(spec).err();
            assert_eq!(err, Some(invalid), "the LDE's error is its spec's");
            return;
        }
    };
    let len = encode.output_len().unwrap();
    if len > MAX_PLANNED_LEN {
        return;
    }
    let Ok(lde) = case.settings.expect_planned::<F, _>(planner.plan(spec)) else {
        return;
    };
    case.settings.check_backend::<F>(lde.backend());
    assert_eq!(lde.transform(), &described);
    let n = inverse.output_len().unwrap();
    assert_eq!((lde.input_len(), lde.len()), (n, len));
    let plans = lde.plans();
    assert!(plans.iter().all(|p| p.backend() == lde.backend()));
    if !lde.copies_input() {
        assert_eq!(
            (plans[0].transform(), plans[1].transform()),
            (&inverse, &encode)
        );
    }
    let _ = (
        lde.to_string(),
        lde.sweeps(),
        lde.is_fused(),
        lde.scratch_len(),
    );
    if len > MAX_RUN_LEN {
        return;
    }
    let evals: Vec<F> = Rng(case.seed).elements(n);
    let expected = if reference_cost(&inverse) + reference_cost(&encode) <= MAX_REFERENCE_COST {
        let coefficients = reference::evaluate(&inverse, &evals).expect("reference");
        reference::evaluate(&encode, &coefficients).expect("reference")
    } else {
        let inverse = planner.plan(&inverse).expect("the inverse alone");
        let encode = planner.plan(&encode).expect("the encode alone");
        let mut out = vec![F::zero(); len];
        inverse
            .execute_from(&evals, &mut out[..n])
            .expect("inverse");
        encode.execute(&mut out).expect("encode");
        out
    };
    let what = format!("{described:?}");
    run_lde(
        case,
        &evals,
        &expected,
        |e, o| lde.execute_from(e, o),
        |d| lde.execute(d),
        &what,
    );
}

// ---------------------------------------------------------------------------
// `lattice`: ring modes and NTT-domain products.

/// The two lattice fields, as the `lattice` target uses them.
trait LatticeField: Kernels + TwoAdicField {
    /// The raw word of a coefficient.
    type Raw: Copy + Default + core::fmt::Debug + Into<i64>;
    const Q: i64;
    /// Where the permuted order keeps standard coefficient c's bits, as
    /// `nttfuse::transform::ring` documents it: address bit 7 − i is bit
    /// `PERMUTED[i]` of c.
    const PERMUTED: [u32; 8];
    /// The lazy inverse takes any word (else |a| < q).
    const LAZY_INVERSE_ANY_WORD: bool;
    fn forward_ntt() -> Transform<Self>;
    fn inverse_ntt() -> Transform<Self>;
    /// The raw word of a value in range.
    fn raw(x: i64) -> Self::Raw;
    fn execute_raw(plan: &Plan<Self>, data: &mut [Self::Raw]) -> Result<(), Error>;
    fn is_ring_direct(plan: &Plan<Self>) -> bool;
}

impl LatticeField for MlKem {
    type Raw = i16;
    const Q: i64 = 3329;
    // c7 c6 c1 c5 c4 c3 c2 c0
    const PERMUTED: [u32; 8] = [7, 6, 1, 5, 4, 3, 2, 0];
    const LAZY_INVERSE_ANY_WORD: bool = true;
    fn forward_ntt() -> Transform<Self> {
        Transform::<MlKem>::negacyclic_forward()
    }
    fn inverse_ntt() -> Transform<Self> {
        Transform::<MlKem>::negacyclic_inverse()
    }
    fn raw(x: i64) -> i16 {
        i16::try_from(x).expect("a word in range")
    }
    fn execute_raw(plan: &Plan<Self>, data: &mut [i16]) -> Result<(), Error> {
        plan.execute_raw(data)
    }
    fn is_ring_direct(plan: &Plan<Self>) -> bool {
        plan.bare_ring_kernel().is_some()
    }
}

impl LatticeField for MlDsa {
    type Raw = i32;
    const Q: i64 = 8_380_417;
    // c7 c6 c5 c0 c4 c3 c2 c1
    const PERMUTED: [u32; 8] = [7, 6, 5, 0, 4, 3, 2, 1];
    const LAZY_INVERSE_ANY_WORD: bool = false;
    fn forward_ntt() -> Transform<Self> {
        Transform::<MlDsa>::negacyclic_forward()
    }
    fn inverse_ntt() -> Transform<Self> {
        Transform::<MlDsa>::negacyclic_inverse()
    }
    fn raw(x: i64) -> i32 {
        i32::try_from(x).expect("a word in range")
    }
    fn execute_raw(plan: &Plan<Self>, data: &mut [i32]) -> Result<(), Error> {
        plan.execute_raw(data)
    }
    fn is_ring_direct(plan: &Plan<Self>) -> bool {
        plan.bare_ring_kernel().is_some()
    }
}

/// Where standard-order coefficient `c` sits in `L`'s permuted order.
fn permuted_address<L: LatticeField>(c: usize) -> usize {
    L::PERMUTED
        .iter()
        .enumerate()
        .fold(0, |a, (i, &bit)| a | (((c >> bit) & 1) << (7 - i)))
}

/// `values` (whole polynomials, standard order) in `L`'s permuted order.
fn to_permuted<L: LatticeField, T: Copy>(values: &[T]) -> Vec<T> {
    let mut out = values.to_vec();
    for (poly, src) in out.chunks_exact_mut(256).zip(values.chunks_exact(256)) {
        for (c, &v) in src.iter().enumerate() {
            poly[permuted_address::<L>(c)] = v;
        }
    }
    out
}

/// `values` (whole polynomials, permuted order) in the standard order.
fn from_permuted<L: LatticeField, T: Copy>(values: &[T]) -> Vec<T> {
    let mut out = values.to_vec();
    for (poly, src) in out.chunks_exact_mut(256).zip(values.chunks_exact(256)) {
        for (c, v) in poly.iter_mut().enumerate() {
            *v = src[permuted_address::<L>(c)];
        }
    }
    out
}

/// One input of the `lattice` target.
#[derive(Arbitrary, Debug, Clone)]
pub struct LatticeCase {
    op: u8,
    inverse: bool,
    lazy: bool,
    permuted: bool,
    lazy_products: bool,
    lanes: u8,
    batch: u8,
    terms: u8,
    words: u8,
    call: u8,
    settings: Settings,
    seed: u64,
}

/// Checks one case of the `lattice` target; panics on a finding.
pub fn check_lattice(case: &LatticeCase) {
    match case.op % 6 {
        0 => lattice_ntt::<MlKem>(case),
        1 => lattice_ntt::<MlDsa>(case),
        2 => kem_products(case),
        3 => dsa_products(case),
        4 => round_trip::<MlKem>(case),
        _ => round_trip::<MlDsa>(case),
    }
}

/// A raw word: `any` allows every word of the type (`bits` wide), else
/// |a| < q; the distribution (canonical, signed, edges, any) from `words`.
fn word(rng: &mut Rng, words: u8, q: i64, bits: u32, any: bool) -> i64 {
    let r = rng.next();
    let signed = (r % (2 * q as u64 - 1)) as i64 - (q - 1);
    match words % 4 {
        0 => (r % q as u64) as i64,
        1 => signed,
        2 => [0, 1, -1, q - 1, 1 - q, q / 2, -q / 2][(r % 7) as usize],
        _ if any => {
            let min = -(1i64 << (bits - 1));
            match r % 4 {
                0 => min,
                1 => -min - 1,
                _ => ((r >> 8) as i64).rem_euclid(1 << bits) + min,
            }
        }
        _ => signed,
    }
}

fn words<L: LatticeField>(rng: &mut Rng, n: usize, dist: u8, any: bool) -> Vec<L::Raw> {
    let bits = 8 * core::mem::size_of::<L::Raw>() as u32;
    (0..n)
        .map(|_| L::raw(word(rng, dist, L::Q, bits, any)))
        .collect()
}

fn residue<L: LatticeField>(w: impl Into<i64>) -> L {
    L::from_u64(w.into().rem_euclid(L::Q) as u64)
}

/// The bound on |a| a lazy ring plan prints: "out |a| < 8q (lazy)".
fn printed_lazy_bound<L: LatticeField>(plan: &Plan<L>) -> i64 {
    let text = plan.to_string();
    let start = text
        .find("out |a| < ")
        .unwrap_or_else(|| panic!("a lazy plan without its output bound:\n{text}"))
        + "out |a| < ".len();
    let rest = &text[start..];
    let end = rest
        .find("q (lazy)")
        .unwrap_or_else(|| panic!("a lazy plan without its output bound:\n{text}"));
    let k = if end == 0 {
        1
    } else {
        rest[..end].parse::<i64>().expect("the bound's factor")
    };
    k * L::Q
}

/// Checks raw outputs: canonical ones equal to `expected`'s values,
/// lazy ones congruent to them and `|a| < bound`.
fn check_words<L: LatticeField>(
    got: &[L::Raw],
    expected: &[L],
    lazy_bound: Option<i64>,
    what: &str,
) {
    assert_eq!(got.len(), expected.len());
    for (i, (&g, &e)) in got.iter().zip(expected).enumerate() {
        let g: i64 = g.into();
        let e = e.to_canonical_u64() as i64;
        match lazy_bound {
            None => assert_eq!(g, e, "{what}: word {i}"),
            Some(bound) => assert!(
                g.abs() < bound && (g - e).rem_euclid(L::Q) == 0,
                "{what}: word {i} is {g}, expected {e} mod q within ±{bound}"
            ),
        }
    }
}

/// Plans a ring transform and checks the outcome: a plan with a
/// whole-polynomial (ring) kernel wherever one fits (one lane, the default
/// register budget, a tile budget holding a polynomial), else the portable
/// groups for canonical plans on the scalar backend or detected, and the
/// typed refusals otherwise.
fn plan_ring<L: LatticeField>(settings: &Settings, spec: &Transform<L>) -> Option<Plan<L>> {
    let planner = settings.planner();
    let result = settings.expect_planned::<L, _>(planner.plan(spec));
    if settings.refusal::<L>().is_some() {
        return None;
    }
    let budgets = settings.budgets();
    let whole = spec.lane_count() == 1
        && budgets.register_values.is_none()
        && budgets.l2 / 2 >= 256 * core::mem::size_of::<L>();
    let lazy_or_permuted =
        spec.reduction_mode() == Reduction::Lazy || spec.ntt_domain_order() == NttOrder::Permuted;
    let simd_forced = settings.forced().is_some_and(|b| b != Backend::Scalar);
    let what = spec.describe();
    match result {
        Ok(plan) => {
            assert!(
                whole || (!lazy_or_permuted && !simd_forced),
                "{what} planned without whole polynomials:\n{plan}"
            );
            assert_eq!(
                L::is_ring_direct(&plan),
                whole,
                "{what}: a ring kernel iff whole polynomials fit:\n{plan}"
            );
            settings.check_backend::<L>(plan.backend());
            Some(plan)
        }
        Err(Error::Unsupported { .. }) if !whole && lazy_or_permuted => None,
        Err(Error::BackendUnavailable { .. }) if !whole && simd_forced => None,
        Err(e) => panic!("{what} failed to plan: {e}"),
    }
}

/// The ring NTTs in every mode, on raw words and on field elements.
fn lattice_ntt<L: LatticeField>(case: &LatticeCase) {
    let lanes = if case.lanes < 224 {
        1
    } else {
        1 + usize::from(case.lanes % 4)
    };
    let batch = 1 + usize::from(case.batch % 3);
    let reduction = if case.lazy {
        Reduction::Lazy
    } else {
        Reduction::Canonical
    };
    let order = if case.permuted {
        NttOrder::Permuted
    } else {
        NttOrder::Standard
    };
    let standard = if case.inverse {
        L::inverse_ntt()
    } else {
        L::forward_ntt()
    }
    .lanes(lanes)
    .batch(batch);
    let spec = standard.clone().reduction(reduction).ntt_order(order);
    let Some(plan) = plan_ring(&case.settings, &spec) else {
        return;
    };
    let lazy_bound = case.lazy.then(|| printed_lazy_bound(&plan));
    let any = case.inverse && case.lazy && L::LAZY_INVERSE_ANY_WORD;
    let mut rng = Rng(case.seed);
    let input = words::<L>(&mut rng, plan.len(), case.words, any);
    // The definition, on the standard order, then in the plan's order.
    let permuted = order == NttOrder::Permuted;
    let std_input: Vec<L> = if permuted && case.inverse {
        from_permuted::<L, _>(&input)
    } else {
        input.clone()
    }
    .into_iter()
    .map(residue)
    .collect();
    let std_output = reference::evaluate(&standard, &std_input).expect("reference");
    let expected = if permuted && !case.inverse {
        to_permuted::<L, _>(&std_output)
    } else {
        std_output
    };
    let what = spec.describe();
    let typed: Vec<L> = input.iter().map(|&w| residue(w)).collect();
    match case.call % 3 {
        0 => {
            let mut data = input.clone();
            let result = L::execute_raw(&plan, &mut data);
            let canonical_input = input.iter().all(|&w| (0..L::Q).contains(&w.into()));
            if L::is_ring_direct(&plan) || canonical_input {
                result.expect("execute_raw");
                check_words(&data, &expected, lazy_bound, &what);
            } else {
                // Other plans take field elements' words only.
                assert!(
                    matches!(result, Err(Error::NotCanonical { .. })),
                    "{what}: execute_raw of non-canonical words gave {result:?}"
                );
            }
        }
        call => {
            let mut data = typed.clone();
            let result = if call == 1 {
                plan.execute(&mut data)
            } else {
                plan.execute_from(&typed, &mut data)
            };
            if case.lazy {
                // A lazy plan's output is raw words, not elements.
                assert!(
                    matches!(result, Err(Error::Unsupported { .. })),
                    "{what}: typed execution of a lazy plan gave {result:?}"
                );
            } else {
                result.expect("execute");
                assert!(data == expected, "{what} differs from the definition");
            }
        }
    }
}

/// The products' lazy results: |c| < bound (exclusive).
fn kem_bound(k: usize) -> i64 {
    i64::from(MlKemProducts::lazy_bound(k))
}

fn kem_poly(rng: &mut Rng, dist: u8) -> [i16; 256] {
    let w = words::<MlKem>(rng, 256, dist, true);
    w.try_into().expect("256 words")
}

/// `Σ a_i ∘ b_i` by FIPS 203's MultiplyNTTs, on operands in `order`.
fn kem_expected(a: &[[i16; 256]], b: &[[i16; 256]], order: NttOrder) -> Vec<MlKem> {
    let standard = |p: &[i16; 256]| -> [MlKem; 256] {
        let p = match order {
            NttOrder::Standard => p.to_vec(),
            NttOrder::Permuted => from_permuted::<MlKem, _>(p),
        };
        core::array::from_fn(|i| MlKem::new(p[i]))
    };
    let mut sum = [MlKem::ZERO; 256];
    for (a, b) in a.iter().zip(b) {
        let term = multiply_ntts_reference(&standard(a), &standard(b));
        sum.iter_mut().zip(term).for_each(|(s, t)| *s += t);
    }
    match order {
        NttOrder::Standard => sum.to_vec(),
        NttOrder::Permuted => to_permuted::<MlKem, _>(&sum),
    }
}

fn other_order(order: NttOrder) -> NttOrder {
    match order {
        NttOrder::Standard => NttOrder::Permuted,
        NttOrder::Permuted => NttOrder::Standard,
    }
}

/// Products of lattice polynomials on `settings`' backend: `None` (checked)
/// where `Backend::check` refuses it.
fn products_on<T>(
    settings: &Settings,
    on: impl Fn(Backend) -> Result<T, Error>,
    new: impl Fn() -> T,
    check: impl Fn(Backend) -> Result<(), Error>,
) -> Option<T> {
    match settings.forced() {
        None => Some(new()),
        Some(b) => match (on(b), check(b)) {
            (Ok(p), Ok(())) => Some(p),
            (Err(e), Err(refused)) => {
                assert_eq!(e, refused, "the products' error is the backend's refusal");
                None
            }
            (Ok(_), Err(e)) => panic!("products on {b:?} although {e}"),
            (Err(e), Ok(())) => panic!("no products on {b:?}: {e}"),
        },
    }
}

fn kem_products(case: &LatticeCase) {
    let Some(products) = products_on(&case.settings, MlKemProducts::on, MlKemProducts::new, |b| {
        b.check::<MlKem>().map(|_| ())
    }) else {
        return;
    };
    let backend = products.backend();
    case.settings.check_backend::<MlKem>(backend);
    let order = if case.permuted {
        NttOrder::Permuted
    } else {
        NttOrder::Standard
    };
    let reduction = if case.lazy {
        Reduction::Lazy
    } else {
        Reduction::Canonical
    };
    let products = products.order(order).reduction(reduction);
    let _ = format!("{products:?}");
    // Up to 24 terms: across the one-reduction-per-8-terms steps.
    let k = 1 + usize::from(case.terms % 24);
    let mut rng = Rng(case.seed);
    let a: Vec<[i16; 256]> = (0..k).map(|_| kem_poly(&mut rng, case.words)).collect();
    let b: Vec<[i16; 256]> = (0..k)
        .map(|_| kem_poly(&mut rng, case.words >> 2))
        .collect();
    let what = format!("{products:?}, {k} terms");
    let bound = |terms: usize| case.lazy.then(|| kem_bound(terms));
    let mut out = [0i16; 256];
    match case.call % 6 {
        0 | 1 => {
            let caches: Vec<MlKemCache> = if case.call % 6 != 1 {
                b.iter().map(|b| products.cache(b)).collect()
            } else {
                // Into buffers holding another order's caches: overwritten.
                let other = MlKemProducts::new().order(other_order(order));
                b.iter()
                    .map(|b| {
                        let mut cache = other.cache(b);
                        products.cache_into(b, &mut cache);
                        cache
                    })
                    .collect()
            };
            products
                .multiply_accumulate(&a, &caches, &mut out)
                .expect("multiply_accumulate");
            check_words(&out, &kem_expected(&a, &b, order), bound(k), &what);
            // Typed errors: term counts that differ or are zero, a cache of
            // the other order.
            let mismatch = products.multiply_accumulate(&a[1..], &caches, &mut out);
            assert!(
                matches!(mismatch, Err(Error::LengthMismatch { .. })),
                "{mismatch:?}"
            );
            let none = products.multiply_accumulate(&[], &[], &mut out);
            assert!(
                matches!(none, Err(Error::LengthMismatch { .. })),
                "{none:?}"
            );
            let other = MlKemProducts::new().order(other_order(order)).cache(&b[0]);
            let wrong = products.multiply_cached(&a[0], &other, &mut out);
            assert!(matches!(wrong, Err(Error::Unsupported { .. })), "{wrong:?}");
        }
        2 => {
            let cache = products.cache(&b[0]);
            products
                .multiply_cached(&a[0], &cache, &mut out)
                .expect("multiply_cached");
            check_words(
                &out,
                &kem_expected(&a[..1], &b[..1], order),
                bound(1),
                &what,
            );
        }
        3 => {
            products.multiply(&a[0], &b[0], &mut out);
            check_words(
                &out,
                &kem_expected(&a[..1], &b[..1], order),
                bound(1),
                &what,
            );
        }
        4 => {
            let (fa, fb) = (a.concat(), b.concat());
            let mut outs = vec![0i16; 256 * k];
            products
                .multiply_batch(&fa, &fb, &mut outs)
                .expect("multiply_batch");
            for (i, out) in outs.chunks_exact(256).enumerate() {
                let expected = kem_expected(&a[i..=i], &b[i..=i], order);
                check_words(out, &expected, bound(1), &what);
            }
            let short = products.multiply_batch(&fa, &fb, &mut outs[1..]);
            assert!(
                matches!(short, Err(Error::LengthMismatch { .. })),
                "{short:?}"
            );
        }
        _ => {
            let typed =
                |p: &[i16; 256]| -> [MlKem; 256] { core::array::from_fn(|i| MlKem::new(p[i])) };
            let got = products.multiply_elements(&typed(&a[0]), &typed(&b[0]));
            // Canonical whatever the reduction setting.
            let expected = kem_expected(&a[..1], &b[..1], order);
            assert!(got[..] == expected[..], "{what}: multiply_elements");
        }
    }
}

/// `Σ a_i · b_i` coefficient-wise modulo q.
fn dsa_expected(a: &[[i32; 256]], b: &[[i32; 256]]) -> Vec<MlDsa> {
    (0..256)
        .map(|c| {
            let sum = a
                .iter()
                .zip(b)
                .map(|(a, b)| i128::from(a[c]) * i128::from(b[c]))
                .sum::<i128>();
            MlDsa::from_u64(sum.rem_euclid(i128::from(<MlDsa as LatticeField>::Q)) as u64)
        })
        .collect()
}

fn dsa_poly(rng: &mut Rng, dist: u8) -> [i32; 256] {
    let w = words::<MlDsa>(rng, 256, dist, true);
    w.try_into().expect("256 words")
}

fn dsa_products(case: &LatticeCase) {
    let Some(products) = products_on(&case.settings, MlDsaProducts::on, MlDsaProducts::new, |b| {
        b.check::<MlDsa>().map(|_| ())
    }) else {
        return;
    };
    case.settings.check_backend::<MlDsa>(products.backend());
    let reduction = if case.lazy {
        Reduction::Lazy
    } else {
        Reduction::Canonical
    };
    let products = products.reduction(reduction);
    let _ = format!("{products:?}");
    // 1 to 256 terms (the most one sum takes).
    let k = 1 + usize::from(case.terms);
    let mut rng = Rng(case.seed);
    let a: Vec<[i32; 256]> = (0..k).map(|_| dsa_poly(&mut rng, case.words)).collect();
    let b: Vec<[i32; 256]> = (0..k)
        .map(|_| dsa_poly(&mut rng, case.words >> 2))
        .collect();
    let what = format!("{products:?}, {k} terms");
    // Inclusive: |c| ≤ (k + 1)·q/2.
    let bound = |terms: usize| {
        case.lazy
            .then(|| MlDsaProducts::lazy_bound(terms) as i64 + 1)
    };
    let mut out = [0i32; 256];
    match case.call % 5 {
        0 | 1 => {
            let caches: Vec<MlDsaCache> = if case.call % 5 != 1 {
                b.iter().map(|b| products.cache(b)).collect()
            } else {
                b.iter()
                    .map(|b| {
                        let mut cache = products.cache(&a[0]);
                        products.cache_into(b, &mut cache);
                        cache
                    })
                    .collect()
            };
            products
                .multiply_accumulate(&a, &caches, &mut out)
                .expect("multiply_accumulate");
            check_words(&out, &dsa_expected(&a, &b), bound(k), &what);
            let mismatch = products.multiply_accumulate(&a[1..], &caches, &mut out);
            assert!(
                matches!(mismatch, Err(Error::LengthMismatch { .. })),
                "{mismatch:?}"
            );
            if k == 256 {
                // More terms than one sum takes.
                let mut a = a.clone();
                a.push(a[0]);
                let mut caches = caches;
                caches.push(products.cache(&b[0]));
                let over = products.multiply_accumulate(&a, &caches, &mut out);
                assert!(
                    matches!(over, Err(Error::LengthMismatch { .. })),
                    "{over:?}"
                );
            }
        }
        2 => {
            let cache = products.cache(&b[0]);
            products.multiply_cached(&a[0], &cache, &mut out);
            check_words(&out, &dsa_expected(&a[..1], &b[..1]), bound(1), &what);
        }
        3 => {
            let k = k.min(8);
            let (fa, fb) = (a[..k].concat(), b[..k].concat());
            let mut outs = vec![0i32; 256 * k];
            products
                .multiply_batch(&fa, &fb, &mut outs)
                .expect("multiply_batch");
            for (i, out) in outs.chunks_exact(256).enumerate() {
                check_words(out, &dsa_expected(&a[i..=i], &b[i..=i]), bound(1), &what);
            }
            let short = products.multiply_batch(&fa, &fb[256..], &mut outs);
            assert!(
                matches!(short, Err(Error::LengthMismatch { .. })),
                "{short:?}"
            );
        }
        _ => {
            let typed =
                |p: &[i32; 256]| -> [MlDsa; 256] { core::array::from_fn(|i| MlDsa::new(p[i])) };
            let got = products.multiply_elements(&typed(&a[0]), &typed(&b[0]));
            assert!(
                got[..] == dsa_expected(&a[..1], &b[..1])[..],
                "{what}: multiply_elements"
            );
        }
    }
}

/// `Σ a_i · b_i` in Z_q[X]/(X^256 + 1), schoolbook.
fn schoolbook<L: LatticeField>(a: &[L::Raw], b: &[L::Raw], k: usize) -> Vec<L> {
    let mut acc = [0i128; 256];
    for t in 0..k {
        let (a, b) = (&a[256 * t..256 * (t + 1)], &b[256 * t..256 * (t + 1)]);
        for i in 0..256 {
            for j in 0..256 {
                let p = i128::from(a[i].into()) * i128::from(b[j].into());
                if i + j < 256 {
                    acc[i + j] += p;
                } else {
                    acc[i + j - 256] -= p;
                }
            }
        }
    }
    acc.iter()
        .map(|&x| L::from_u64(x.rem_euclid(i128::from(L::Q)) as u64))
        .collect()
}

/// A KEM's or a signature's use: k polynomial products as the forward NTT
/// (batch k), the products summed, the inverse NTT, in the modes and order
/// the case picks, against the schoolbook product.
fn round_trip<L: LatticeField>(case: &LatticeCase) {
    // Budgets as detected and the default register budget: ring plans (the
    // modes' own checks are the NTT op's); backend and threads from the case.
    let settings = Settings {
        budgets: None,
        register_values: None,
        ..case.settings
    };
    let k = 1 + usize::from(case.terms % 3);
    let order = if case.permuted {
        NttOrder::Permuted
    } else {
        NttOrder::Standard
    };
    let mode = |lazy: bool| {
        if lazy {
            Reduction::Lazy
        } else {
            Reduction::Canonical
        }
    };
    // The lazy inverse of ML-KEM takes any word: the products may be lazy
    // too. Everything else takes |a| < q: canonical products.
    let lazy_inverse = case.inverse;
    let lazy_products = case.lazy_products && lazy_inverse && L::LAZY_INVERSE_ANY_WORD;
    let forward = L::forward_ntt()
        .batch(k)
        .reduction(mode(case.lazy))
        .ntt_order(order);
    let inverse = L::inverse_ntt()
        .reduction(mode(lazy_inverse))
        .ntt_order(order);
    let (Some(forward), Some(inverse)) = (
        plan_ring(&settings, &forward),
        plan_ring(&settings, &inverse),
    ) else {
        return;
    };
    let mut rng = Rng(case.seed);
    let a = words::<L>(&mut rng, 256 * k, case.words, false);
    let b = words::<L>(&mut rng, 256 * k, case.words >> 2, false);
    let (mut a_hat, mut b_hat) = (a.clone(), b.clone());
    L::execute_raw(&forward, &mut a_hat).expect("forward");
    L::execute_raw(&forward, &mut b_hat).expect("forward");
    let mut c = multiply_sum::<L>(case, &a_hat, &b_hat, order, mode(lazy_products));
    let Some(c_hat) = c.as_mut() else {
        return;
    };
    L::execute_raw(&inverse, c_hat).expect("inverse");
    let bound = lazy_inverse.then(|| printed_lazy_bound(&inverse));
    let what = format!(
        "{} -> products -> {}",
        forward.transform().describe(),
        inverse.transform().describe()
    );
    check_words(c_hat, &schoolbook::<L>(&a, &b, k), bound, &what);
}

/// `Σ â_i ∘ b̂_i` with the products of the case's backend, as raw words.
fn multiply_sum<L: LatticeField>(
    case: &LatticeCase,
    a_hat: &[L::Raw],
    b_hat: &[L::Raw],
    order: NttOrder,
    reduction: Reduction,
) -> Option<Vec<L::Raw>> {
    let raw = |w: i64| L::raw(w);
    if L::Q == <MlKem as LatticeField>::Q {
        let products = products_on(&case.settings, MlKemProducts::on, MlKemProducts::new, |b| {
            b.check::<MlKem>().map(|_| ())
        })?
        .order(order)
        .reduction(reduction);
        let kem = |w: &[L::Raw]| -> Vec<[i16; 256]> {
            w.chunks_exact(256)
                .map(|p| core::array::from_fn(|i| p[i].into() as i16))
                .collect()
        };
        let (a, b) = (kem(a_hat), kem(b_hat));
        let caches: Vec<MlKemCache> = b.iter().map(|b| products.cache(b)).collect();
        let mut out = [0i16; 256];
        products
            .multiply_accumulate(&a, &caches, &mut out)
            .expect("multiply_accumulate");
        Some(out.iter().map(|&w| raw(w.into())).collect())
    } else {
        let products = products_on(&case.settings, MlDsaProducts::on, MlDsaProducts::new, |b| {
            b.check::<MlDsa>().map(|_| ())
        })?
        .reduction(reduction);
        let dsa = |w: &[L::Raw]| -> Vec<[i32; 256]> {
            w.chunks_exact(256)
                .map(|p| core::array::from_fn(|i| p[i].into() as i32))
                .collect()
        };
        let (a, b) = (dsa(a_hat), dsa(b_hat));
        let caches: Vec<MlDsaCache> = b.iter().map(|b| products.cache(b)).collect();
        let mut out = [0i32; 256];
        products
            .multiply_accumulate(&a, &caches, &mut out)
            .expect("multiply_accumulate");
        Some(out.iter().map(|&w| raw(w.into())).collect())
    }
}
