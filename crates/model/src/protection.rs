//! Which lines of some procedure texts the scenarios protect, as data: one
//! mark per line, made from the verdicts on every generated mutant of the
//! texts ([`marks`]). The engine judges the mutants
//! (`fencelab_core::protection`); the page draws the marks in its editors and
//! `fencelab protect` prints them.
//!
//! A line is protected when a scenario catches some change to it: the mark
//! carries every caught removal from it (each predicate, statement or
//! decision) and every caught fence stamped later (the window between
//! taking a row and stamping its fence), or else the first caught change,
//! each with the scenario's failure and schedule, so a reader can replay
//! the counterexample. It is
//! unprotected when every change to it passes every scenario. A line whose
//! changes only make scenarios error gets no mark: an error is not a
//! counterexample, and it is not silence either. A change the exercise
//! declares equivalent (`[[equivalent]]`) is never a gap. Every other line
//! that is not blank says why it has no mark (only errors, only declared
//! equivalents, or no change tried), so no line is left unexplained.
//!
//! Pure data: nothing here runs SQL. Must never panic on any text.

use crate::exercise::Exercise;
use crate::mutate::{Mutant, MutantVerdict, Operator};
use crate::schedule::Schedule;
use serde::{Deserialize, Deserializer, Serialize};
use std::collections::BTreeMap;

/// What the scenarios make of a change to each line of some texts: the
/// engine judges every generated mutant ([`marks`] turns the verdicts into
/// one mark per line), so the page and `fencelab protect` render marks and
/// never read a mutant's verdict themselves.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ProtectionReport {
    /// The marks of each editable procedure, in the exercise's order; a
    /// procedure with no mutants has none.
    pub procedures: Vec<ProcedureMarks>,
    /// Mutants judged (declared equivalents included).
    pub mutants: usize,
}

impl ProtectionReport {
    /// The marks of `procedure` (none when it has none).
    pub fn marks(&self, procedure: &str) -> &[LineMark] {
        self.procedures
            .iter()
            .find(|p| p.procedure == procedure)
            .map_or(&[], |p| p.lines.as_slice())
    }

    /// The mark on `line` of `procedure`.
    pub fn mark(&self, procedure: &str, line: u32) -> Option<&LineMark> {
        self.marks(procedure).iter().find(|m| m.line == line)
    }

    /// Whether some line's every change passes every scenario.
    pub fn has_unprotected(&self) -> bool {
        self.procedures.iter().any(|p| {
            p.lines
                .iter()
                .any(|m| matches!(m.status, LineStatus::Unprotected { .. }))
        })
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ProcedureMarks {
    pub procedure: String,
    /// By line, ascending: every line but the blank ones, each with its
    /// mark or why it has none.
    pub lines: Vec<LineMark>,
}

/// One line's mark: a scenario catches a change here, or none does.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LineMark {
    /// 1-based, in the texts judged.
    pub line: u32,
    pub status: LineStatus,
}

/// What the changes tried on a line found. Read through
/// [`LineStatusRead`] (`tag_first.rs`).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum LineStatus {
    /// A scenario fails when this line changes.
    Protected {
        /// Every removal from this line that a scenario caught (each
        /// predicate, statement or decision on it) and every fence stamped
        /// later, in the order they stand;
        /// when no removal is caught, the first change that is. Never empty.
        caught: Vec<Caught>,
        /// Changes to this line that no scenario caught, by description.
        uncaught: Vec<String>,
    },
    /// Every change to this line passes every scenario: either the line is
    /// not needed, or the suite has a gap.
    Unprotected { descriptions: Vec<String> },
    /// No scenario caught a change here, and not every change passed: some
    /// only made a scenario stop with an error, which is no counterexample
    /// (and no silence either). No mark in the editor; the list says why.
    OnlyErrors {
        /// The changes that only made scenarios error, by description.
        errors: Vec<String>,
        /// The changes that passed every scenario, by description.
        uncaught: Vec<String>,
    },
    /// Every change tried here is one the exercise declares equivalent to
    /// the text (`[[equivalent]]`), with its reasons. No mark in the editor.
    Equivalent { reasons: Vec<String> },
    /// No change to this line was tried: nothing on it is what a mutation
    /// operator changes. No mark in the editor.
    Untried,
}

