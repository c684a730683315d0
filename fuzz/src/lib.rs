//! What the fuzz targets check, shared by both (and by the regression test
//! that replays the saved corpus).
//!
//! A [`Case`] is any transform description of any family, any planner
//! settings (budgets, radix limit, threads, forced backend) and any way of
//! calling `execute` (out of place, in place, caller scratch, unaligned
//! slice starts). The property: planning either fails with the typed error
//! the description's own validation gives (or a backend or thread error),
//! or yields a plan whose output on random data equals the naive O(n²)
//! definition, bit for bit. Any panic is a finding.

use arbitrary::Arbitrary;
use nttfuse::*;

/// One fuzz input.
#[derive(Arbitrary, Debug, Clone)]
pub struct Case {
    family: u8,
    log_n: u8,
    lanes: u8,
    batch: u8,
    rate: u8,
    inverse: bool,
    bit_reversed: bool,
    cantor: bool,
    shift: u64,
    register_values: Option<u8>,
    budgets: Option<(u16, u16, u16)>,
    threads: u8,
    backend: u8,
    call: u8,
    in_offset: u8,
    out_offset: u8,
    seed: u64,
    lane_major: bool,
    prune: u8,
}

/// Output elements above which a valid description is left out (the naive
/// definition is quadratic).
const MAX_CHECKED_LEN: usize = 1 << 13;
/// Rows above which a valid plan is built but not run against the naive
/// definition (2^6 for the additive inverse, whose naive form is cubic:
/// Gauss–Jordan per column).
const MAX_CHECKED_ROWS: usize = 1 << 8;

