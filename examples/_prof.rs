use nttfuse::*;
fn main() {
    let plan = Planner::new()
        .threads(Threads::Count(1))
        .plan(&Transform::<MlKem>::negacyclic_forward())
        .unwrap();
    let mut data: Vec<MlKem> = (0..256u64).map(|i| MlKem::from_u64(i * 1103 + 7)).collect();
    for _ in 0..4000000 {
        plan.execute(std::hint::black_box(&mut data)).unwrap();
    }
}
