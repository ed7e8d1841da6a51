//! The interpreter's own state ([`State`]: what a run has done so far, as
//! its later steps read it), and a [`Resume`]: a clone of it with the
//! world's image, taken at a choice between transactions. The interpreter
//! (`run.rs`) makes and takes them up; the depth-first search
//! (`explore.rs`) only keeps them, so it needs this module and not the
//! interpreter.

use crate::history::Values;
use crate::monitor::Monitor;
use crate::scenario::Expect;
use crate::world::{Image, ProcessId};
use std::collections::BTreeMap;

#[derive(Clone)]
pub(super) struct CallInfo {
    pub(super) procedure: String,
    pub(super) arguments: Values,
    pub(super) expect: Option<Expect>,
}

/// The interpreter's own state: everything a later step of the run reads
/// of the steps before it, apart from the world. A [`Resume`] keeps a
/// clone of it, and a resumed run takes it up whole.
#[derive(Clone, Default)]
pub(super) struct State {
    /// Scenario name -> (process, actor).
    pub(super) processes: BTreeMap<String, (ProcessId, String)>,
    /// Calls in progress, by process.
    pub(super) calls: BTreeMap<ProcessId, CallInfo>,
    pub(super) monitor: Monitor,
    /// The world's effects the monitor has judged.
    pub(super) effects_seen: usize,
    /// The option index taken at each choice, in order (the run's path
    /// holds them once it ends).
    pub(super) choices: Vec<usize>,
    /// The process names taken at each choice: the schedule.
    pub(super) names: Vec<String>,
    /// Whether the step taken at each choice met another process's lock.
    pub(super) waited: Vec<bool>,
}

/// A run stopped at a choice between transactions, to resume later runs
/// from instead of replaying them from the seed: the world's image and
/// the interpreter's own state there (see world/image.rs).
pub(super) struct Resume {
    pub(super) world: Image,
    /// The concurrent section the choice belongs to, by action index, with
    /// its members and the steps it has taken.
    pub(super) action: usize,
    pub(super) members: Vec<(String, ProcessId)>,
    pub(super) section_steps: usize,
    pub(super) state: State,
    /// What the run had spent when it reached the choice: a resumed run
    /// charges it, as a replay of the same steps would have.
    pub(super) procedure_steps: u64,
    pub(super) sqlite_steps: u64,
}

impl Resume {
    /// The world as it stood at the choice.
    pub(super) fn world(&self) -> &Image {
        &self.world
    }

    /// Procedure steps and SQLite steps the run had spent to reach it.
    pub(super) fn cost(&self) -> (u64, u64) {
        (self.procedure_steps, self.sqlite_steps)
    }
}