/// [`LineStatus`] as `tag_first::read` reads it: its variants, externally
/// tagged.
#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum LineStatusRead {
    Protected {
        caught: Vec<Caught>,
        uncaught: Vec<String>,
    },
    Unprotected {
        descriptions: Vec<String>,
    },
    OnlyErrors {
        errors: Vec<String>,
        uncaught: Vec<String>,
    },
    Equivalent {
        reasons: Vec<String>,
    },
    Untried,
}

impl From<LineStatusRead> for LineStatus {
    fn from(read: LineStatusRead) -> LineStatus {
        match read {
            LineStatusRead::Protected { caught, uncaught } => {
                LineStatus::Protected { caught, uncaught }
            }
            LineStatusRead::Unprotected { descriptions } => {
                LineStatus::Unprotected { descriptions }
            }
            LineStatusRead::OnlyErrors { errors, uncaught } => {
                LineStatus::OnlyErrors { errors, uncaught }
            }
            LineStatusRead::Equivalent { reasons } => LineStatus::Equivalent { reasons },
            LineStatusRead::Untried => LineStatus::Untried,
        }
    }
}

impl<'de> Deserialize<'de> for LineStatus {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<LineStatus, D::Error> {
        crate::tag_first::read::<D, LineStatus, LineStatusRead>(deserializer, "status")
    }
}

impl LineStatus {
    /// Whether the editor draws a mark for it (protected or unprotected);
    /// the other lines are only explained in the list.
    pub fn is_marked(&self) -> bool {
        matches!(
            self,
            LineStatus::Protected { .. } | LineStatus::Unprotected { .. }
        )
    }
}

/// A change to a line that a scenario caught, with what shows it: replaying
/// `schedule` of `scenario` on the texts with `mutant_text` in place of the
/// procedure is the counterexample.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Caught {
    pub scenario: String,
    /// The failure's sentence.
    pub sentence: String,
    pub schedule: Schedule,
    /// What the change was: "drop `AND state = 'NEW'` from the WHERE".
    pub description: String,
    /// The whole procedure text with the change.
    pub mutant_text: String,
    /// `scenario` is a limit (`limit = true`): the change made its limit
    /// stop showing as described, which is never said as a failure.
    /// Absent in older marks, which read it as false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub limit: bool,
}

impl Caught {
    /// What the change did to its scenario: "“one winner” fails", or for a
    /// limit, that it no longer shows as described (a limit never passes,
    /// so it does not "fail" either).
    pub fn what_broke(&self) -> String {
        if self.limit {
            format!(
                "the limit “{}” no longer shows as the exercise describes it",
                self.scenario
            )
        } else {
            format!("“{}” fails", self.scenario)
        }
    }
}

/// What a list of the marks says of a caught change to `line` (the page
/// adds its button's words; `fencelab protect` the failure and schedule).
pub fn caught_sentence(line: u32, change: &Caught) -> String {
    format!(
        "Line {line}: if you {}, {}",
        change.description,
        change.what_broke()
    )
}

/// `text` as a sentence: with a full stop unless it ends with one already
/// (an exercise's reason, a failure's sentence), so it never reads ".;".
pub fn sentence(text: &str) -> String {
    let text = text.trim();
    if text.ends_with(['.', '!', '?']) {
        text.to_string()
    } else {
        format!("{text}.")
    }
}

/// `texts` as one run of sentences, each a [`sentence`].
pub fn sentences(texts: &[String]) -> String {
    texts
        .iter()
        .map(|text| sentence(text))
        .collect::<Vec<_>>()
        .join(" ")
}

/// What a list of the marks says of an unprotected `line`.
pub fn unprotected_sentence(line: u32) -> String {
    format!("Line {line}: no scenario notices a change here")
}

/// Why `line` has no mark, in a sentence; `None` for a marked line.
pub fn unmarked_sentence(line: u32, status: &LineStatus) -> Option<String> {
    match status {
        LineStatus::Protected { .. } | LineStatus::Unprotected { .. } => None,
        LineStatus::OnlyErrors { errors, uncaught } => {
            let mut sentence = format!(
                "Line {line}: no mark, because a change here only stops a scenario with an \
                 error, which is no counterexample (tried: {})",
                errors.join("; ")
            );
            if !uncaught.is_empty() {
                sentence += &format!(
                    "; no scenario notices if you {}",
                    uncaught.join(", or if you ")
                );
            }
            Some(sentence)
        }
        LineStatus::Equivalent { reasons } => Some(format!(
            "Line {line}: no mark, because every change tried here is equivalent to your \
             text, as the exercise says: {}",
            sentences(reasons).trim_end_matches('.')
        )),
        LineStatus::Untried => Some(format!(
            "Line {line}: no mark, because no change to it was tried: nothing on it is what \
             the mutation operators change"
        )),
    }
}

