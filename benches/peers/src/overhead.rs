//! The cost of calling a ring plan (`Plan::execute_raw`: a length check and
//! one indirect call) over calling its kernel directly, same process,
//! interleaved rounds. Inverse NTTs, which can run over and over on the
//! same buffer within their input contracts.

use crate::{median, ticks};
use nttfuse::*;
use std::hint::black_box;

/// Times `n` calls of the bare kernel and of `execute_raw` per round.
fn measure<W: Copy + Default + 'static>(
    rounds: usize,
    bare: &mut dyn FnMut(&mut [W; 256]),
    api: &mut dyn FnMut(&mut [W; 256]),
) -> (f64, f64) {
    const N: u64 = 2000;
    let mut poly = [W::default(); 256];
    let (mut b, mut a) = (Vec::new(), Vec::new());
    for round in 0..rounds {
        let mut time = |f: &mut dyn FnMut(&mut [W; 256])| {
            let start = ticks();
            for _ in 0..N {
                f(black_box(&mut poly));
            }
            (ticks() - start) as f64 / N as f64
        };
        if round % 2 == 0 {
            b.push(time(bare));
            a.push(time(api));
        } else {
            a.push(time(api));
            b.push(time(bare));
        }
    }
    (median(&mut b), median(&mut a))
}

fn row(name: &str, (bare, api): (f64, f64)) {
    println!("{name:<44} {bare:>7.1}  {api:>11.1}  {:>8.1}", api - bare);
}

/// Prints the table.
pub fn report(rounds: usize) {
    println!();
    println!("call overhead of a single-polynomial ring plan (ticks per call, medians):");
    println!(
        "{:<44} {:>7}  {:>11}  {:>8}",
        "plan", "bare", "execute_raw", "overhead"
    );
    let planner = Planner::new().threads(Threads::Count(1));
    for reduction in [Reduction::Lazy, Reduction::Canonical] {
        let spec = Transform::<MlKem>::negacyclic_inverse().reduction(reduction);
        let plan = planner.plan(&spec).expect("plan");
        let (kernel, table) = plan.bare_ring_kernel().expect("a ring plan");
        let table = table.to_vec();
        let name = format!("ML-KEM inverse {reduction:?} ({})", plan.backend().name());
        row(
            &name,
            measure::<i16>(
                rounds,
                // SAFETY: the plan's own kernel and table, on the CPU it was
                // planned on.
                &mut |p| unsafe { kernel(p, &table) },
                &mut |p| plan.execute_raw(p).expect("execute_raw"),
            ),
        );
    }
    let spec = Transform::<MlDsa>::negacyclic_inverse();
    let plan = planner.plan(&spec).expect("plan");
    let (kernel, table) = plan.bare_ring_kernel().expect("a ring plan");
    let table = table.to_vec();
    let name = format!("ML-DSA inverse Canonical ({})", plan.backend().name());
    row(
        &name,
        measure::<i32>(
            rounds,
            // SAFETY: as above.
            &mut |p| unsafe { kernel(p, &table) },
            &mut |p| plan.execute_raw(p).expect("execute_raw"),
        ),
    );
}
