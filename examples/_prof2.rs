use nttfuse::backend::GroupKernel;
use nttfuse::*;
fn main() {
    for polys in [1usize, 4, 16] {
        let heap: Vec<i16> = (0..127)
            .map(|i| MlKem::prepare_twiddle(MlKem::new(17).pow(i as u64 + 1)))
            .collect();
        let table: Vec<i16> = MlKem::layout_twiddles(Backend::Avx512, true, heap.clone(), 1);
        let mut data: Vec<MlKem> = (0..256u64 * polys as u64)
            .map(|i| MlKem::from_u64(i * 1103 + 7))
            .collect();
        for kind in [ButterflyKind::CooleyTukey, ButterflyKind::GentlemanSande] {
            let g = GroupKernel {
                log_radix: 7,
                log_rows: 8,
                width: 1,
                kind,
                twiddles: &table,
                scale: Some(MlKem::new(3303)),
                input_bound: 1,
                canonical_output: true,
                whole_block: true,
            };
            let n = 1_000_000 / polys;
            let t = std::time::Instant::now();
            let t0 = unsafe { core::arch::x86_64::_rdtsc() };
            for _ in 0..n {
                Backend::Avx512.run_group(std::hint::black_box(&mut data), &g);
            }
            let t1 = unsafe { core::arch::x86_64::_rdtsc() };
            println!(
                "{kind:?} {polys} polys: {:.1} ns, {:.0} ticks per poly",
                t.elapsed().as_nanos() as f64 / (n * polys) as f64,
                (t1 - t0) as f64 / (n * polys) as f64
            );
        }
    }
}
