//! One scenario's report: its result, the schedule it shows, the history
//! and beliefs of that schedule, what exploring took, and the reader that
//! takes it back from JSON; a scenario driven by hand is a [`Drive`].

use super::{Failure, ScenarioError, ScenarioResult, Verdict};
use crate::history::{Event, TableRows};
use crate::monitor::Belief;
use crate::scenario::Scenario;
use crate::schedule::Schedule;
use serde::{Deserialize, Serialize};

/// How much exploring a scenario took.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Exploration {
    /// Concurrent sections in the scenario.
    pub sections: u32,
    /// Schedules run to the scenario's end.
    pub schedules: u64,
    /// Branches cut because their state had been reached before.
    pub pruned: u64,
    /// Distinct states seen inside concurrent sections, at the points where
    /// no process holds the write lock (only there can the committed rows be
    /// read, and only there are states compared).
    pub states: u64,
    /// What the check spent, over every run it made (pruned ones and the
    /// replay of the shown schedule included), in the units its limits are
    /// set in: procedure steps, SQLite steps (VM instructions and metered
    /// text work), and the most bytes it held at once of explored states and
    /// recorded history, by the engine's own accounting. Every VM
    /// instruction SQLite counts for a learner's statement or a scenario's
    /// query is charged, whatever ran before it; direct SQL and the
    /// schema are charged 1,000 instructions at a time (the budget's check
    /// interval).
    #[serde(default)]
    pub procedure_steps: u64,
    #[serde(default)]
    pub sqlite_steps: u64,
    #[serde(default)]
    pub memory_bytes: u64,
    /// For a random search: the seed its schedules were drawn from, which
    /// `fencelab explore --random N --seed S` replays.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
}

/// A scenario process's label, id, actor and name, for the timeline's lanes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lane {
    /// The scenario's label for the process: the word its schedule moves
    /// it by (`a1`).
    pub name: String,
    pub process: String,
    pub actor: String,
    /// What a reader calls it (crate::naming): `host-a #1`.
    pub called: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "ScenarioReportJson")]
pub struct ScenarioReport {
    pub name: String,
    pub summary: String,
    /// In JSON, flattened: `"verdict"` beside the name, with `"failure"` or
    /// `"error"` when there is one, as a CI job reading `--json` expects.
    /// Read back through [`ScenarioReportJson`], not serde's `flatten`.
    #[serde(flatten)]
    pub result: ScenarioResult,
    /// The schedule whose history is shown: the shortest failing one, or the
    /// first one explored.
    pub schedule: Schedule,
    pub exploration: Exploration,
    pub lanes: Vec<Lane>,
    /// The exercise's tables before the scenario's first step; with each
    /// event's row changes they give the tables after any step.
    pub initial_tables: Vec<TableRows>,
    pub history: Vec<Event>,
    /// What the processes believe they hold after each event of `history`
    /// (leases that lapsed by the event's clock left out), as the checker's
    /// monitor saw it: one entry per event.
    pub beliefs: Vec<Vec<Belief>>,
}

/// A [`ScenarioReport`] as its JSON is read: the result's fields beside the
/// others, as `flatten` writes them. Reading them with `flatten` made serde
/// buffer each whole report (its history, tables and beliefs) as untyped
/// content and read it a second time from there, and compiled every type
/// inside a report twice, once for each reader: the page's wasm reads the
/// worker's reports, and carried both.
#[derive(Deserialize)]
struct ScenarioReportJson {
    name: String,
    summary: String,
    verdict: Verdict,
    #[serde(default)]
    failure: Option<Failure>,
    #[serde(default)]
    error: Option<ScenarioError>,
    schedule: Schedule,
    exploration: Exploration,
    lanes: Vec<Lane>,
    initial_tables: Vec<TableRows>,
    history: Vec<Event>,
    beliefs: Vec<Vec<Belief>>,
}

impl TryFrom<ScenarioReportJson> for ScenarioReport {
    type Error = String;

    fn try_from(json: ScenarioReportJson) -> Result<ScenarioReport, String> {
        let result = match (json.verdict, json.failure, json.error) {
            (Verdict::Passed, None, None) => ScenarioResult::Passed,
            (Verdict::LimitShown, None, None) => ScenarioResult::LimitShown,
            (Verdict::Failed, Some(failure), None) => ScenarioResult::Failed { failure },
            (Verdict::Error, None, Some(error)) => ScenarioResult::Error { error },
            (verdict, _, _) => {
                let carries = match verdict {
                    Verdict::Passed | Verdict::LimitShown => "neither `failure` nor `error`",
                    Verdict::Failed => "a `failure` and no `error`",
                    Verdict::Error => "an `error` and no `failure`",
                };
                return Err(format!(
                    "scenario `{}`: a {} verdict carries {carries}",
                    json.name,
                    verdict.word()
                ));
            }
        };
        Ok(ScenarioReport {
            name: json.name,
            summary: json.summary,
            result,
            schedule: json.schedule,
            exploration: json.exploration,
            lanes: json.lanes,
            initial_tables: json.initial_tables,
            history: json.history,
            beliefs: json.beliefs,
        })
    }
}

