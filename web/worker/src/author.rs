//! The authoring view's check of a draft exercise: `fencelab check`'s own
//! (the core's `CheckSearch`), a slice of `RUNS_PER_SLICE` runs of one
//! scenario per piece (of the suite against the reference, the starting
//! texts, then each named broken variant), so a newer draft that arrives
//! meanwhile drops this one between slices; last, its `[[equivalent]]`
//! declarations are matched against the generated mutants. One
//! `ExerciseCheck::ok` judges it for both.
//!
//! The draft is loaded as `fencelab check` loads a file (its schema tried on
//! SQLite) and never installed: nothing the author types reaches the
//! exercises a learner opens. Must never panic on a draft.

use crate::serve::RUNS_PER_SLICE;
use fencelab_core::LoadError;
use fencelab_core::check::Progress;
use fencelab_core::exercise::{CheckSearch, try_schema};
use fencelab_model::exercise::Unchecked;
use fencelab_protocol::Response;

/// A draft being checked: one slice per [`AuthorJob::piece`].
pub struct AuthorJob {
    pub seq: u64,
    /// The core's check of the exercise, which owns it.
    check: CheckSearch,
}

/// A draft's answer: a job, or why it cannot be loaded (answered at once).
/// Boxed, both: a job (the exercise and its check) and an answer are
/// hundreds of bytes apart in size.
pub enum Draft {
    Job(Box<AuthorJob>),
    Unloadable(Box<Response>),
}

impl AuthorJob {
    /// Starts the check of a draft, as the exercise reader read it: its
    /// schema is tried on SQLite first, as `fencelab check` loads a file.
    pub fn start(seq: u64, read: Result<Box<Unchecked>, LoadError>) -> Draft {
        let loaded = read.and_then(|read| {
            let Unchecked { exercise, schema } = *read;
            try_schema(&exercise).map_err(|error| schema.error("schema", error.to_string()))?;
            Ok(exercise)
        });
        match loaded {
            Ok(exercise) => Draft::Job(Box::new(AuthorJob {
                seq,
                check: CheckSearch::new(exercise),
            })),
            Err(error) => Draft::Unloadable(Box::new(Response::Authored {
                seq,
                result: Err(error),
            })),
        }
    }

