//! Every "Architecture invariant" of docs/ARCHITECTURE.md names what holds
//! it: a test function, a test file, or a checking stage of `cargo xtask
//! test`. An invariant that no test holds is a wish; the map says only what
//! something checks on every run.
//!
//! An invariant is the paragraph (up to a blank line) whose first line says
//! "Architecture invariant". What counts as naming its holder, in
//! backticks: the name of a `#[test]` function of the tree; a path of the
//! tree under a `tests/` folder or ending in `tests.rs`; or `cargo xtask
//! CHECK` for one of [`CHECKS`].

use super::{Problem, answers, backticked, known_paths};
use std::collections::BTreeSet;

/// The words that open an invariant in the map.
const OPENING: &str = "Architecture invariant";

/// The `cargo xtask` subcommands that are checks run by `cargo xtask test`.
const CHECKS: &[&str] = &[
    "tidy",
    "sizes",
    "fuzz-check",
    "static-check",
    "junit-check",
    "walkthroughs",
];

/// The names of the `#[test]` functions in `text`, one Rust file: the
/// function that follows the attribute, other attributes and comments
/// between them allowed.
pub fn test_functions(text: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut after_test = false;
    for line in text.lines().map(str::trim) {
        if line == "#[test]" {
            after_test = true;
            continue;
        }
        if !after_test {
            continue;
        }
        if line.starts_with("#[") || line.starts_with("//") || line.is_empty() {
            continue;
        }
        let signature = line
            .trim_start_matches("pub ")
            .trim_start_matches("async ")
            .strip_prefix("fn ");
        if let Some(rest) = signature {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                names.push(name);
            }
        }
        after_test = false;
    }
    names
}

/// The invariants of `text` (the map, `doc`) that name no holder, given the
/// tree's `files` and the `tests` functions found in it.
pub fn unheld_invariants(
    doc: &str,
    text: &str,
    files: &[String],
    tests: &BTreeSet<String>,
) -> Vec<Problem> {
    let known = known_paths(files);
    let test_path = |name: &str| {
        let name = name.trim_end_matches('/');
        (name.starts_with("tests/") || name.contains("/tests/") || name.ends_with("tests.rs"))
            && answers(name, &known)
    };
    let check = |name: &str| {
        name.strip_prefix("cargo xtask ")
            .is_some_and(|command| CHECKS.contains(&command))
    };
    let names_holder = |line: &str| {
        backticked(line).any(|name| {
            let bare = name.trim_end_matches("()");
            tests.contains(bare) || test_path(name) || check(name)
        })
    };
    let lines: Vec<&str> = text.lines().collect();
    let mut problems = Vec::new();
    for (start, line) in lines.iter().enumerate() {
        if !line.contains(OPENING) {
            continue;
        }
        let paragraph = lines[start..]
            .iter()
            .take_while(|l| !l.trim().is_empty())
            .enumerate()
            .take_while(|(i, l)| *i == 0 || !l.contains(OPENING));
        let held = paragraph.map(|(_, l)| *l).any(names_holder);
        if !held {
            problems.push(Problem {
                file: doc.to_string(),
                line: start + 1,
                what: "states an architecture invariant without naming the test that holds it \
                       (a `#[test]` function, a file under tests/, or `cargo xtask CHECK`)"
                    .into(),
            });
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_test_functions_of_a_file_are_found_past_attributes_and_comments() {
        let text = "#[test]\nfn plain() {}\n\
                    #[test]\n#[cfg(not(target_arch = \"wasm32\"))]\n// why\npub fn public() {}\n\
                    fn helper() {}\n\
                    #[test]\nasync fn waited() {}\n";
        assert_eq!(test_functions(text), ["plain", "public", "waited"]);
    }

    #[test]
    fn an_invariant_must_name_a_test_a_test_file_or_a_check() {
        let files: Vec<String> = [
            "crates/core/tests/suite/engine.rs",
            "crates/core/src/lib.rs",
        ]
        .iter()
        .map(|p| p.to_string())
        .collect();
        let tests = BTreeSet::from(["the_engine_never_panics".to_string()]);
        let doc = "# Map\n\
                   Architecture invariant: held by a test, `the_engine_never_panics`.\n\
                   \n\
                   Architecture invariant: over two lines,\n\
                   held by `crates/core/tests/suite/engine.rs`.\n\
                   \n\
                   Architecture invariant: a check, `cargo xtask sizes`.\n\
                   \n\
                   Architecture invariant: only a source file, `crates/core/src/lib.rs`.\n\
                   \n\
                   Architecture invariant: a wish, held by nothing.\n\
                   Architecture invariant: the next one does not lend this one `cargo xtask tidy`.\n\
                   \n\
                   Architecture invariant: a command that is no check, `cargo xtask serve`.\n";
        let lines: Vec<usize> = unheld_invariants("docs/ARCHITECTURE.md", doc, &files, &tests)
            .iter()
            .map(|p| p.line)
            .collect();
        assert_eq!(lines, [9, 11, 14]);
    }
}