impl ScenarioReport {
    /// The report of a scenario that could not run at all (its procedures do
    /// not parse, its steps are malformed).
    pub fn errored(scenario: &Scenario, error: ScenarioError) -> ScenarioReport {
        ScenarioReport {
            name: scenario.name.clone(),
            summary: scenario.summary.clone(),
            result: ScenarioResult::Error { error },
            schedule: Schedule::new(),
            exploration: Exploration::default(),
            lanes: Vec::new(),
            initial_tables: Vec::new(),
            history: Vec::new(),
            beliefs: Vec::new(),
        }
    }

    pub fn verdict(&self) -> Verdict {
        self.result.verdict()
    }

    /// True for "passed" and "limit shown".
    pub fn passed(&self) -> bool {
        matches!(
            self.result,
            ScenarioResult::Passed | ScenarioResult::LimitShown
        )
    }

    pub fn failure(&self) -> Option<&Failure> {
        match &self.result {
            ScenarioResult::Failed { failure } => Some(failure),
            _ => None,
        }
    }

    pub fn error(&self) -> Option<&ScenarioError> {
        match &self.result {
            ScenarioResult::Error { error } => Some(error),
            _ => None,
        }
    }

    /// The failure's or the error's sentence, if there is one.
    pub fn problem(&self) -> Option<String> {
        match &self.result {
            ScenarioResult::Failed { failure } => Some(failure.to_string()),
            ScenarioResult::Error { error } => Some(error.to_string()),
            _ => None,
        }
    }

    /// The event a reader should look at first: where it broke, or the end.
    pub fn focus_event(&self) -> usize {
        self.failure()
            .and_then(|f| f.event_index)
            .unwrap_or(self.history.len().saturating_sub(1))
    }

    /// The scenario's name for the process `process` (`proc-2`), if it has one.
    pub fn lane_name<'a>(&'a self, process: &'a str) -> &'a str {
        self.lanes
            .iter()
            .find(|l| l.process == process)
            .map_or(process, |l| l.name.as_str())
    }

    /// What a reader calls the process `process` (crate::naming): the same
    /// name its lane, its beliefs and the failure sentences use.
    pub fn called<'a>(&'a self, process: &'a str) -> &'a str {
        self.lanes
            .iter()
            .find(|l| l.process == process)
            .map_or(process, |l| l.called.as_str())
    }
}

/// A scenario driven by hand, one chosen step at a time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Drive {
    /// The history so far; once finished, the verdict of this schedule.
    pub report: ScenarioReport,
    /// The processes that may move next (empty once finished).
    pub options: Vec<String>,
    pub finished: bool,
    /// The statement each of `options` runs if it moves next, by index (an
    /// effect as `@effect NAME`; none where the move ends its call).
    /// Absent in older drives, which read it as empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub next: Vec<Option<String>>,
}

#[cfg(all(test, feature = "toml"))]
mod tests {
    use super::*;
    use crate::report::ErrorKind;
    use crate::report::fixtures::{failed, scenario};

    #[test]
    fn every_result_round_trips_beside_the_name_and_a_contradiction_is_refused() {
        let error = ScenarioResult::Error {
            error: ScenarioError::of(ErrorKind::Unusable {
                message: "no such table: t".into(),
            }),
        };
        for (report, verdict) in [
            (scenario("one", ScenarioResult::Passed), "passed"),
            (scenario("two", ScenarioResult::LimitShown), "limit_shown"),
            (failed("three"), "failed"),
            (scenario("four", error), "error"),
        ] {
            let json = serde_json::to_value(&report).expect("serializes");
            assert_eq!(json["verdict"], verdict, "{json}");
            assert_eq!(
                serde_json::from_value::<ScenarioReport>(json).ok(),
                Some(report)
            );
        }
        let mut json = serde_json::to_value(failed("five")).expect("serializes");
        let failure = json
            .as_object_mut()
            .and_then(|report| report.remove("failure"))
            .expect("a failed report's JSON has its failure");
        let refused = serde_json::from_value::<ScenarioReport>(json.clone())
            .expect_err("a failed verdict without its failure");
        assert!(
            refused
                .to_string()
                .contains("scenario `five`: a failed verdict carries a `failure` and no `error`"),
            "{refused}"
        );
        json["verdict"] = "passed".into();
        json["failure"] = failure;
        let refused = serde_json::from_value::<ScenarioReport>(json)
            .expect_err("a passed verdict with a failure");
        assert!(
            refused
                .to_string()
                .contains("a passed verdict carries neither `failure` nor `error`"),
            "{refused}"
        );
    }
}
