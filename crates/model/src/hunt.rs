//! "Break it yourself": whether a schedule the learner drove by hand broke a
//! guarantee of its scenario, as a typed verdict the page renders.
//!
//! The learner is the scheduler. No fixed answer is compared against: the
//! checker's own judgement of the driven schedule decides (its monitor's
//! invariants, the scenario's expectations and queries, a deadlock), so any
//! schedule that breaks any guarantee wins. The length the learner's break
//! is compared with is the shortest failing schedule the checker's own
//! exploration of the same scenario and texts reports.
//!
//! Must never: recompute a verdict, or read anything but the reports it is
//! given.

use crate::report::{Drive, Failure, FailureKind, ScenarioError, ScenarioReport, ScenarioResult};
use crate::schedule::Schedule;
use serde::{Deserialize, Deserializer, Serialize};
use std::fmt;

/// The broken text a challenge hands the learner: what a hunt is on, as
/// links, saved progress and embeds name it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HuntText {
    /// The exercise's starting texts.
    Start,
    /// A named broken variant (`[[mutants]]`).
    Variant(String),
}

impl HuntText {
    /// "the starting text", "the broken variant “read, then write”".
    pub fn label(&self) -> String {
        match self {
            HuntText::Start => "the starting text".into(),
            HuntText::Variant(name) => format!("the broken variant “{name}”"),
        }
    }
}

/// A hunt's state after the learner's latest move. Read through
/// [`HuntVerdictRead`] (`tag_first.rs`).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "hunt", rename_all = "snake_case")]
pub enum HuntVerdict {
    /// The scenario has not reached its end: the learner moves on.
    Going,
    /// The learner's schedule broke a guarantee: a win (boxed: a break
    /// carries the whole failure, the other states next to nothing).
    Broken(Box<Break>),
    /// The scenario ran to its end and every guarantee held: not a win.
    Held,
    /// The scenario could not be judged on this schedule (an SQL error, an
    /// exploration limit): not a win, and not a hold either.
    Unjudged { error: ScenarioError },
}

/// [`HuntVerdict`] as `tag_first::read` reads it: its variants,
/// externally tagged.
#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum HuntVerdictRead {
    Going,
    Broken(Box<Break>),
    Held,
    Unjudged { error: ScenarioError },
}

impl From<HuntVerdictRead> for HuntVerdict {
    fn from(read: HuntVerdictRead) -> HuntVerdict {
        match read {
            HuntVerdictRead::Going => HuntVerdict::Going,
            HuntVerdictRead::Broken(found) => HuntVerdict::Broken(found),
            HuntVerdictRead::Held => HuntVerdict::Held,
            HuntVerdictRead::Unjudged { error } => HuntVerdict::Unjudged { error },
        }
    }
}

impl<'de> Deserialize<'de> for HuntVerdict {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<HuntVerdict, D::Error> {
        crate::tag_first::read::<D, HuntVerdict, HuntVerdictRead>(deserializer, "hunt")
    }
}

/// A break the learner found.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Break {
    /// What broke, as the checker judged the learner's schedule.
    pub failure: Failure,
    /// The learner's schedule: the moves made until it broke.
    pub schedule: Schedule,
    /// The moves of the shortest schedule that breaks a guarantee of this
    /// scenario, by the checker's exploration of every interleaving. `None`
    /// when that exploration gave no failing schedule to measure (it stopped
    /// at a limit, or met an error, which it shows before any failure).
    pub shortest_moves: Option<usize>,
}

impl Break {
    /// The moves the learner's schedule took.
    pub fn moves(&self) -> usize {
        self.schedule.len()
    }

    pub fn kind(&self) -> FailureKind {
        self.failure.kind()
    }

    /// "Yours took 9 moves; the shortest takes 6 moves."
    pub fn lengths(&self) -> String {
        let yours = self.moves();
        match self.shortest_moves {
            Some(shortest) if shortest == yours => {
                format!("Yours took {}: as short as a break gets.", moves(yours))
            }
            Some(shortest) => format!(
                "Yours took {}; the shortest takes {}.",
                moves(yours),
                moves(shortest)
            ),
            None => format!(
                "Yours took {}; the shortest could not be measured.",
                moves(yours)
            ),
        }
    }
}

/// "1 move", "6 moves".
fn moves(count: usize) -> String {
    format!("{count} move{}", if count == 1 { "" } else { "s" })
}

impl fmt::Display for Break {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "You broke it: {}. {}", self.failure, self.lengths())
    }
}

impl HuntVerdict {
    /// Judges a drive. `explore` is asked for the checker's report of the
    /// same scenario over every interleaving only when the drive broke
    /// something, since only a break is measured against the shortest.
    pub fn judge(drive: &Drive, explore: impl FnOnce() -> ScenarioReport) -> HuntVerdict {
        if !drive.finished {
            return HuntVerdict::Going;
        }
        match &drive.report.result {
            ScenarioResult::Passed | ScenarioResult::LimitShown => HuntVerdict::Held,
            ScenarioResult::Error { error } => HuntVerdict::Unjudged {
                error: error.clone(),
            },
            ScenarioResult::Failed { failure } => {
                let explored = explore();
                HuntVerdict::Broken(Box::new(Break {
                    failure: failure.clone(),
                    schedule: drive.report.schedule.clone(),
                    shortest_moves: explored.failure().map(|_| explored.schedule.len()),
                }))
            }
        }
    }

