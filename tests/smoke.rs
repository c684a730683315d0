use nttfuse::*;

fn run<F: Field>(spec: &Transform<F>, input: &[F], budgets: Budgets) -> Vec<F> {
    let plan = Planner::new()
        .threads(Threads::Count(1))
        .budgets(budgets)
        .plan(spec)
        .unwrap();
    println!("{plan}");
    let mut out = vec![F::zero(); plan.len()];
    plan.execute_from(input, &mut out).unwrap();
    out
}

#[test]
fn smoke() {
    let big = Budgets::fixed(32 << 10, 1 << 20, 32 << 20);
    let small = Budgets::fixed(1 << 10, 1 << 10, 1 << 14);
    let x: Vec<Gf2_64> = (1..=8).map(Gf2_64::new).collect();
    let spec = Transform::<Gf2_64>::additive_ntt(3);
    println!("{:x?}", run(&spec, &x, big));
    println!("{:x?}", reference::evaluate(&spec, &x).unwrap());
    let spec = Transform::<Gf2_64>::additive_encode(3, 1);
    println!("{:x?}", run(&spec, &x[..4], big));
    for (spec, lanes) in [
        (Transform::<BabyBear>::dft(10), 3usize),
        (Transform::<BabyBear>::idft(9), 5),
    ] {
        let spec = spec.lanes(lanes);
        let input: Vec<BabyBear> = (0..spec.input_len().unwrap() as u64)
            .map(|i| BabyBear::from_u64(i * i + 3))
            .collect();
        let r = reference::evaluate(&spec, &input).unwrap();
        assert_eq!(run(&spec, &input, big), r);
        assert_eq!(run(&spec, &input, small), r);
    }
    let spec = Transform::<MlKem>::negacyclic_forward();
    let input: Vec<MlKem> = (0..256u64).map(|i| MlKem::from_u64(i * i + 3)).collect();
    assert_eq!(
        run(&spec, &input, big),
        reference::evaluate(&spec, &input).unwrap()
    );
    let spec = Transform::<Gf2_64>::additive_encode(10, 2).lanes(3);
    let input: Vec<Gf2_64> = (0..spec.input_len().unwrap() as u64)
        .map(|i| Gf2_64::new((i * i).wrapping_mul(0x9e3779b97f4a7c15) + 3))
        .collect();
    let r = reference::evaluate(&spec, &input).unwrap();
    assert_eq!(run(&spec, &input, big), r);
    assert_eq!(run(&spec, &input, small), r);
}
