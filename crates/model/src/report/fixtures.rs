//! Reports for the tests of this module's files: a scenario with a given
//! result, a failed one, and a run of several.

use super::*;
use crate::scenario::Scenario;

pub(super) fn scenario(name: &str, result: ScenarioResult) -> ScenarioReport {
    let scenario: Scenario =
        toml::from_str(&format!("name = \"{name}\"\nsteps = []")).expect("a scenario");
    ScenarioReport {
        result,
        ..ScenarioReport::errored(
            &scenario,
            ScenarioError::of(ErrorKind::Unusable {
                message: "replaced".into(),
            }),
        )
    }
}

pub(super) fn failed(name: &str) -> ScenarioReport {
    scenario(
        name,
        ScenarioResult::Failed {
            failure: Failure::new(
                FailureCause::Deadlock {
                    processes: vec!["proc-1".into(), "proc-2".into()],
                },
                Some(3),
            ),
        },
    )
}

pub(super) fn run(scenarios: Vec<ScenarioReport>) -> ExerciseReport {
    ExerciseReport::new("draft", scenarios)
}
