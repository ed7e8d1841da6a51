//! A run of every scenario against one set of texts ([`ExerciseReport`]),
//! its count in the one sentence every reader says ([`Tally`]), and why
//! texts could not be run at all ([`Unusable`]).

use super::{ScenarioError, ScenarioReport, Verdict};
use crate::scenario::Scenario;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Every scenario's verdict for one set of procedure texts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExerciseReport {
    pub exercise: String,
    pub scenarios: Vec<ScenarioReport>,
    /// Scenarios whose verdict is passed or limit shown.
    pub passed: usize,
    pub failed: usize,
}

impl ExerciseReport {
    /// Counts the passing (passed or limit shown) and failing scenarios.
    pub fn new(exercise: &str, scenarios: Vec<ScenarioReport>) -> ExerciseReport {
        let passed = scenarios.iter().filter(|s| s.passed()).count();
        ExerciseReport {
            exercise: exercise.to_string(),
            failed: scenarios.len() - passed,
            passed,
            scenarios,
        }
    }

    /// The passes and the limits shown, counted apart, as every reader
    /// says them.
    pub fn tally(&self) -> Tally {
        Tally::of(self.scenarios.iter().map(ScenarioReport::verdict))
    }
}

/// How many scenarios pass out of those that test the texts, and how many
/// show a limit, counted apart: a limit shown is never a pass, so a count
/// of passes never includes one. Its `Display` is the one sentence of the
/// count ("7 of 7 scenarios pass, 4 limits shown"); the page, its
/// announcement and the CLI all say it so. (`ExerciseReport::passed`, on
/// the wire, still counts both: a reader asking "did anything fail" wants
/// that.)
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Scenarios whose verdict is "passed".
    pub passed: usize,
    /// Scenarios that test the texts: every one but the limits shown.
    pub tested: usize,
    /// Scenarios whose verdict is "limit shown".
    pub limits: usize,
}

impl Tally {
    /// The count of `verdicts`.
    pub fn of(verdicts: impl IntoIterator<Item = Verdict>) -> Tally {
        let mut tally = Tally::default();
        for verdict in verdicts {
            match verdict {
                Verdict::LimitShown => tally.limits += 1,
                Verdict::Passed => {
                    tally.passed += 1;
                    tally.tested += 1;
                }
                Verdict::Failed | Verdict::Error => tally.tested += 1,
            }
        }
        tally
    }

    /// Whether nothing failed or errored (limits shown are no failure).
    pub fn all_pass(&self) -> bool {
        self.passed == self.tested
    }

    /// The limits shown in words ("1 limit shown", "4 limits shown"), or
    /// `None` when there are none.
    pub fn limits_shown(&self) -> Option<String> {
        let plural = if self.limits == 1 { "" } else { "s" };
        (self.limits > 0).then(|| format!("{} limit{plural} shown", self.limits))
    }
}

impl fmt::Display for Tally {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.tested > 0 || self.limits == 0 {
            let said = if self.tested == 1 {
                "scenario passes"
            } else {
                "scenarios pass"
            };
            write!(f, "{} of {} {said}", self.passed, self.tested)?;
        }
        if let Some(limits) = self.limits_shown() {
            if self.tested > 0 {
                f.write_str(", ")?;
            }
            f.write_str(&limits)?;
        }
        Ok(())
    }
}

/// Why procedure texts cannot be checked at all: one does not parse, or the
/// world cannot be built. Every scenario's verdict is then this error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unusable {
    pub error: ScenarioError,
}

impl Unusable {
    /// The "error" report of `scenario` for these texts.
    pub fn report(&self, scenario: &Scenario) -> ScenarioReport {
        ScenarioReport::errored(scenario, self.error.clone())
    }
}

#[cfg(all(test, feature = "toml"))]
mod tests {
    use crate::report::ScenarioResult;
    use crate::report::fixtures::{failed, run, scenario};

    #[test]
    fn a_tally_counts_limits_apart_from_passes() {
        let report = run(vec![
            scenario("one", ScenarioResult::Passed),
            scenario("two", ScenarioResult::LimitShown),
            scenario("three", ScenarioResult::LimitShown),
            failed("four"),
        ]);
        let tally = report.tally();
        assert_eq!((tally.passed, tally.tested, tally.limits), (1, 2, 2));
        assert!(!tally.all_pass());
        assert_eq!(tally.to_string(), "1 of 2 scenarios pass, 2 limits shown");
        let plain = run(vec![scenario("one", ScenarioResult::Passed), failed("two")]);
        assert_eq!(plain.tally().to_string(), "1 of 2 scenarios pass");
        let one = run(vec![
            scenario("one", ScenarioResult::Passed),
            scenario("two", ScenarioResult::LimitShown),
        ]);
        assert_eq!(
            one.tally().to_string(),
            "1 of 1 scenario passes, 1 limit shown"
        );
        assert!(one.tally().all_pass());
        let limits = run(vec![scenario("two", ScenarioResult::LimitShown)]);
        assert_eq!(limits.tally().to_string(), "1 limit shown");
    }
}
