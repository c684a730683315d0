//! A dudect-style timing test: Welch's t-test between the running times of
//! a fixed input class and a random input class.

use crate::Rng;

/// What one test found.
pub struct Outcome {
    /// The largest |t| over the croppings (signed as measured).
    pub max_t: f64,
    /// Measurements taken (both classes).
    pub measurements: usize,
    /// Mean time of the fixed class minus that of the random class, in
    /// ticks, below the 95th percentile (the size of a leak, roughly).
    pub mean_difference: f64,
}

/// Welford's running mean and variance.
#[derive(Clone, Copy, Default)]
struct Moments {
    n: f64,
    mean: f64,
    m2: f64,
}

impl Moments {
    fn push(&mut self, x: f64) {
        self.n += 1.0;
        let d = x - self.mean;
        self.mean += d / self.n;
        self.m2 += d * (x - self.mean);
    }
    fn variance(&self) -> f64 {
        if self.n < 2.0 {
            0.0
        } else {
            self.m2 / (self.n - 1.0)
        }
    }
}

/// Welch's t between two classes (0 when either is too small to say).
fn welch_t(a: &Moments, b: &Moments) -> f64 {
    if a.n < 1000.0 || b.n < 1000.0 {
        return 0.0;
    }
    let se = (a.variance() / a.n + b.variance() / b.n).sqrt();
    if se == 0.0 {
        0.0
    } else {
        (a.mean - b.mean) / se
    }
}

/// Cycle counter, serialised so the measured call does not overlap it.
#[cfg(target_arch = "x86_64")]
fn ticks() -> u64 {
    use core::arch::x86_64::{_mm_lfence, _rdtsc};
    // SAFETY: lfence and rdtsc exist on every x86-64 CPU.
    unsafe {
        _mm_lfence();
        let t = _rdtsc();
        _mm_lfence();
        t
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn ticks() -> u64 {
    use std::time::Instant;
    thread_local!(static START: Instant = Instant::now());
    START.with(|s| s.elapsed().as_nanos() as u64)
}

/// Percentiles at which measurements are cropped (dudect's post-processing:
/// large outliers come from interrupts and the other tenant, and cropping
/// at several levels keeps a leak in the fast tail visible).
const CROPS: [f64; 6] = [0.5, 0.75, 0.9, 0.95, 0.99, 1.0];
/// Measurements per batch: inputs of a batch are prepared before timing.
const BATCH: usize = 10_000;

/// Times `op` on `measurements` inputs, each drawn from the fixed class
/// (`fixed`) or the random class (`random`) by a coin flip, and returns the
/// largest |t| over the croppings.
pub fn run<T: Copy, R>(
    measurements: usize,
    rng: &mut Rng,
    fixed: T,
    random: fn(&mut Rng) -> T,
    op: impl Fn(T) -> R,
) -> Outcome {
    let mut crops: Option<[f64; CROPS.len()]> = None;
    let mut moments = [[Moments::default(); 2]; CROPS.len()];
    let mut taken = 0;
    let mut times = vec![0u64; BATCH];
    // Warm up caches, predictors and the frequency.
    for _ in 0..BATCH {
        std::hint::black_box(op(std::hint::black_box(fixed)));
    }
    while taken < measurements {
        let classes: Vec<usize> = (0..BATCH).map(|_| (rng.next() & 1) as usize).collect();
        let inputs: Vec<T> = classes
            .iter()
            .map(|&c| if c == 0 { fixed } else { random(rng) })
            .collect();
        for (t, &input) in times.iter_mut().zip(&inputs) {
            let start = ticks();
            std::hint::black_box(op(std::hint::black_box(input)));
            *t = ticks().wrapping_sub(start);
        }
        // The first batch fixes the cropping thresholds (and is not counted).
        let Some(thresholds) = crops else {
            let mut sorted = times.clone();
            sorted.sort_unstable();
            crops = Some(CROPS.map(|p| {
                if p >= 1.0 {
                    f64::INFINITY
                } else {
                    sorted[(p * sorted.len() as f64) as usize] as f64
                }
            }));
            continue;
        };
        for (&t, &class) in times.iter().zip(&classes) {
            let t = t as f64;
            for (m, &limit) in moments.iter_mut().zip(&thresholds) {
                if t < limit {
                    m[class].push(t);
                }
            }
        }
        taken += BATCH;
    }
    let max_t = moments
        .iter()
        .map(|m| welch_t(&m[0], &m[1]))
        .fold(0.0f64, |acc, t| if t.abs() > acc.abs() { t } else { acc });
    let at_95 = CROPS
        .iter()
        .position(|&p| p == 0.95)
        .expect("a 95% cropping");
    Outcome {
        max_t,
        measurements: taken,
        mean_difference: moments[at_95][0].mean - moments[at_95][1].mean,
    }
}