/// How far sizes reach: `valid_sizes` keeps every parameter in range (the
/// `execute` target), otherwise they also reach far outside it (the `plan`
/// target).
fn sizes(case: &Case, valid_sizes: bool) -> (u32, usize, usize, u32) {
    if valid_sizes {
        return (
            u32::from(case.log_n % 9),
            1 + usize::from(case.lanes % 6),
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
        253 => 1 << 40,
        254 => usize::MAX / 2 + 1,
        255 => usize::MAX,
        l => usize::from(l % 7),
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

fn planner(case: &Case) -> Planner {
    let mut planner = Planner::new();
    let budgets = match case.budgets {
        Some((l1, l2, l3)) => Budgets::fixed(
            usize::from(l1) * 8,
            usize::from(l2) * 16,
            usize::from(l3) * 64,
        ),
        None => Budgets::detect(),
    };
    planner = planner.budgets(Budgets {
        register_values: case.register_values.map(usize::from),
        ..budgets
    });
    planner = planner.threads(match case.threads % 5 {
        4 => Threads::All,
        n => Threads::Count(usize::from(n)),
    });
    match case.backend % 4 {
        1 => planner.backend(Backend::Scalar),
        2 => planner.backend(Backend::Avx512),
        3 => planner.backend(Backend::Neon),
        _ => planner,
    }
}

fn order(case: &Case) -> Order {
    if case.bit_reversed {
        Order::BitReversed
    } else {
        Order::Natural
    }
}

/// Checks one case; panics on a finding.
pub fn check(case: &Case, valid_sizes: bool) {
    let (log_n, lanes, batch, rate) = sizes(case, valid_sizes);
    let p = planner(case);
    match case.family % 10 {
        0 => {
            let spec = if case.inverse {
                Transform::<Gf2_64>::additive_intt(log_n)
            } else {
                Transform::<Gf2_64>::additive_ntt(log_n)
            };
            let basis = if case.cantor {
                Basis::Cantor
            } else {
                Basis::Standard
            };
            let prune = match case.prune {
                255 if !valid_sizes => u32::MAX,
                k => u32::from(k % 4),
            };
            let spec = spec
                .from_layer(rate)
                .basis(basis)
                .shift(Gf2_64::from_u64(case.shift))
                .retain_prefix(prune);
            run(case, &p, spec.lanes(lanes).batch(batch));
        }
        1 if case.inverse => run_additive_lde(case, &p, log_n, rate, lanes),
        1 => run(
            case,
            &p,
            Transform::<Gf2_64>::additive_encode(log_n, rate)
                .lanes(lanes)
                .batch(batch),
        ),
        2 => {
            let spec = if case.inverse {
                Transform::<Gf2_192>::additive_intt(log_n)
            } else {
                Transform::<Gf2_192>::additive_ntt(log_n)
            };
            run(case, &p, spec.lanes(lanes).batch(batch));
        }
        3 => {
            let spec = if case.inverse {
                Transform::<BabyBear>::idft(log_n)
            } else {
                Transform::<BabyBear>::dft(log_n)
            };
            run(case, &p, spec.order(order(case)).lanes(lanes).batch(batch));
        }
        4 => {
            let shift = KoalaBear::from_u64(case.shift);
            let spec = if case.inverse {
                Transform::<KoalaBear>::coset_idft(log_n, shift)
            } else {
                Transform::<KoalaBear>::coset_dft(log_n, shift)
            };
            run(case, &p, spec.order(order(case)).lanes(lanes).batch(batch));
        }
        5 => run(
            case,
            &p,
            Transform::<Goldilocks>::dft_encode(log_n, rate, Goldilocks::from_u64(case.shift))
                .order(order(case))
                .lanes(lanes)
                .batch(batch),
        ),
        6 => {
            let spec = if case.inverse {
                Transform::<BabyBear4>::idft(log_n)
            } else {
                Transform::<BabyBear4>::dft(log_n)
            };
            run(case, &p, spec.lanes(lanes).batch(batch));
        }
        7 => {
            let spec = if case.inverse {
                Transform::<MlKem>::negacyclic_inverse()
            } else {
                Transform::<MlKem>::negacyclic_forward()
            };
            let spec = if case.bit_reversed && !valid_sizes {
                spec.order(Order::BitReversed) // refused: FIPS 203 fixes the order
            } else {
                spec
            };
            run(case, &p, spec.lanes(lanes).batch(batch));
        }
        8 => {
            let spec = if case.inverse {
                Transform::<MlDsa>::negacyclic_inverse()
            } else {
                Transform::<MlDsa>::negacyclic_forward()
            };
            run(case, &p, spec.lanes(lanes).batch(batch));
        }
        _ => {
            let len = if valid_sizes {
                1 << log_n
            } else {
                case.shift as usize
            };
            run(
                case,
                &p,
                Transform::<BabyBear>::dft_of_len(len).lanes(lanes),
            );
        }
    }
}

/// The additive LDE from 2^(log_n − rate) evaluations to 2^log_n, against
/// the naive inverse NTT followed by the naive encode; bad sizes must give
/// the encode's typed error.
fn run_additive_lde(case: &Case, planner: &Planner, log_n: u32, rate: u32, lanes: usize) {
    let basis = if case.cantor {
        Basis::Cantor
    } else {
        Basis::Standard
    };
    let log_in = log_n.saturating_sub(rate);
    let encode = Transform::<Gf2_64>::additive_encode(log_in.saturating_add(rate), rate)
        .basis(basis)
        .lanes(lanes);
    let plan = || planner.plan_additive_lde::<Gf2_64>(log_in, rate, basis, lanes);
    if rate == 0 {
        let err = plan().err();
        assert!(
            matches!(err, Some(Error::Unsupported { .. })),
            "blowup 2^0 gave {err:?}"
        );
        return;
    }
    match encode.validate() {
        Err(invalid) => {
            let err = plan().expect_err("an invalid LDE planned");
            assert_eq!(err, invalid, "the LDE's error is the encode's");
            return;
        }
        // Sizes are checked before planning: huge lanes need huge scratch.
        Ok(()) if encode.output_len().unwrap() > MAX_CHECKED_LEN => return,
        Ok(()) => {}
    }
    let lde = match plan() {
        Ok(lde) => lde,
        Err(e @ (Error::Threads { .. } | Error::BackendUnavailable { .. })) => {
            assert!(!e.to_string().is_empty());
            return;
        }
        Err(e) => panic!("a valid LDE failed to plan: {e}"),
    };
    let _ = (lde.to_string(), lde.sweeps());
    assert_eq!(lde.len(), encode.output_len().unwrap());
    if log_in > 6 {
        return;
    }
    let mut rng = Rng(case.seed);
    let evals: Vec<Gf2_64> = (0..lde.input_len())
        .map(|_| Gf2_64::from_u64(rng.next()))
        .collect();
    let intt = Transform::<Gf2_64>::additive_intt(log_in)
        .basis(basis)
        .lanes(lanes);
    let coefficients = reference::evaluate(&intt, &evals).expect("reference");
    let expected = reference::evaluate(&encode, &coefficients).expect("reference");
    let out_off = usize::from(case.out_offset % 8);
    let mut out_buf = vec![Gf2_64::ZERO; lde.len() + out_off];
    lde.execute_from(&evals, &mut out_buf[out_off..])
        .expect("execute_from");
    assert!(
        out_buf[out_off..] == expected[..],
        "additive LDE 2^{log_in} -> 2^{log_n} × {lanes} differs from the definition"
    );
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
}

fn run<F: Kernels>(case: &Case, planner: &Planner, spec: Transform<F>) {
    let spec = if case.lane_major {
        spec.lane_major_input()
    } else {
        spec
    };
    let _ = spec.describe();
    match spec.validate() {
        Err(invalid) => {
            let err = planner
                .plan(&spec)
                .expect_err("an invalid description planned");
            assert_eq!(
                err, invalid,
                "planning reported another error than validation"
            );
            return;
        }
        Ok(()) if spec.output_len().unwrap() > MAX_CHECKED_LEN => return,
        Ok(()) => {}
    }
    let plan = match planner.plan(&spec) {
        Ok(plan) => plan,
        Err(e @ (Error::Threads { .. } | Error::BackendUnavailable { .. })) => {
            assert!(!e.to_string().is_empty());
            return;
        }
        Err(e) => panic!("a valid description failed to plan: {e}"),
    };
    assert_eq!(plan.len(), spec.output_len().unwrap());
    assert_eq!(plan.input_len(), spec.input_len().unwrap());
    let _ = (plan.to_string(), plan.cost());
    let additive_inverse =
        spec.family() == Family::Additive && spec.direction() == Direction::Inverse;
    let max_rows = if additive_inverse {
        1 << 6
    } else {
        MAX_CHECKED_ROWS
    };
    if spec.rows() > max_rows {
        return;
    }
    let mut rng = Rng(case.seed);
    let input: Vec<F> = (0..plan.input_len())
        .map(|_| F::from_u64(rng.next()))
        .collect();
    let expected = reference::evaluate(&spec, &input).expect("reference");
    // Unaligned starts: the data begins `offset` elements into its buffer.
    let (in_off, out_off) = (
        usize::from(case.in_offset % 8),
        usize::from(case.out_offset % 8),
    );
    let mut out_buf = vec![F::zero(); plan.len() + out_off];
    let out = &mut out_buf[out_off..];
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
