//! The exploration benchmark, natively: schedules and runs per scenario
//! with the plain and the reduced explorer, and how many a second each
//! explores checking every scenario of each bundled exercise (criterion
//! times the same work). tests/wasm_explore_bench.rs prints the same lines
//! from wasm; `cargo xtask bench` collects both into one table.

// criterion runs natively only; on wasm32 this target is an empty program,
// so `--all-targets` builds for wasm32 still compile.
#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
#[path = "../tests/explore_bench/mod.rs"]
mod figures;

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    native::print_lines();
    native::benches();
    criterion::Criterion::default()
        .configure_from_args()
        .final_summary();
}

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use super::figures::{
        RENEWED, STRATEGIES, check_all, check_all_renewed, exercises, rate_lines, scenario_lines,
    };
    use criterion::{Criterion, criterion_group};
    use std::hint::black_box;
    use std::time::Instant;

    /// Rounds timed for each exercise's rate line.
    const ROUNDS: u32 = 10;

    pub fn print_lines() {
        for exercise in exercises() {
            for line in scenario_lines(&exercise) {
                println!("{line}");
            }
            for (strategy, name) in STRATEGIES {
                let reports = check_all(&exercise, strategy);
                let started = Instant::now();
                for _ in 0..ROUNDS {
                    black_box(check_all(&exercise, strategy));
                }
                let millis = started.elapsed().as_secs_f64() * 1000.0 / f64::from(ROUNDS);
                for line in rate_lines(&exercise, name, "native", &reports, millis) {
                    println!("{line}");
                }
            }
            for (resuming, name) in RENEWED {
                let mut kept = None;
                let reports = check_all_renewed(&exercise, &mut kept, resuming);
                let started = Instant::now();
                for _ in 0..ROUNDS {
                    black_box(check_all_renewed(&exercise, &mut kept, resuming));
                }
                let millis = started.elapsed().as_secs_f64() * 1000.0 / f64::from(ROUNDS);
                for line in rate_lines(&exercise, name, "native", &reports, millis) {
                    println!("{line}");
                }
            }
        }
    }

    fn explore_exercises(c: &mut Criterion) {
        let mut group = c.benchmark_group("explore every scenario of an exercise");
        for exercise in exercises() {
            for (strategy, name) in STRATEGIES {
                group.bench_function(format!("{} ({name})", exercise.id), |b| {
                    b.iter(|| black_box(check_all(&exercise, strategy)))
                });
            }
        }
        group.finish();
    }

    criterion_group!(benches, explore_exercises);
}