/// One mark per line of each editable procedure's text in `texts` (blank
/// lines aside): what its changes did, or that none was tried.
/// `verdicts[i]` is the verdict on `mutants[i]`.
pub fn marks(
    exercise: &Exercise,
    texts: &[(String, String)],
    mutants: &[Mutant],
    verdicts: &[MutantVerdict],
) -> ProtectionReport {
    let limits: Vec<&str> = exercise
        .scenarios
        .iter()
        .filter(|s| s.limit)
        .map(|s| s.name.as_str())
        .collect();
    let procedures = exercise
        .procedures
        .iter()
        .filter(|p| p.editable)
        .map(|p| {
            let mut by_line: BTreeMap<u32, Vec<(&Mutant, &MutantVerdict)>> = BTreeMap::new();
            for (mutant, verdict) in mutants.iter().zip(verdicts) {
                if mutant.procedure == p.name {
                    by_line
                        .entry(mutant.position.line)
                        .or_default()
                        .push((mutant, verdict));
                }
            }
            let text = texts
                .iter()
                .find(|(name, _)| *name == p.name)
                .map_or("", |(_, text)| text.as_str());
            let mut lines: BTreeMap<u32, LineStatus> = by_line
                .into_iter()
                .map(|(line, judged)| (line, line_status(&judged, &limits)))
                .collect();
            for (i, written) in text.lines().enumerate() {
                let line = u32::try_from(i + 1).unwrap_or(u32::MAX);
                if !written.trim().is_empty() {
                    lines.entry(line).or_insert(LineStatus::Untried);
                }
            }
            ProcedureMarks {
                procedure: p.name.clone(),
                lines: lines
                    .into_iter()
                    .map(|(line, status)| LineMark { line, status })
                    .collect(),
            }
        })
        .collect();
    ProtectionReport {
        procedures,
        mutants: verdicts.len(),
    }
}

/// Whether a mark lists every caught change `operator` makes on its line,
/// rather than only the first: the removals (a predicate, a statement, a
/// decision, a transaction), of which "without this" reads true, and the
/// fence stamped in a later statement (`StampLater`), which no removal on
/// the same line shows: the window between taking a row and stamping its
/// fence is a lesson of its own.
fn listed(operator: Operator) -> bool {
    matches!(
        operator,
        Operator::DropConjunct
            | Operator::DeleteStatement
            | Operator::DropRefusal
            | Operator::DropTransaction
            | Operator::DropAddend
            | Operator::DropUpsertAssignment
            | Operator::StampLater
    )
}

/// The counterexample of a caught mutant: its first kill by a scenario
/// that tests the texts, else its first kill by a limit (`limits`).
fn caught(mutant: &Mutant, verdict: &MutantVerdict, limits: &[&str]) -> Option<Caught> {
    let MutantVerdict::Killed { by } = verdict else {
        return None;
    };
    let is_limit = |kill: &&crate::mutate::Kill| limits.contains(&kill.scenario.as_str());
    let kill = by
        .iter()
        .find(|kill| !is_limit(kill))
        .or_else(|| by.first())?;
    Some(Caught {
        scenario: kill.scenario.clone(),
        sentence: kill.sentence.clone(),
        schedule: kill.schedule.clone(),
        description: mutant.description.clone(),
        mutant_text: mutant.text.clone(),
        limit: is_limit(&kill),
    })
}

