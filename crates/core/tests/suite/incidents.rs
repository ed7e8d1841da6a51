//! The incidents of "Fences in the wild": for each exercise that retells a
//! bug reported and fixed in a real system, the real interleaving (a named
//! scenario) breaks the real bug (the named broken variant that is the bug
//! as its project shipped it) with a counterexample, and the reference,
//! which is the real fix, holds it.
//! The narrative names its sources; docs/sources/ says where each fact
//! stands in them.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use fencelab_core::report::VerdictCell;
use fencelab_core::{ExerciseExt, Verdict, bundled};

/// An incident exercise: its id, its real bug (the name of a named broken
/// variant, `[[mutants]]`), and the scenario that replays the interleaving
/// its sources report.
struct Incident {
    exercise: &'static str,
    bug: &'static str,
    interleaving: &'static str,
}

const INCIDENTS: &[Incident] = &[
    // riverqueue/river#1134: the rescuer reset a job that had just completed.
    Incident {
        exercise: "the-rescuer-and-the-finished-job",
        bug: "rescue by id",
        interleaving: "the worker completes between fetch and rescue",
    },
    // etcd-io/etcd#9921 and #11456: a waiter granted the lock after its
    // own lease had run out.
    Incident {
        exercise: "the-lock-granted-too-late",
        bug: "granted without a look at its own lease",
        interleaving: "the lease runs out while waiting",
    },
    // idempot-dev/idempot-js#182: an overwriting claim taken before the work.
    Incident {
        exercise: "the-key-checked-then-inserted",
        bug: "an overwriting claim",
        interleaving: "a retry while the first request is in flight",
    },
    // KAFKA-9144 (apache/kafka#7687): a fencing abort left the producer's
    // state without a timestamp, it expired early, and an older coordinator
    // epoch was accepted again.
    Incident {
        exercise: "the-epoch-that-went-back",
        bug: "timestamps from data batches only (KAFKA-9144)",
        interleaving: "the abort that made the producer look idle",
    },
    // etcd-io/etcd#22082: a retried Unlock deleted the same session's newer
    // lock key.
    Incident {
        exercise: "the-unlock-that-came-back",
        bug: "delete by name (etcd#22082's bug)",
        interleaving: "the unlock retried after a relock",
    },
    // CURATOR-460 (apache/curator#262): a suspended leader kept leading for
    // the whole session timeout.
    Incident {
        exercise: "the-suspended-leader",
        bug: "the timer runs for the whole session (CURATOR-460)",
        interleaving: "the leader suspended past its session",
    },
    // hexpm/hexpm#1825: Oban's Lifeline rescued a job that was still running.
    Incident {
        exercise: "the-rescue-of-running-jobs",
        bug: "complete by id (Oban's complete_job)",
        interleaving: "the night of 11 August",
    },
];

#[test]
fn each_incidents_real_interleaving_breaks_its_real_bug_and_its_fix_holds() {
    let exercises = bundled::exercises().unwrap_or_else(|e| panic!("{e}"));
    let mut problems = Vec::new();
    for incident in INCIDENTS {
        let Some(exercise) = exercises.iter().find(|e| e.id == incident.exercise) else {
            problems.push(format!("{}: no such bundled exercise", incident.exercise));
            continue;
        };
        let check = exercise.check();
        let verdict = |cells: &[VerdictCell]| {
            cells
                .iter()
                .find(|c| c.scenario == incident.interleaving)
                .map(|c| (c.verdict, c.problem.clone()))
        };
        let reference = VerdictCell::row(&check.reference);
        let bug = check
            .matrix
            .rows
            .iter()
            .find(|row| row.variant == incident.bug)
            .and_then(|row| verdict(&row.cells));
        match verdict(&reference) {
            Some((Verdict::Passed, _)) => {}
            other => problems.push(format!(
                "{}: the fix does not hold `{}`: {other:?}",
                incident.exercise, incident.interleaving
            )),
        }
        match bug {
            Some((Verdict::Failed, Some(_))) => {}
            other => problems.push(format!(
                "{}: the real bug is not broken by `{}` with a counterexample: {other:?}",
                incident.exercise, incident.interleaving
            )),
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
