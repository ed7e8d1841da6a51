//! Scenario files: `[[scenarios]]` tables kept apart from an exercise, such
//! as a course's extra counterexamples (`fencelab run --scenario-file FILE`).
//! Read with the same bounds and the same error places as exercise files.

use super::{EXERCISE_FILE_BYTES_MAX, LoadError, Places};
use crate::scenario::Scenario;
use serde::Deserialize;

/// Reads the scenarios of a scenario file, checking every step; `file`
/// names it in errors.
pub fn scenarios_from_toml(file: &str, text: &str) -> Result<Vec<Scenario>, LoadError> {
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct File {
        scenarios: Vec<toml::Spanned<Scenario>>,
    }
    let place = |offset: usize| {
        let before = &text[..offset.min(text.len())];
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        (line, column)
    };
    let error = |offset: usize, field: String, message: String| {
        let (line, column) = place(offset);
        LoadError {
            file: file.to_string(),
            line,
            column,
            field,
            message,
        }
    };
    if text.len() > EXERCISE_FILE_BYTES_MAX {
        return Err(error(
            0,
            "(file)".into(),
            format!(
                "the file is {} bytes; at most {EXERCISE_FILE_BYTES_MAX} are read",
                text.len()
            ),
        ));
    }
    let parsed: File = toml::from_str(text).map_err(|e| {
        let offset = e.span().map_or(0, |span| span.start);
        error(offset, "scenarios".into(), e.message().to_string())
    })?;
    let places = std::cell::OnceCell::new();
    let places = || places.get_or_init(|| Places::of(text));
    let mut scenarios = Vec::new();
    for (i, spanned) in parsed.scenarios.into_iter().enumerate() {
        let offset = spanned.span().start;
        let scenario = spanned.into_inner();
        if let Some(problem) = scenario.points_problem() {
            return Err(error(
                places().points(i).unwrap_or(offset),
                format!("scenarios[{i}].points (`{}`)", scenario.name),
                problem,
            ));
        }
        for (j, step) in scenario.steps.iter().enumerate() {
            step.to_action().map_err(|wrong| {
                error(
                    places().step(i, j).unwrap_or(offset),
                    format!("scenarios[{i}].steps[{j}] (`{}`)", scenario.name),
                    wrong.to_string(),
                )
            })?;
        }
        if let Some(problem) = scenario.sql_character_problem() {
            return Err(error(
                places().sql(i, problem.field).unwrap_or(offset),
                format!("scenarios[{i}].{} (`{}`)", problem.field, scenario.name),
                problem.sentence(),
            ));
        }
        scenarios.push(scenario);
    }
    Ok(scenarios)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn a_scenario_file_is_read_and_a_bad_step_is_named_at_its_place() {
        let good = r#"
[[scenarios]]
name = "alone"
summary = "one worker claims"
steps = [{ start = "a", actor = "worker-a" }]
"#;
        let scenarios = scenarios_from_toml("extra.toml", good).unwrap();
        assert_eq!(scenarios.len(), 1);
        assert_eq!(scenarios[0].name, "alone");

        let bad = "[[scenarios]]\nname = \"x\"\nsummary = \"s\"\nsteps = [{ fly = \"a\" }]\n";
        let error = scenarios_from_toml("extra.toml", bad).unwrap_err();
        assert_eq!(error.file, "extra.toml");
        assert!(error.line >= 1, "{error}");
        assert!(!error.message.is_empty());

        let error = scenarios_from_toml("extra.toml", "scenarios = 3").unwrap_err();
        assert_eq!(error.line, 1, "{error}");
    }
}