/// Protected by every caught removal and later stamp (or, when none is
/// caught, the first caught change), unprotected when every change
/// (declared equivalents aside) survives, else why not: only declared equivalents, or changes
/// that only made scenarios error. Changes are listed in the order they
/// stand on the line.
fn line_status(judged: &[(&Mutant, &MutantVerdict)], limits: &[&str]) -> LineStatus {
    let survivors = || {
        judged
            .iter()
            .filter(|(_, verdict)| matches!(verdict, MutantVerdict::Survived))
            .map(|(mutant, _)| mutant.description.clone())
            .collect()
    };
    let listed: Vec<Caught> = judged
        .iter()
        .filter(|(mutant, _)| listed(mutant.operator))
        .filter_map(|(mutant, verdict)| caught(mutant, verdict, limits))
        .collect();
    let caught: Vec<Caught> = if listed.is_empty() {
        judged
            .iter()
            .find_map(|(mutant, verdict)| caught(mutant, verdict, limits))
            .into_iter()
            .collect()
    } else {
        listed
    };
    if !caught.is_empty() {
        return LineStatus::Protected {
            caught,
            uncaught: survivors(),
        };
    }
    let counted: Vec<&(&Mutant, &MutantVerdict)> = judged
        .iter()
        .filter(|(_, verdict)| !matches!(verdict, MutantVerdict::Equivalent { .. }))
        .collect();
    if counted.is_empty() {
        let mut reasons: Vec<String> = Vec::new();
        for (_, verdict) in judged {
            if let MutantVerdict::Equivalent { reason } = verdict
                && !reasons.contains(reason)
            {
                reasons.push(reason.clone());
            }
        }
        return LineStatus::Equivalent { reasons };
    }
    if counted
        .iter()
        .all(|(_, verdict)| matches!(verdict, MutantVerdict::Survived))
    {
        return LineStatus::Unprotected {
            descriptions: survivors(),
        };
    }
    LineStatus::OnlyErrors {
        errors: counted
            .iter()
            .filter(|(_, verdict)| matches!(verdict, MutantVerdict::ErrorsOnly { .. }))
            .map(|(mutant, _)| mutant.description.clone())
            .collect(),
        uncaught: survivors(),
    }
}

#[cfg(all(test, feature = "toml"))]
mod tests {
    use super::*;
    use crate::mutate::Kill;
    use crate::procedure::Position;

    /// Read through its mirror (`tag_first.rs`): every variant comes back.
    #[test]
    fn every_line_status_reads_back_from_its_json() {
        let caught = Caught {
            scenario: "one winner".into(),
            sentence: "worker-a and worker-b both believe they hold message 1".into(),
            schedule: Schedule::parse("a b a").unwrap(),
            description: "drop `AND state = 'NEW'` from the WHERE".into(),
            mutant_text: "UPDATE messages SET owner = :me;".into(),
            limit: false,
        };
        let statuses = [
            LineStatus::Protected {
                caught: vec![caught],
                uncaught: vec!["swap `<` for `<=`".into()],
            },
            LineStatus::Unprotected {
                descriptions: vec!["drop the statement".into()],
            },
            LineStatus::OnlyErrors {
                errors: vec!["drop the column".into()],
                uncaught: Vec::new(),
            },
            LineStatus::Equivalent {
                reasons: vec!["the lease is checked again below".into()],
            },
            LineStatus::Untried,
        ];
        for status in statuses {
            let json = serde_json::to_string(&status).unwrap();
            let read: LineStatus = serde_json::from_str(&json).unwrap();
            assert_eq!(read, status, "{json}");
        }
    }

    fn claim() -> Exercise {
        let (file, text) = crate::bundled::FILES[0];
        Exercise::from_toml(file, text).expect("the bundled claim exercise loads")
    }

    /// A mutant of the claim's `line`; its operator removes something when
    /// the description says "drop", and stamps a fence later when it says
    /// "stamp".
    fn mutant(line: u32, description: &str) -> Mutant {
        let operator = if description.starts_with("drop") {
            Operator::DropConjunct
        } else if description.starts_with("stamp") {
            Operator::StampLater
        } else {
            Operator::SwapComparison
        };
        Mutant {
            id: format!("claim:{line}:1:{}:{description}", operator.name()),
            operator,
            procedure: "claim".into(),
            position: Position { line, column: 1 },
            description: description.into(),
            text: format!("-- {description}"),
        }
    }

    fn killed(scenario: &str, schedule: &str) -> MutantVerdict {
        MutantVerdict::Killed {
            by: vec![Kill {
                scenario: scenario.into(),
                sentence: format!("{scenario} broke"),
                schedule: Schedule::parse(schedule).expect("a schedule"),
            }],
        }
    }

