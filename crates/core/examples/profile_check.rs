//! Checks one bundled exercise's references many times on a kept checker,
//! as the explore bench's "reduced, renewed" row (and the page's worker,
//! after an exercise's first edit) does, for profilers:
//! `valgrind --tool=callgrind target/release/examples/profile_check execution-attempts 10`.
//! Arguments: an exercise id (the first bundled one if none), a number of
//! rounds (10), each one check of every scenario, and `new` to check each
//! round on a new checker instead (the bench's "reduced, new checker" row,
//! an exercise's first check): profile it with
//! `--toggle-collect='*explore_bench::check_all'`.

#[path = "../tests/explore_bench/mod.rs"]
#[allow(
    dead_code,
    reason = "the example takes only the renewed workload of the benches' module"
)]
mod explore_bench;

fn main() {
    let mut args = std::env::args().skip(1);
    let id = args.next();
    let rounds: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(10);
    let exercises = explore_bench::exercises();
    let Some(exercise) = exercises
        .iter()
        .find(|e| id.as_deref().is_none_or(|id| e.id == id))
    else {
        eprintln!("no bundled exercise has the id {id:?}");
        std::process::exit(2);
    };
    let new_checker = args.next().as_deref() == Some("new");
    let mut kept = None;
    for _ in 0..rounds {
        if new_checker {
            std::hint::black_box(explore_bench::check_all(
                exercise,
                fencelab_core::check::Strategy::Reduced,
            ));
        } else {
            std::hint::black_box(explore_bench::check_all_renewed(exercise, &mut kept, true));
        }
    }
}
