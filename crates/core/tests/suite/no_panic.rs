//! Untrusted text never panics the engine: procedure texts, exercise files
//! and learner SQL come back as values or errors, whatever they contain.
//! (proptest runs natively; the wasm runs share the engine's code paths.)

#![cfg(not(target_arch = "wasm32"))]

use fencelab_core::{Exercise, Procedure, Values, World};
use proptest::prelude::*;

/// Text drawn from SQL's and TOML's own punctuation and keywords, so the
/// generator reaches the parsers' interesting corners.
fn sqlish() -> impl Strategy<Value = String> {
    let pieces = prop::sample::select(vec![
        "SELECT ",
        "UPDATE ",
        "t ",
        "SET ",
        "x = 1",
        ";",
        "'",
        "\"",
        "--",
        " @refuse ",
        " @return ",
        " @effect ",
        "unless ",
        "changed ",
        "returned ",
        "1",
        "\n",
        "/*",
        "*/",
        ":now",
        ":",
        "(",
        ")",
        "BEGIN",
        "COMMIT",
        "WITH RECURSIVE ",
        "[",
        "]",
        "=",
        "{",
        "}",
        "é",
        "\u{0}",
    ]);
    prop::collection::vec(pieces, 0..40).prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn procedure_texts_parse_or_fail_cleanly(text in sqlish()) {
        let _ = Procedure::parse("p", &text);
    }

    #[test]
    fn exercise_files_load_or_fail_cleanly(text in sqlish()) {
        let _ = Exercise::from_toml("fuzz.toml", &text);
        let _ = Exercise::from_toml("fuzz.toml", &format!("format = 1\nid = \"x\"\n{text}"));
    }

    #[test]
    fn learner_sql_runs_or_fails_cleanly(text in sqlish()) {
        if let Ok(procedure) = Procedure::parse("p", &text) {
            let mut world = World::new("CREATE TABLE t (x);", [procedure], Values::new()).unwrap();
            let process = world.start_process("worker-a").unwrap();
            let _ = world.run_call(process, "p", Values::new());
            world.reset().unwrap();
        }
    }
}
