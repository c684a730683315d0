//! Encodes a trace as a binary-field PCS would: a lane-major message (each
//! column contiguous) is Reed–Solomon encoded at rate 1/2 over GF(2^64) with
//! the additive NTT, the transpose into rows being the plan's first step
//! (`Transform::lane_major_input`). Prints the plan, the time and the number
//! of memory sweeps (time ÷ one plain read+write pass over the codeword,
//! measured in the same run), the time of a separate transpose + row-major
//! encode for comparison, and checks a sample of the codeword against the
//! definition.
//!
//! ```text
//! cargo run --release --example binary_encode [log_rows] [columns]
//! ```

use nttfuse::*;
use rayon::prelude::*;
use std::time::{Duration, Instant};

fn median(runs: usize, mut f: impl FnMut()) -> Duration {
    f();
    let mut t: Vec<Duration> = (0..runs)
        .map(|_| {
            let s = Instant::now();
            f();
            s.elapsed()
        })
        .collect();
    t.sort();
    t[runs / 2]
}

fn main() -> Result<(), Error> {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let log_message = args.first().copied().unwrap_or(19) as u32;
    let columns = args.get(1).copied().unwrap_or(8);
    let rows = 1usize << log_message;

    // The trace, lane-major: column c is trace[c·rows .. (c+1)·rows].
    let trace: Vec<Gf2_64> = (0..rows * columns)
        .map(|i| Gf2_64::new((i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0x1234))
        .collect();

    let spec = Transform::<Gf2_64>::additive_encode(log_message + 1, LogBlowup(1))
        .basis(Basis::Cantor)
        .lanes(columns);
    let plan = Planner::new().plan(&spec.clone().lane_major_input())?;
    println!("{plan}\n");
    let mut codeword = vec![Gf2_64::ZERO; plan.len()];
    let t_plan = median(5, || {
        plan.execute_from(&trace, &mut codeword).expect("encode")
    });

    // For comparison: a hand-written transpose, then a row-major encode.
    let row_major = Planner::new().plan(&spec)?;
    let mut separate = vec![Gf2_64::ZERO; plan.len()];
    let mut message = vec![Gf2_64::ZERO; rows * columns];
    let transpose = |message: &mut [Gf2_64]| {
        const TILE: usize = 64;
        message
            .par_chunks_mut(TILE * columns)
            .enumerate()
            .for_each(|(t, block)| {
                for c in 0..columns {
                    for (r, row) in block.chunks_exact_mut(columns).enumerate() {
                        row[c] = trace[c * rows + t * TILE + r];
                    }
                }
            });
    };
    let t_transpose = median(5, || transpose(&mut message));
    let t_encode = median(5, || {
        row_major
            .execute_from(&message, &mut separate)
            .expect("encode")
    });
    assert!(
        separate == codeword,
        "the lane-major plan and the hand-written transpose agree"
    );
    let mut words = vec![1u64; plan.len()];
    let sweep = median(5, || {
        // The fastest plain pass (see the quickstart's `sweep`).
        words.par_chunks_mut(1 << 14).for_each(|c| {
            std::hint::black_box(c)
                .iter_mut()
                .for_each(|w| *w = w.wrapping_add(1))
        })
    });
    let ms = |t: Duration| t.as_secs_f64() * 1e3;
    println!(
        "encode 2^{} × {columns} at rate 1/2 from the lane-major trace: {:.2} ms; one read+write sweep of the {} MiB codeword: {:.2} ms; encode = {:.1} sweeps (plan predicts {})",
        log_message + 1,
        ms(t_plan),
        plan.cost().data_bytes >> 20,
        ms(sweep),
        t_plan.as_secs_f64() / sweep.as_secs_f64(),
        plan.cost().sweeps,
    );
    println!(
        "hand-written transpose {:.2} ms + row-major encode {:.2} ms = {:.2} ms ({:.2}× the lane-major plan)",
        ms(t_transpose),
        ms(t_encode),
        ms(t_transpose + t_encode),
        (t_transpose + t_encode).as_secs_f64() / t_plan.as_secs_f64(),
    );

    // Spot check: codeword rows against the definition, column 0.
    let column: Vec<Gf2_64> = trace[..rows].to_vec();
    let one_column =
        Transform::<Gf2_64>::additive_encode(log_message + 1, LogBlowup(1)).basis(Basis::Cantor);
    if log_message <= 12 {
        let expected = reference::evaluate(&one_column, &column)?;
        for (r, e) in expected.iter().enumerate() {
            assert_eq!(codeword[r * columns], *e, "row {r}");
        }
        println!("codeword column 0 equals the naive evaluation");
    } else {
        let check = Planner::new().backend(Backend::Scalar).plan(&one_column)?;
        let mut expected = vec![Gf2_64::ZERO; check.len()];
        check.execute_from(&column, &mut expected)?;
        assert!(expected
            .iter()
            .enumerate()
            .all(|(r, e)| codeword[r * columns] == *e));
        println!("codeword column 0 equals the scalar backend's single-column encode");
    }
    Ok(())
}