    /// The marks of nine lines, the last blank, from these verdicts: no
    /// mutant changes lines 1 and 4.
    fn judged() -> ProtectionReport {
        let mutants = [
            mutant(2, "survives on 2"),
            mutant(2, "caught on 2"),
            mutant(2, "drop, caught on 2"),
            mutant(2, "drop, survives on 2"),
            mutant(2, "drop, caught again on 2"),
            mutant(3, "caught on 3"),
            mutant(3, "caught again on 3"),
            mutant(5, "survives on 5"),
            mutant(5, "also survives on 5"),
            mutant(6, "errors on 6"),
            mutant(6, "survives on 6"),
            mutant(7, "equivalent on 7"),
            mutant(8, "equivalent on 8"),
            mutant(8, "survives on 8"),
        ];
        let verdicts = [
            MutantVerdict::Survived,
            killed("first come, first served", ""),
            killed("one winner", "a b a b"),
            MutantVerdict::Survived,
            killed("first come, first served", "a b"),
            killed("one winner", "a b"),
            killed("first come, first served", "b a"),
            MutantVerdict::Survived,
            MutantVerdict::Survived,
            MutantVerdict::ErrorsOnly {
                errors: vec![("one winner".into(), "no such column".into())],
            },
            MutantVerdict::Survived,
            MutantVerdict::Equivalent {
                reason: "same".into(),
            },
            MutantVerdict::Equivalent {
                reason: "same".into(),
            },
            MutantVerdict::Survived,
        ];
        let text = "1\n2\n3\n4\n5\n6\n7\n8\n\n";
        marks(
            &claim(),
            &[("claim".into(), text.into())],
            &mutants,
            &verdicts,
        )
    }

    #[test]
    fn a_change_only_a_limit_notices_is_never_said_to_make_it_fail() {
        let (file, text) = crate::bundled::FILES
            .iter()
            .copied()
            .find(|(file, _)| file.starts_with("13-"))
            .expect("exercise 13 is bundled");
        let exercise = Exercise::from_toml(file, text).expect("exercise 13 loads");
        let limit = "a bad recovery brings generation 1 back";
        let tested = "requests out of order";
        let on = |line: u32| Mutant {
            procedure: "apply".into(),
            ..mutant(line, "drop the statement")
        };
        let both = MutantVerdict::Killed {
            by: vec![
                Kill {
                    scenario: limit.into(),
                    sentence: "expected accepted".into(),
                    schedule: Schedule::new(),
                },
                Kill {
                    scenario: tested.into(),
                    sentence: "expected refused".into(),
                    schedule: Schedule::new(),
                },
            ],
        };
        let report = marks(
            &exercise,
            &[("apply".into(), "1\n2\n".into())],
            &[on(1), on(2)],
            &[both, killed(limit, "")],
        );
        let caught = |line: u32| match &report.mark("apply", line).expect("marked").status {
            LineStatus::Protected { caught, .. } => caught[0].clone(),
            other => panic!("line {line} is protected, not {other:?}"),
        };
        // A scenario that tests the text is named before a limit.
        assert_eq!(
            (caught(1).scenario.as_str(), caught(1).limit),
            (tested, false)
        );
        assert_eq!(
            caught_sentence(1, &caught(1)),
            "Line 1: if you drop the statement, “requests out of order” fails"
        );
        let only_limit = caught(2);
        assert!(only_limit.limit);
        assert_eq!(
            caught_sentence(2, &only_limit),
            "Line 2: if you drop the statement, the limit “a bad recovery brings generation 1 \
             back” no longer shows as the exercise describes it"
        );
        // Older marks, without the field, read as a scenario that tests.
        let mut json = serde_json::to_value(&only_limit).unwrap();
        json.as_object_mut().unwrap().remove("limit");
        let read: Caught = serde_json::from_value(json).unwrap();
        assert!(!read.limit);
    }

    #[test]
    fn reasons_that_are_sentences_are_joined_as_sentences() {
        let status = LineStatus::Equivalent {
            reasons: vec![
                "IS differs from = only on NULL.".into(),
                "The lock is taken".into(),
            ],
        };
        let said = unmarked_sentence(7, &status).expect("a sentence");
        assert!(!said.contains(".;"), "{said}");
        assert!(
            said.ends_with(
                "as the exercise says: IS differs from = only on NULL. The lock is taken"
            ),
            "{said}"
        );
    }

