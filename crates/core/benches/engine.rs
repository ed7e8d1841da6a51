//! Native benchmarks of the engine: a world reset, one full drive of a small
//! scenario, checking every scenario of each bundled exercise (what the
//! page does after every edit), reported in schedules per second, and the
//! claim/complete statements run by bare rusqlite and by the engine with
//! history off, on and by snapshots, beside 10 and 1,000 rows (workload/).
//! Under `cargo bench` it also prints the statement figures as BENCH lines.
//!
//! Run with `cargo xtask bench`, which also runs the wasm benchmark, so both
//! sets of figures come from one run on one machine.

// criterion runs natively only (tests/wasm_bench.rs times the same work in
// wasm); on wasm32 this target is an empty program, so `--all-targets`
// builds for wasm32 still compile.
#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
mod workload;

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    native::benches();
    criterion::Criterion::default()
        .configure_from_args()
        .final_summary();
    // `cargo test --benches` runs each benchmark once to see that it works;
    // only a real run (`cargo bench` passes --bench) times the statements.
    if std::env::args().any(|a| a == "--bench") {
        let origin = std::time::Instant::now();
        let now_ms = move || origin.elapsed().as_secs_f64() * 1000.0;
        for line in workload::run_all(now_ms, "native", 12, 3, 100.0) {
            println!("{line}");
        }
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use super::workload::{Bench, LARGE, Runner, SMALL, STATEMENTS_PER_ROUND};
    use criterion::{Criterion, Throughput, criterion_group};
    use fencelab_core::{Checker, ExerciseExt, Procedure, Values, World, bundled};
    use std::collections::BTreeMap;
    use std::hint::black_box;

    fn world_reset(c: &mut Criterion) {
        let exercise = &bundled::exercises().unwrap()[0];
        let mut world = World::new(&exercise.schema, [], Values::new()).unwrap();
        c.bench_function("world reset (seed rows put back)", |b| {
            b.iter(|| world.reset().unwrap())
        });
    }

    fn drive_one_schedule(c: &mut Criterion) {
        let exercise = &bundled::exercises().unwrap()[0];
        let procedures = exercise
            .texts_with(&BTreeMap::new())
            .into_iter()
            .map(|(name, text)| Procedure::parse(&name, &text).unwrap());
        let mut checker = Checker::new(
            &exercise.schema,
            procedures,
            exercise.constants.clone(),
            exercise.rules.clone(),
        )
        .unwrap();
        let scenario = &exercise.scenarios[0];
        let schedule = checker.check(scenario).schedule;
        c.bench_function("drive one schedule of `one winner`, with history", |b| {
            b.iter(|| black_box(checker.replay(scenario, &schedule)))
        });
    }

    fn check_exercises(c: &mut Criterion) {
        let mut group = c.benchmark_group("check every scenario of an exercise");
        for exercise in bundled::exercises().unwrap() {
            let edits = BTreeMap::new();
            let schedules: u64 = exercise
                .run(&edits)
                .scenarios
                .iter()
                .map(|s| s.exploration.schedules)
                .sum();
            group.throughput(Throughput::Elements(schedules));
            group.bench_function(&exercise.id, |b| b.iter(|| black_box(exercise.run(&edits))));
        }
        group.finish();
    }

    fn statements(c: &mut Criterion) {
        let mut group = c.benchmark_group("claim/complete statements");
        group.throughput(Throughput::Elements(u64::from(STATEMENTS_PER_ROUND)));
        for size in [SMALL, LARGE] {
            for runner in Runner::ALL {
                let mut bench = Bench::new(runner, size);
                group.bench_function(format!("{}, {}", runner.label(), size.label()), |b| {
                    b.iter(|| bench.round())
                });
            }
        }
        group.finish();
    }

    criterion_group!(
        benches,
        world_reset,
        drive_one_schedule,
        check_exercises,
        statements
    );
}