    /// Runs the next slice of the check; the whole check once every part
    /// is done.
    pub fn piece(&mut self) -> Option<Response> {
        match self.check.advance(RUNS_PER_SLICE) {
            Progress::Pending => None,
            Progress::Done(check) => Some(Response::Authored {
                seq: self.seq,
                result: Ok(*check),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fencelab_core::mutate::StaleEquivalent;
    use fencelab_core::report::{ExerciseCheck, Verdict};
    use fencelab_core::{Exercise, ExerciseExt};

    /// `source` as the exercise reader reads it.
    fn read(file: &str, source: &str) -> Result<Box<Unchecked>, LoadError> {
        Exercise::from_toml_unchecked(file, source).map(Box::new)
    }

    /// The starter `fencelab new` writes: three scenarios, one broken variant.
    const STARTER: &str = include_str!("../../../crates/cli/src/starter.toml");

    fn finished(mut job: Box<AuthorJob>) -> Result<ExerciseCheck, fencelab_core::LoadError> {
        for _ in 0..100_000 {
            if let Some(Response::Authored { result, .. }) = job.piece() {
                return result;
            }
        }
        panic!("a draft's check ends");
    }

    fn job(source: &str) -> Box<AuthorJob> {
        match AuthorJob::start(7, read("draft.toml", source)) {
            Draft::Job(job) => job,
            Draft::Unloadable(response) => panic!("the draft loads: {response:?}"),
        }
    }

    #[test]
    fn the_starter_passes_its_start_fails_and_its_variant_is_caught() {
        let check = finished(job(STARTER)).expect("checked");
        assert!(check.ok(), "{check:#?}");
        assert_eq!(check.reference.scenarios.len(), 3);
        assert!(check.start.iter().any(|c| c.verdict == Verdict::Failed));
        let row = &check.matrix.rows[0];
        assert_eq!(row.variant, "takes without looking");
        let caught: Vec<_> = row.caught_by().map(|c| c.scenario.as_str()).collect();
        assert!(caught.contains(&"too late"), "{caught:?}");
        assert!(row.caught_by().all(|c| c.problem.is_some()));
    }

    /// Drafts that fail each part of the check, and one that passes: the
    /// worker's answer is `fencelab check`'s, and its one `ok` says which.
    #[test]
    fn every_draft_gets_fencelab_checks_own_check_and_verdict() {
        let variant_take = "UPDATE tickets SET state = 'TAKEN', assignee = :actor, token = :token\n WHERE id = :ticket_id;\n-- @refuse";
        assert!(STARTER.contains(variant_take));
        let reference_guard = "token = :token\n WHERE id = :ticket_id AND state = 'OPEN';";
        assert!(STARTER.contains(reference_guard));
        let drafts = [
            ("the starter", STARTER.to_string(), true),
            (
                "a reference without its guard fails a scenario",
                STARTER.replacen(reference_guard, "token = :token\n WHERE id = :ticket_id;", 1),
                false,
            ),
            (
                "a variant that names no column makes scenarios error",
                STARTER.replacen(
                    variant_take,
                    "UPDATE tickets SET state = 'TAKEN', nowhere = 1\n WHERE id = :ticket_id;\n-- @refuse",
                    1,
                ),
                false,
            ),
            (
                "a stale [[equivalent]]",
                STARTER.replacen("mutant = \"take:", "mutant = \"take:99:", 1),
                false,
            ),
        ];
        for (what, source, ok) in drafts {
            assert!(ok || source != STARTER, "{what}: the draft differs");
            let check = finished(job(&source)).expect("checked");
            let exercise = fencelab_core::exercise::load("draft.toml", &source).expect("loads");
            assert_eq!(
                check,
                exercise.check(),
                "{what}: the worker's check is check's"
            );
            assert_eq!(check.ok(), ok, "{what}: {check:#?}");
        }
    }

    #[test]
    fn a_weakened_scenario_lets_the_variant_survive() {
        // helper-b now always asks for a ticket that does not exist, so no
        // scenario has two helpers contend for one.
        let weakened = STARTER
            .replacen(
                "{ process = \"b\", call = \"take\", args = { ticket_id = \"ticket-1\" } }",
                "{ process = \"b\", call = \"take\", args = { ticket_id = \"ticket-9\" } }",
                1,
            )
            .replacen(
                "{ call = \"take\", process = \"b\", args = { ticket_id = \"ticket-1\" }",
                "{ call = \"take\", process = \"b\", args = { ticket_id = \"ticket-9\" }",
                1,
            );
        assert_ne!(weakened, STARTER);
        let check = finished(job(&weakened)).expect("checked");
        let survivors: Vec<_> = check
            .matrix
            .survivors()
            .map(|r| r.variant.as_str())
            .collect();
        assert_eq!(survivors, ["takes without looking"], "{check:#?}");
        assert!(!check.ok());
    }

    #[test]
    fn equivalent_declarations_are_judged_as_check_judges_them() {
        let (name, text) = fencelab_core::bundled::FILES[0];
        let check = finished(match AuthorJob::start(7, read(name, text)) {
            Draft::Job(job) => job,
            Draft::Unloadable(response) => panic!("the bundled file loads: {response:?}"),
        })
        .expect("checked");
        assert!(check.stale_equivalents.is_empty(), "{check:#?}");
        assert!(check.ok(), "{check:#?}");

        // The reference changed since the declaration was written: no
        // generated mutant has this id any more.
        let stale = text.replacen(
            "mutant = \"claim:1:7:weaken-begin\"",
            "mutant = \"claim:1:7:weaken-nothing\"",
            1,
        );
        assert_ne!(stale, text);
        let Draft::Job(job) = AuthorJob::start(7, read(name, &stale)) else {
            panic!("the edited file loads");
        };
        let check = finished(job).expect("checked");
        let exercise = fencelab_core::exercise::load(name, &stale).expect("loads");
        assert_eq!(
            check.stale_equivalents,
            exercise.check().stale_equivalents,
            "the same sentences as fencelab check"
        );
        assert_eq!(
            check.stale_equivalents,
            [StaleEquivalent::MatchesNothing {
                mutant: "claim:1:7:weaken-nothing".into()
            }]
        );
        assert!(!check.ok());
    }

    #[test]
    fn a_schema_error_is_answered_at_once_at_the_schema() {
        let broken = STARTER.replacen("CREATE TABLE tokens", "CREATE TABLE tokens tokens", 1);
        let Draft::Unloadable(response) = AuthorJob::start(7, read("draft.toml", &broken)) else {
            panic!("a load error");
        };
        let Response::Authored {
            seq: 7,
            result: Err(error),
        } = *response
        else {
            panic!("a load error");
        };
        assert_eq!(error.field, "schema");
        assert_eq!(error.file, "draft.toml");
        assert!(error.line > 1, "{error}");
    }
}
