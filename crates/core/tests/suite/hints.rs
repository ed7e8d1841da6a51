//! Every bundled exercise's hints, followed in order as a learner follows
//! them, reach a pass. The rule the hints keep: a hint may end with the
//! whole text of a procedure the learner edits, as a fenced block whose
//! info string names it (```` ```sql claim ````), and the page's reader puts
//! it in that editor; the texts so reached, in place of the starting ones,
//! pass every scenario. Read from the hint texts in the files, never from
//! the references: a reference that moves on without its hint fails here.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use fencelab_core::{ExerciseExt, Verdict, bundled};
use std::collections::BTreeMap;

/// The procedure texts a hint gives, by procedure: each ```` ```sql NAME ````
/// block's lines up to its closing fence.
fn blocks(hint: &str) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let mut lines = hint.lines();
    while let Some(line) = lines.next() {
        let Some(name) = line.trim().strip_prefix("```sql ") else {
            continue;
        };
        let text: Vec<&str> = lines.by_ref().take_while(|l| l.trim() != "```").collect();
        found.push((name.trim().to_string(), text.join("\n") + "\n"));
    }
    found
}

#[test]
fn a_block_is_read_with_its_procedure_and_nothing_else() {
    let hint = "Put it together:\n\n```sql claim\nCOMMIT;\n-- @return token\n```\n\nand `x`.";
    assert_eq!(
        blocks(hint),
        [(
            "claim".to_string(),
            "COMMIT;\n-- @return token\n".to_string()
        )]
    );
    assert!(blocks("Put `AND state = 'NEW'` in the WHERE clause.").is_empty());
}

#[test]
fn every_exercises_hints_followed_in_order_reach_a_pass() {
    let exercises = bundled::exercises().unwrap_or_else(|e| panic!("{e}"));
    let mut problems = Vec::new();
    for ((file, text), exercise) in bundled::FILES.iter().zip(&exercises) {
        let table: toml::Table = toml::from_str(text).unwrap_or_else(|e| panic!("{file}: {e}"));
        let hints: Vec<&str> = table
            .get("hints")
            .and_then(|h| h.as_array())
            .map(|h| h.iter().filter_map(|h| h.as_str()).collect())
            .unwrap_or_default();
        let mut texts: BTreeMap<String, String> = exercise
            .procedures
            .iter()
            .filter(|p| p.editable)
            .map(|p| (p.name.clone(), p.start.clone()))
            .collect();
        for (procedure, text) in hints.iter().flat_map(|hint| blocks(hint)) {
            match texts.get_mut(&procedure) {
                Some(editor) => *editor = text,
                None => problems.push(format!(
                    "{file}: a hint's block names `{procedure}`, which the learner does not edit"
                )),
            }
        }
        for report in exercise.run(&texts).scenarios {
            if !matches!(report.verdict(), Verdict::Passed | Verdict::LimitShown) {
                problems.push(format!(
                    "{file}: after all {} hints, `{}` is {}: {}",
                    hints.len(),
                    report.name,
                    report.verdict().word(),
                    report.problem().unwrap_or_default()
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
