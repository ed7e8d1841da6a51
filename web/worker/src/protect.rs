//! Which lines of a learner's passing procedures the scenarios protect: every
//! generated mutant of the editable procedures is judged by the whole suite,
//! one mutant per [`ProtectJob::next`], and the verdicts become one mark per
//! line ([`marks`]) for the page to show in its editors.
//!
//! A line is protected when a scenario catches some change to it: the mark
//! carries every caught removal from it (each predicate, statement or
//! decision), or else the first caught change, each with the scenario's
//! failure and schedule, so the page can replay the counterexample. It is
//! unprotected when every change to it passes every scenario. A line whose
//! changes only make scenarios error gets no mark: an error is not a
//! counterexample, and it is not silence either. A change the exercise
//! declares equivalent (`[[equivalent]]`) is never a gap. Every other
//! line that is not blank says why it has no mark (only errors, only
//! declared equivalents, or no change tried), so no line is left unexplained.
//!
//! Mutants past their budget (`fencelab_core::mutate::MUTANTS_PER_RUN_MAX`
//! and kin) are never judged: the answer is `Failed`, naming the bound,
//! before anything runs. Only texts that pass every scenario have their
//! mutants judged (otherwise every mutant would look caught): the page asks
//! only then, and the job checks them first all the same, as a `Check`
//! runs, a slice per piece.
//! Must never panic on any text.

use crate::serve::CheckJob;
use fencelab_core::mutate::{Context, Mutant, MutantVerdict, Operator};
use fencelab_core::{Exercise, Schedule, mutation};
use fencelab_protocol::{
    Caught, Edits, LineMark, LineStatus, ProcedureMarks, ProtectionReport, Response,
};
use std::collections::BTreeMap;
use std::rc::Rc;

/// A protection run in progress: the mutants generated at once (within
/// their budget, so a text past it is refused before anything runs), then
/// the texts' own check, a slice per [`ProtectJob::next`] as a `Check`
/// runs, then one mutant per call.
pub struct ProtectJob {
    pub seq: u64,
    exercise: Rc<Exercise>,
    /// Every procedure's text: the learner's for the editable ones.
    texts: Vec<(String, String)>,
    /// What the operators know of the exercise's schema.
    context: Context,
    stage: Stage,
}

/// Where a protection run is.
enum Stage {
    /// Nothing will be judged, for this reason: the answer is `Failed`.
    Refused(String),
    /// Checking the texts: only texts that pass every scenario have their
    /// mutants judged (the page asks only then, but the worker does not take
    /// its word for it).
    Checking {
        check: Box<CheckJob>,
        mutants: Vec<Mutant>,
    },
    /// Judging the mutants, `verdicts[i]` of `mutants[i]`.
    Judging {
        mutants: Vec<Mutant>,
        /// The mutants that are the exercise's declared equivalents: id to
        /// the declared reason.
        equivalent: BTreeMap<String, String>,
        verdicts: Vec<MutantVerdict>,
    },
}

impl ProtectJob {
    /// A job for the line marks of `edits`: generates their mutants (pure
    /// text work, within its budget); nothing runs yet.
    pub fn new(seq: u64, exercise: &Rc<Exercise>, edits: &Edits, context: &Context) -> ProtectJob {
        let texts = exercise.texts_with(edits);
        let stage = match mutation::generate(exercise, &texts, context) {
            Err(over) => Stage::Refused(over.to_string()),
            Ok(generated) => Stage::Checking {
                check: Box::new(CheckJob::new(seq, exercise, edits)),
                mutants: generated.mutants,
            },
        };
        ProtectJob {
            seq,
            exercise: Rc::clone(exercise),
            texts,
            context: context.clone(),
            stage,
        }
    }

    /// How many mutants the job judges, once its check has passed.
    #[cfg(test)]
    pub fn mutants(&self) -> Option<usize> {
        match &self.stage {
            Stage::Refused(_) | Stage::Checking { .. } => None,
            Stage::Judging { mutants, .. } => Some(mutants.len()),
        }
    }

