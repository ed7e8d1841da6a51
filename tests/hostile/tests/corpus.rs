//! Runs every case of the hostile corpus, natively and in wasm, and prints
//! each case's figures and the worst of each.

use fencelab_hostile::{CASES, Figures, judge, parse, run};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

#[test]
fn every_hostile_input_ends_within_its_budget_with_the_message_a_user_must_see() {
    assert!(CASES.len() >= 200, "the corpus has {} cases", CASES.len());
    let mut failures = Vec::new();
    let mut worst = Figures::default();
    let mut worst_names = [""; 4];
    println!(
        "{:<58} {:>12} {:>12} {:>10} {:>12}",
        "case", "sqlite steps", "suite steps", "memory", "sqlite heap"
    );
    for (name, text) in CASES {
        let case = match parse(name, text) {
            Ok(case) => case,
            Err(error) => {
                failures.push(error);
                continue;
            }
        };
        let ran = run(&case);
        let f = ran.figures;
        println!(
            "{name:<58} {:>12} {:>12} {:>10} {:>12}",
            f.sqlite_steps, f.suite_sqlite_steps, f.memory_bytes, f.sqlite_heap_bytes
        );
        let seen = ran
            .rejected
            .clone()
            .or_else(|| ran.errors.first().cloned())
            .or_else(|| {
                ran.reports
                    .iter()
                    .flat_map(|r| &r.scenarios)
                    .find_map(|s| s.problem())
            });
        let seen = match (ran.elsewhere, ran.skipped, seen) {
            (Some(runner), _, _) => format!("(a command case: {runner} runs it)"),
            (None, true, _) => "(a case of the command line: not run in wasm)".to_string(),
            (None, false, seen) => seen.unwrap_or_else(|| "(every scenario passed)".into()),
        };
        // Hostile messages hold what would steer the terminal this prints to.
        println!("    {}", fencelab_model::text::visible_lines(&seen));
        for (i, (value, best)) in [
            (f.sqlite_steps, &mut worst.sqlite_steps),
            (f.suite_sqlite_steps, &mut worst.suite_sqlite_steps),
            (f.memory_bytes, &mut worst.memory_bytes),
            (f.sqlite_heap_bytes, &mut worst.sqlite_heap_bytes),
        ]
        .into_iter()
        .enumerate()
        {
            if value > *best {
                *best = value;
                worst_names[i] = name;
            }
        }
        for reason in judge(&case, &ran) {
            failures.push(format!("{name} ({}): {reason}", case.about));
        }
    }
    println!(
        "worst: {} SQLite steps in one scenario ({}), {} in one suite ({}), {} bytes held ({}), \
         SQLite heap {} bytes ({})",
        worst.sqlite_steps,
        worst_names[0],
        worst.suite_sqlite_steps,
        worst_names[1],
        worst.memory_bytes,
        worst_names[2],
        worst.sqlite_heap_bytes,
        worst_names[3]
    );
    assert!(
        failures.is_empty(),
        "{} of {} cases are wrong:\n{}",
        failures.len(),
        CASES.len(),
        failures.join("\n")
    );
}
