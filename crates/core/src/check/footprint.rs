//! What one step of a concurrent section touched, and when two steps of
//! different processes are independent: run in either order from the same
//! state, they reach the same state, each with the same result. The reduced
//! explorer (sleep sets, in `explore.rs`) runs only one order of
//! independent steps, so this judgement must never call dependent steps
//! independent; when unsure, it calls them dependent.
//!
//! Two steps are dependent when:
//! - either changed its process's transaction (BEGIN, COMMIT, ROLLBACK, a
//!   savepoint, a call ending inside its transaction) or the lock it holds
//!   (the first read or write of a deferred transaction), is transaction
//!   control, or touched something SQLite's authorizer did not tell
//!   (`opaque`): whether another step meets a lock, and which rows it sees,
//!   depend on exactly these;
//! - one met a lock (blocked) and the other cleared every blocked mark (a
//!   step that leaves its process outside a transaction does);
//! - both end a call or record an effect: a call's end changes what its
//!   process believes, which the monitor judges every other call's end and
//!   every effect against, and effects are kept in order;
//! - one writes a table the other reads or writes.
//!
//! A step that keeps its process's transaction and lock as they were cannot
//! make another step meet a lock or stop meeting one. Inside a transaction,
//! its writes are its own until COMMIT (which is opaque), and the rows it
//! reads cannot change under it (a write from outside needs the lock it
//! holds); so only steps outside any transaction are compared by the
//! tables they read and write. Tables, not rows: telling rows apart
//! would need the rows each statement's WHERE reaches, which the authorizer
//! does not see.

use crate::sandbox::Access;
use crate::world::TransactionMode;
use std::sync::Arc;

/// What one step touched. Built by the interpreter after each step of a
/// concurrent section.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Footprint {
    /// Dependent on every other step.
    opaque: bool,
    /// The step met another process's lock and did not run.
    blocked: bool,
    /// The step left its process outside a transaction, which clears every
    /// process's blocked mark.
    unblocks: bool,
    /// The step ended its process's call (a decision, an error, the last
    /// step), or recorded an effect.
    judged: bool,
    /// The tables the step read and wrote, as the authorizer told them
    /// (shared with the sandbox's memory of the statement); `None` when it
    /// touched none that another step could see: an effect, or a
    /// statement inside its own transaction.
    touched: Option<Arc<Access>>,
}

/// What the interpreter saw of one step.
pub(super) struct Observed {
    pub(super) before: Option<TransactionMode>,
    pub(super) after: Option<TransactionMode>,
    /// `None` for an effect step; for a statement, what the authorizer saw
    /// (`None` inside when it is unknown).
    pub(super) statement: Option<Option<Arc<Access>>>,
    pub(super) blocked: bool,
    pub(super) ended_call: bool,
}

impl Footprint {
    /// Dependent on everything: for a step whose footprint was never
    /// recorded (its run ended inside it).
    pub(super) fn opaque() -> Footprint {
        Footprint {
            opaque: true,
            ..Footprint::default()
        }
    }

    pub(super) fn of(step: Observed) -> Footprint {
        let changed_transaction = step.before.is_none() || step.before != step.after;
        let unblocks = !step.blocked && step.after.is_some_and(|mode| !mode.open);
        let effect = step.statement.is_none();
        if step.blocked {
            // Nothing ran: only the process's own blocked mark changed, and
            // whether it blocks depends on the locks alone.
            return Footprint {
                opaque: changed_transaction,
                blocked: true,
                ..Footprint::default()
            };
        }
        let access = match step.statement {
            // An effect reads and writes no table.
            None => None,
            Some(Some(access)) => Some(access),
            Some(None) => return Footprint::opaque(),
        };
        let transaction = access.as_ref().is_some_and(|access| access.transaction);
        // Inside a transaction whose lock the step kept, what it wrote is its
        // own until COMMIT, and what it read no other step can change: a
        // write outside would need the lock this one holds, and meet it.
        let inside = step.before.is_some_and(|mode| mode.open) && !changed_transaction;
        Footprint {
            opaque: changed_transaction || transaction,
            blocked: false,
            unblocks,
            judged: step.ended_call || effect,
            touched: access.filter(|_| !inside),
        }
    }

    /// Whether the step left every process's locks as they were.
    pub(super) fn keeps_locks(&self) -> bool {
        !self.opaque
    }

    /// Whether the step met a lock (and so changed nothing but its own
    /// process's blocked mark).
    pub(super) fn blocked_keeping_locks(&self) -> bool {
        self.blocked && !self.opaque
    }