    /// Does the next piece (a slice of the check, or one mutant); once
    /// every mutant is judged, returns the marks. Texts that do not pass, or
    /// whose mutants are past their budget, are answered `Failed`, saying so.
    pub fn next(&mut self) -> Option<Response> {
        match &mut self.stage {
            Stage::Refused(message) => Some(Response::Failed {
                seq: self.seq,
                message: message.clone(),
            }),
            Stage::Checking { check, mutants } => {
                let Response::Checked { report, .. } = check.next()? else {
                    return None;
                };
                if let Some(why) = mutation::not_passing(&report, "your procedure") {
                    return Some(Response::Failed {
                        seq: self.seq,
                        message: why,
                    });
                }
                let mutants = std::mem::take(mutants);
                self.stage = Stage::Judging {
                    equivalent: declared_equivalents(&self.exercise, &mutants, &self.context),
                    mutants,
                    verdicts: Vec::new(),
                };
                None
            }
            Stage::Judging {
                mutants,
                equivalent,
                verdicts,
            } => match mutants.get(verdicts.len()) {
                Some(mutant) => {
                    let verdict = match (
                        mutation::judge(&self.exercise, &self.texts, mutant),
                        equivalent.get(&mutant.id),
                    ) {
                        // Like `fencelab mutate`: a declared equivalent that a
                        // scenario kills is killed all the same.
                        (verdict @ MutantVerdict::Killed { .. }, _) | (verdict, None) => verdict,
                        (_, Some(reason)) => MutantVerdict::Equivalent {
                            reason: reason.clone(),
                        },
                    };
                    verdicts.push(verdict);
                    None
                }
                None => Some(Response::Protection {
                    seq: self.seq,
                    report: marks(&self.exercise, &self.texts, mutants, verdicts),
                }),
            },
        }
    }
}