    #[test]
    fn every_line_but_the_blank_ones_has_a_mark_or_says_why_not() {
        let report = judged();
        assert_eq!(report.mutants, 14);
        let marked: Vec<u32> = report
            .marks("claim")
            .iter()
            .filter(|m| m.status.is_marked())
            .map(|m| m.line)
            .collect();
        // Line 6 only errors besides its survivor, line 7 is only an
        // equivalent: neither is marked, and both say why; so do the lines
        // no change was tried on. The blank line says nothing.
        assert_eq!(marked, [2, 3, 5, 8]);
        let lines: Vec<u32> = report.marks("claim").iter().map(|m| m.line).collect();
        assert_eq!(lines, [1, 2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(
            report.mark("claim", 1).map(|m| &m.status),
            Some(&LineStatus::Untried)
        );
        assert_eq!(
            report.mark("claim", 4).map(|m| &m.status),
            Some(&LineStatus::Untried)
        );
        assert_eq!(
            report.mark("claim", 6).map(|m| &m.status),
            Some(&LineStatus::OnlyErrors {
                errors: vec!["errors on 6".into()],
                uncaught: vec!["survives on 6".into()],
            })
        );
        assert_eq!(
            report.mark("claim", 7).map(|m| &m.status),
            Some(&LineStatus::Equivalent {
                reasons: vec!["same".into()],
            })
        );
    }

    #[test]
    fn a_protected_line_shows_every_caught_removal_or_else_the_first_caught_change() {
        let report = judged();
        let described = |status: Option<&LineStatus>| match status {
            Some(LineStatus::Protected { caught, uncaught }) => (
                caught
                    .iter()
                    .map(|c| format!("{} / {} / {}", c.description, c.scenario, c.schedule))
                    .collect::<Vec<_>>(),
                uncaught.clone(),
            ),
            other => panic!("a protected line, not {other:?}"),
        };
        // Every removal a scenario caught, in the order they stand; the
        // changes no scenario caught, removals or not.
        assert_eq!(
            described(report.mark("claim", 2).map(|m| &m.status)),
            (
                vec![
                    "drop, caught on 2 / one winner / a b a b".to_string(),
                    "drop, caught again on 2 / first come, first served / a b".to_string(),
                ],
                vec![
                    "survives on 2".to_string(),
                    "drop, survives on 2".to_string()
                ],
            )
        );
        // No removal caught: the first caught change.
        assert_eq!(
            described(report.mark("claim", 3).map(|m| &m.status)),
            (vec!["caught on 3 / one winner / a b".to_string()], vec![])
        );
        let Some(LineStatus::Protected { caught, .. }) = report.mark("claim", 3).map(|m| &m.status)
        else {
            unreachable!()
        };
        assert_eq!(
            (caught[0].sentence.as_str(), caught[0].mutant_text.as_str()),
            ("one winner broke", "-- caught on 3")
        );
    }

    #[test]
    fn a_fence_stamped_later_is_listed_beside_the_removals_a_scenario_caught() {
        let mutants = [
            mutant(1, "drop, caught on 1"),
            mutant(1, "caught on 1"),
            mutant(1, "stamp `token = 2` later, caught on 1"),
        ];
        let verdicts = [
            killed("one winner", "a b"),
            killed("first come, first served", ""),
            killed("the stale process inside the claim", "b a b"),
        ];
        let report = marks(
            &claim(),
            &[("claim".into(), "1\n".into())],
            &mutants,
            &verdicts,
        );
        let Some(LineStatus::Protected { caught, uncaught }) =
            report.mark("claim", 1).map(|m| &m.status)
        else {
            panic!("line 1 is protected: {report:?}");
        };
        let listed: Vec<(&str, &str)> = caught
            .iter()
            .map(|c| (c.description.as_str(), c.scenario.as_str()))
            .collect();
        assert_eq!(
            listed,
            [
                ("drop, caught on 1", "one winner"),
                (
                    "stamp `token = 2` later, caught on 1",
                    "the stale process inside the claim"
                ),
            ],
            "the removal and the later stamp, each with its counterexample; not the other change"
        );
        assert!(uncaught.is_empty());
    }

    #[test]
    fn a_line_whose_every_change_passes_is_unprotected() {
        let report = judged();
        assert_eq!(
            report.mark("claim", 5).map(|m| &m.status),
            Some(&LineStatus::Unprotected {
                descriptions: vec!["survives on 5".into(), "also survives on 5".into()],
            })
        );
        assert_eq!(
            report.mark("claim", 8).map(|m| &m.status),
            Some(&LineStatus::Unprotected {
                descriptions: vec!["survives on 8".into()],
            })
        );
    }
}