    /// Whether two steps of different processes commute (see the module's
    /// documentation for what makes them dependent).
    pub(super) fn independent(&self, other: &Footprint) -> bool {
        if self.opaque || other.opaque {
            return false;
        }
        if (self.blocked && other.unblocks) || (other.blocked && self.unblocks) {
            return false;
        }
        if self.judged && other.judged {
            return false;
        }
        let (Some(one), Some(another)) = (&self.touched, &other.touched) else {
            return true;
        };
        let conflict = |a: &Access, b: &Access| {
            a.writes
                .iter()
                .any(|t| b.reads.contains(t) || b.writes.contains(t))
        };
        !conflict(one, another) && !conflict(another, one)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::Lock;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    const OUTSIDE: TransactionMode = TransactionMode {
        open: false,
        lock: Lock::None,
    };
    const WRITING: TransactionMode = TransactionMode {
        open: true,
        lock: Lock::Reserved,
    };

    fn statement(
        before: TransactionMode,
        after: TransactionMode,
        r: &[&str],
        w: &[&str],
    ) -> Footprint {
        Footprint::of(Observed {
            before: Some(before),
            after: Some(after),
            statement: Some(Some(Arc::new(Access {
                reads: r.iter().map(|t| t.to_string()).collect(),
                writes: w.iter().map(|t| t.to_string()).collect(),
                transaction: false,
            }))),
            blocked: false,
            ended_call: false,
        })
    }

    fn blocked() -> Footprint {
        Footprint::of(Observed {
            before: Some(OUTSIDE),
            after: Some(OUTSIDE),
            statement: Some(None),
            blocked: true,
            ended_call: false,
        })
    }

    #[test]
    fn reads_commute_and_a_write_conflicts_with_a_read_of_its_table() {
        let read_a = statement(OUTSIDE, OUTSIDE, &["messages"], &[]);
        let read_b = statement(OUTSIDE, OUTSIDE, &["messages"], &[]);
        let write = statement(OUTSIDE, OUTSIDE, &["messages"], &["messages"]);
        let other = statement(OUTSIDE, OUTSIDE, &["tokens"], &["tokens"]);
        assert!(read_a.independent(&read_b));
        assert!(!read_a.independent(&write));
        assert!(!write.independent(&read_a));
        assert!(write.independent(&other));
    }

    #[test]
    fn a_transaction_that_begins_or_ends_depends_on_everything() {
        let begin = statement(OUTSIDE, WRITING, &[], &[]);
        let commit = statement(WRITING, OUTSIDE, &[], &[]);
        let read = statement(OUTSIDE, OUTSIDE, &["t"], &[]);
        assert!(!begin.independent(&read));
        assert!(!commit.independent(&read));
        assert!(!commit.independent(&blocked()));
    }

    #[test]
    fn writes_inside_a_held_transaction_are_private_until_commit() {
        let inside = statement(WRITING, WRITING, &["t"], &["t"]);
        let outside_read = statement(OUTSIDE, OUTSIDE, &["t"], &[]);
        assert!(inside.independent(&outside_read));
    }

    #[test]
    fn a_blocked_step_commutes_with_a_step_inside_a_held_transaction_only() {
        let inside = statement(WRITING, WRITING, &["t"], &["t"]);
        let outside = statement(OUTSIDE, OUTSIDE, &["u"], &["u"]);
        assert!(blocked().independent(&inside));
        assert!(blocked().independent(&blocked()));
        // A step that ends outside a transaction clears every blocked mark.
        assert!(!blocked().independent(&outside));
    }

    #[test]
    fn unknown_access_transaction_control_and_two_judged_steps_are_dependent() {
        let unknown = Footprint::of(Observed {
            before: Some(OUTSIDE),
            after: Some(OUTSIDE),
            statement: Some(None),
            blocked: false,
            ended_call: false,
        });
        let read = statement(OUTSIDE, OUTSIDE, &["t"], &[]);
        assert!(!unknown.independent(&read));
        let effect = |ended_call| {
            Footprint::of(Observed {
                before: Some(WRITING),
                after: Some(WRITING),
                statement: None,
                blocked: false,
                ended_call,
            })
        };
        assert!(effect(false).independent(&read));
        assert!(!effect(false).independent(&effect(false)));
        let mut ends = statement(OUTSIDE, OUTSIDE, &["u"], &[]);
        ends.judged = true;
        assert!(!ends.independent(&effect(false)));
        assert!(ends.independent(&read));
    }
}