/// The learner's mutants that are the exercise's declared equivalents, with
/// the declared reason. A declaration names a mutant of the reference by id
/// (procedure, line, column, operator); a learner's mutant with that id is
/// the same change only if it also reads the same, so the description must
/// match the reference mutant's too.
fn declared_equivalents(
    exercise: &Exercise,
    mutants: &[Mutant],
    context: &Context,
) -> BTreeMap<String, String> {
    if exercise.equivalents.is_empty() {
        return BTreeMap::new();
    }
    // References past the mutant budget declare nothing that can match
    // (`fencelab check` refuses such an exercise's declarations).
    let Ok(reference) = mutation::generate(exercise, &mutation::reference_texts(exercise), context)
    else {
        return BTreeMap::new();
    };
    mutants
        .iter()
        .filter_map(|mutant| {
            let declared = exercise
                .equivalents
                .iter()
                .find(|e| e.mutant == mutant.id)?;
            reference
                .mutants
                .iter()
                .any(|r| r.id == mutant.id && r.description == mutant.description)
                .then(|| (mutant.id.clone(), declared.reason.clone()))
        })
        .collect()
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
                .map(|(line, judged)| (line, line_status(&judged)))
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

/// Whether `operator` removes something (a predicate, a statement, a
/// decision, a transaction) rather than changing it: "without this" reads
/// true of these, so a line's mark lists every one a scenario catches.
fn removes(operator: Operator) -> bool {
    matches!(
        operator,
        Operator::DropConjunct
            | Operator::DeleteStatement
            | Operator::DropRefusal
            | Operator::DropTransaction
            | Operator::DropAddend
            | Operator::DropUpsertAssignment
    )
}

/// The counterexample of a caught mutant: its first kill whose schedule
/// reads back (the checker printed it, so it always does; one that did not
/// could not show anything).
fn caught(mutant: &Mutant, verdict: &MutantVerdict) -> Option<Caught> {
    let MutantVerdict::Killed { by } = verdict else {
        return None;
    };
    by.iter().find_map(|kill| {
        Some(Caught {
            scenario: kill.scenario.clone(),
            sentence: kill.sentence.clone(),
            schedule: Schedule::parse(&kill.schedule).ok()?,
            description: mutant.description.clone(),
            mutant_text: mutant.text.clone(),
        })
    })
}

/// Protected by every caught removal (or, when none is caught, the first
/// caught change), unprotected when every change (declared equivalents
/// aside) survives, else why not: only declared equivalents, or changes
/// that only made scenarios error. Changes are listed in the order they
/// stand on the line.
fn line_status(judged: &[(&Mutant, &MutantVerdict)]) -> LineStatus {
    let survivors = || {
        judged
            .iter()
            .filter(|(_, verdict)| matches!(verdict, MutantVerdict::Survived))
            .map(|(mutant, _)| mutant.description.clone())
            .collect()
    };
    let removals: Vec<Caught> = judged
        .iter()
        .filter(|(mutant, _)| removes(mutant.operator))
        .filter_map(|(mutant, verdict)| caught(mutant, verdict))
        .collect();
    let caught: Vec<Caught> = if removals.is_empty() {
        judged
            .iter()
            .find_map(|(mutant, verdict)| caught(mutant, verdict))
            .into_iter()
            .collect()
    } else {
        removals
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

#[cfg(test)]
mod tests {
    use super::*;
    use fencelab_core::mutate::Kill;
    use fencelab_core::procedure::Position;
    use std::collections::BTreeSet;

    const CLAIM: &str = "claim-compare-and-set";

    fn claim() -> Exercise {
        fencelab_core::bundled::exercises()
            .expect("the bundled exercises load")
            .into_iter()
            .find(|e| e.id == CLAIM)
            .expect("the claim exercise")
    }

    /// A mutant of the claim's `line`; its operator removes something when
    /// the description says "drop".
    fn mutant(line: u32, description: &str) -> Mutant {
        let operator = if description.starts_with("drop") {
            Operator::DropConjunct
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
                schedule: schedule.into(),
            }],
        }
    }

    #[test]
    fn a_line_is_protected_by_every_caught_removal_and_unprotected_when_every_change_survives() {
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
        // Nine lines, the last blank; no mutant changes lines 1 and 4.
        let text = "1\n2\n3\n4\n5\n6\n7\n8\n\n";
        let report = marks(
            &claim(),
            &[("claim".into(), text.into())],
            &mutants,
            &verdicts,
        );
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

    #[test]
    fn a_kill_whose_schedule_does_not_read_back_cannot_protect_a_line() {
        let report = marks(
            &claim(),
            &[],
            &[mutant(3, "caught")],
            &[killed("one winner", "a; b")],
        );
        assert!(
            report.marks("claim").iter().all(|m| !m.status.is_marked()),
            "{report:#?}"
        );
    }

    #[test]
    fn the_reference_claim_has_protected_lines_each_with_a_counterexample_that_fails() {
        let exercise = claim();
        let context = mutation::context(&exercise).expect("the claim's schema builds");
        // The reference passes every scenario, as a solved exercise does.
        let edits: Edits = exercise
            .procedures
            .iter()
            .filter(|p| p.editable)
            .map(|p| (p.name.clone(), p.reference.clone()))
            .collect();
        let mut job = ProtectJob::new(7, &Rc::new(exercise.clone()), &edits, &context);
        let mut pieces = 0;
        while job.mutants().is_none() {
            assert_eq!(job.next(), None, "the check, a slice per call");
            pieces += 1;
        }
        assert!(pieces > 1, "the texts' own check comes first, in slices");
        let total = job.mutants().unwrap_or_default();
        assert!(total > 0, "the operators generate mutants of the claim");
        for _ in 0..total {
            assert_eq!(job.next(), None, "one mutant per call");
        }
        let Some(Response::Protection { seq: 7, report }) = job.next() else {
            panic!("the marks, once every mutant is judged");
        };
        assert_eq!(report.mutants, total);
        let protected: Vec<&LineMark> = report
            .marks("claim")
            .iter()
            .filter(|m| matches!(m.status, LineStatus::Protected { .. }))
            .collect();
        assert!(!protected.is_empty(), "{report:#?}");
        // Every caught change replays into the failure it names.
        for mark in protected {
            let LineStatus::Protected { caught, .. } = &mark.status else {
                unreachable!()
            };
            assert!(!caught.is_empty(), "line {}", mark.line);
            for change in caught {
                let mut texts = edits.clone();
                texts.insert("claim".into(), change.mutant_text.clone());
                let scenario = exercise
                    .scenarios
                    .iter()
                    .find(|s| s.name == change.scenario)
                    .expect("a scenario of the exercise");
                let replayed =
                    fencelab_core::ExerciseExt::checker(&exercise, &exercise.texts_with(&texts))
                        .expect("the mutant parses")
                        .replay(scenario, &change.schedule);
                assert_eq!(
                    replayed.failure().map(ToString::to_string).as_deref(),
                    Some(change.sentence.as_str()),
                    "line {}: {}",
                    mark.line,
                    change.description
                );
            }
        }
    }

    #[test]
    fn a_declared_equivalent_is_the_same_change_only_if_it_reads_the_same() {
        let exercises = fencelab_core::bundled::exercises().expect("the bundled exercises load");
        let exercise = exercises
            .iter()
            .find(|e| !e.equivalents.is_empty())
            .expect("an exercise that declares equivalents");
        let context = mutation::context(exercise).expect("its schema builds");
        let reference =
            mutation::generate(exercise, &mutation::reference_texts(exercise), &context)
                .expect("a bundled reference is within the mutant budget")
                .mutants;
        // On the reference itself, every declaration names one of its mutants.
        let found = declared_equivalents(exercise, &reference, &context);
        let declared: BTreeSet<&str> = exercise
            .equivalents
            .iter()
            .map(|e| e.mutant.as_str())
            .collect();
        assert_eq!(
            found.keys().map(String::as_str).collect::<BTreeSet<_>>(),
            declared
        );
        // The same id on a learner's text that changes something else there
        // is not the declared change.
        let mut other = reference
            .iter()
            .find(|m| declared.contains(m.id.as_str()))
            .expect("a declared mutant")
            .clone();
        other.description = format!("{} (elsewhere)", other.description);
        assert_eq!(
            declared_equivalents(exercise, &[other], &context),
            BTreeMap::new()
        );
    }
}