    /// The break, when the hunt has won.
    pub fn found(&self) -> Option<&Break> {
        match self {
            HuntVerdict::Broken(found) => Some(found.as_ref()),
            _ => None,
        }
    }
}

/// A drive and its verdict as a hunt.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Hunt {
    pub drive: Drive,
    pub verdict: HuntVerdict,
}

#[cfg(all(test, feature = "toml"))]
mod tests {
    use super::*;
    use crate::report::{ErrorKind, FailureCause};
    use crate::scenario::Scenario;

    fn report(result: ScenarioResult, schedule: &str) -> ScenarioReport {
        let scenario: Scenario = toml::from_str("name = \"one winner\"\nsteps = []").unwrap();
        ScenarioReport {
            result,
            schedule: Schedule::parse(schedule).unwrap(),
            ..ScenarioReport::errored(
                &scenario,
                ScenarioError::of(ErrorKind::Unusable {
                    message: "replaced".into(),
                }),
            )
        }
    }

    fn failed() -> ScenarioResult {
        ScenarioResult::Failed {
            failure: Failure::new(
                FailureCause::Deadlock {
                    processes: vec!["a".into(), "b".into()],
                },
                Some(4),
            ),
        }
    }

    fn drive(result: ScenarioResult, schedule: &str, finished: bool) -> Drive {
        Drive {
            report: report(result, schedule),
            options: if finished {
                Vec::new()
            } else {
                vec!["a".into()]
            },
            finished,
            next: Vec::new(),
        }
    }

    /// Read through its mirror (`tag_first.rs`): every variant comes back.
    #[test]
    fn every_verdict_reads_back_from_its_json() {
        let broken =
            HuntVerdict::judge(&drive(failed(), "a a b", true), || report(failed(), "a b"));
        assert!(matches!(broken, HuntVerdict::Broken(_)), "{broken:?}");
        let unjudged = HuntVerdict::Unjudged {
            error: ScenarioError::of(ErrorKind::Unusable {
                message: "no such table: t".into(),
            }),
        };
        for verdict in [HuntVerdict::Going, broken, HuntVerdict::Held, unjudged] {
            let json = serde_json::to_string(&verdict).unwrap();
            let read: HuntVerdict = serde_json::from_str(&json).unwrap();
            assert_eq!(read, verdict, "{json}");
        }
    }

    #[test]
    fn a_break_is_measured_against_the_shortest_failing_schedule_explored() {
        let mut asked = 0;
        let verdict = HuntVerdict::judge(&drive(failed(), "a a b a b", true), || {
            asked += 1;
            report(failed(), "a b a")
        });
        assert_eq!(asked, 1);
        let found = verdict.found().expect("a win");
        assert_eq!((found.moves(), found.shortest_moves), (5, Some(3)));
        assert_eq!(
            found.to_string(),
            "You broke it: deadlock: a and b each wait for a lock another holds. \
             Yours took 5 moves; the shortest takes 3 moves."
        );
        assert_eq!(found.kind(), FailureKind::Deadlock);
    }

    #[test]
    fn only_a_finished_failing_drive_wins() {
        let never = || -> ScenarioReport { panic!("explored without a break") };
        assert_eq!(
            HuntVerdict::judge(&drive(ScenarioResult::Passed, "a b", false), never),
            HuntVerdict::Going
        );
        assert_eq!(
            HuntVerdict::judge(&drive(ScenarioResult::Passed, "a b", true), never),
            HuntVerdict::Held
        );
        assert_eq!(
            HuntVerdict::judge(&drive(ScenarioResult::LimitShown, "a b", true), never),
            HuntVerdict::Held
        );
        let error = ScenarioResult::Error {
            error: ScenarioError::of(ErrorKind::Unusable {
                message: "no such table: t".into(),
            }),
        };
        assert!(matches!(
            HuntVerdict::judge(&drive(error, "a", true), never),
            HuntVerdict::Unjudged { .. }
        ));
    }

    #[test]
    fn an_exploration_without_a_failure_leaves_the_shortest_unmeasured() {
        let limit = ScenarioResult::Error {
            error: ScenarioError::of(ErrorKind::Unusable {
                message: "exploration stopped at its limit".into(),
            }),
        };
        let verdict = HuntVerdict::judge(&drive(failed(), "a", true), || report(limit, "a b"));
        let found = verdict.found().expect("still a win");
        assert_eq!(found.shortest_moves, None);
        assert_eq!(
            found.lengths(),
            "Yours took 1 move; the shortest could not be measured."
        );
        let equal = Break {
            shortest_moves: Some(1),
            ..found.clone()
        };
        assert_eq!(
            equal.lengths(),
            "Yours took 1 move: as short as a break gets."
        );
    }

    #[test]
    fn a_hunt_round_trips_through_json() {
        let hunt = Hunt {
            drive: drive(failed(), "a b", true),
            verdict: HuntVerdict::judge(&drive(failed(), "a b", true), || report(failed(), "b")),
        };
        let json = serde_json::to_string(&hunt).unwrap();
        assert_eq!(serde_json::from_str::<Hunt>(&json).unwrap(), hunt);
    }
}
