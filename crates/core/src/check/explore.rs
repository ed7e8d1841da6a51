//! Exploration strategies: how the next process is chosen at each choice of
//! a run, and the depth-first search over every interleaving.
//!
//! The interpreter (`run.rs`) asks its [`Chooser`] at every choice and tells
//! it after every move; it never knows which strategy it serves.
//!
//! The depth-first search runs the scenario once for every branch: from
//! the image of the world kept at the deepest choice between transactions
//! that the new run shares with the last (world/image.rs), or else from
//! the seed, replaying the path down to the branch. It cuts a run at a
//! state seen before at no greater depth. Its
//! reduced form (the default) also keeps sleep sets (Godefroid): after the
//! subtree of a step `t` at a choice is explored, `t` sleeps in the
//! subtrees of the later options there, and stays asleep down a path as
//! long as each step taken commutes with it (`footprint.rs`); a sleeping
//! step is not taken, since taking it only reorders commuting steps of an
//! interleaving already run. Sleep sets alone still reach every state (only
//! transitions are skipped), so every invariant and expectation is judged.
//!
//! Sleep sets and seen states together are unsound if a state seen with
//! some steps asleep cuts a later arrival where fewer sleep: the steps
//! asleep the first time were never explored from it. So a state keeps
//! every (depth, asleep) it was explored from, and cuts an arrival only
//! when one of them has no greater depth and a subset of its sleepers:
//! everything the arrival would explore, that visit explored or is
//! exploring. The runs kept are a subset of the plain search's, in the same
//! order; the shown schedule (errors first, then shortest, then first in
//! that order) is never among those skipped, since each skipped run has an
//! earlier, commuted twin of equal length that fails no later (differential
//! test: `tests/suite/explorer_differential.rs`).

use super::Checker;
use super::end::{End, denied, limit_hit, memory_exceeded, misfit};
use super::footprint::Footprint;
use super::state::Resume;
use crate::random::SplitMix64;
use crate::report::{ErrorKind, Exploration, Explored, Limit, Misfit, ScenarioError};
use crate::schedule::Schedule;
use rustc_hash::FxBuildHasher;
use std::collections::HashMap;
use std::sync::Arc;

/// How a scenario's search covers the interleavings: depth first over
/// every one (reduced or plain), or a sample drawn at random.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Strategy {
    /// Every interleaving, cut only where a state was seen before.
    Plain,
    /// Also runs only one order of steps that commute (sleep sets): the
    /// same verdicts and shown schedules from fewer runs.
    #[default]
    Reduced,
    /// `runs` schedules drawn from `seed` by a portable PRNG, for
    /// scenarios too large to explore exhaustively (`random.rs`): a seed
    /// gives the same schedules natively and in wasm.
    Random { seed: u64, runs: u64 },
}

/// A process's step taken at some choice, with what it touched.
#[derive(Clone, Debug)]
struct Taken {
    process: String,
    footprint: Footprint,
}

/// One choice on the current path of the depth-first search.
struct Node {
    /// The action (concurrent section) the choice belongs to.
    action: usize,
    /// Steps taken in that section before this choice.
    section_step: usize,
    options: Vec<String>,
    /// The option being explored.
    taken: usize,
    /// What the taken option's step touched, once it has run.
    footprint: Option<Footprint>,
    /// Steps asleep on arrival: explored from an earlier state, and every
    /// step since commutes with them, so starting with one of them here
    /// only reorders an interleaving already covered.
    sleep: Vec<Taken>,
    /// The options explored here before `taken`.
    done: Vec<Taken>,
    /// The run as it stood on arrival, if no transaction was open then and
    /// more than one option could be explored: later runs that branch at
    /// or below this choice resume here instead of replaying from the seed.
    resume: Option<Arc<Resume>>,
}

impl Node {
    fn asleep_or_done(&self, process: &str) -> bool {
        self.sleep
            .iter()
            .chain(&self.done)
            .any(|t| t.process == process)
    }
}

/// Depth-first search over the choices of one exploration, run after run
/// (each run from the seed, replaying the path to its newest branch).
pub(super) struct DepthFirst {
    strategy: Strategy,
    /// The current path: a node per choice of the latest run.
    nodes: Vec<Node>,
    /// How many of `nodes` the next run replays; the last of them is the
    /// branch it explores anew.
    replay: usize,
    /// Every state compared so far.
    seen: Seen,
    /// The most bytes `seen` may hold.
    seen_bytes_max: u64,
    /// The most steps one concurrent section may take.
    section_steps_max: usize,
    /// Whether a run is cut at a state seen before. Off only to look for
    /// a schedule to show, where two runs through the same states are
    /// different pictures (one of them shows a wait).
    prune_states: bool,
    /// Whether runs resume from the images kept at choices instead of
    /// replaying from the seed (the same runs and reports either way).
    resuming: bool,
}

/// The states an exploration has compared, each with the depths and sleep
/// sets it was explored from, and the bytes they take.
#[derive(Default)]
pub(super) struct Seen {
    visits: HashMap<Vec<u8>, Vec<Visit>, FxBuildHasher>,
    bytes: u64,
}

/// One exploration from a state: at `depth`, with these processes asleep
/// (sorted). It covers a later arrival at no smaller depth with at least
/// these asleep: what that arrival would explore is a subset of what this
/// one did.
struct Visit {
    depth: usize,
    asleep: Vec<String>,
}

impl Visit {
    fn covers(&self, depth: usize, asleep: &[String]) -> bool {
        self.depth <= depth && self.asleep.iter().all(|p| asleep.contains(p))
    }
}

/// What one entry of [`Seen`] costs beside its key: the map's slot, the
/// key's allocation header, the depth.
const SEEN_ENTRY_OVERHEAD_BYTES: u64 = 64;

impl Seen {
    /// Distinct states compared.
    pub(super) fn states(&self) -> u64 {
        self.visits.len() as u64
    }

    pub(super) fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Whether an earlier visit covers this one; otherwise records it.
    fn covered_or_record(&mut self, key: Vec<u8>, depth: usize, asleep: Vec<String>) -> bool {
        let names: u64 = asleep.iter().map(|p| p.len() as u64).sum();
        match self.visits.get_mut(&key) {
            Some(visits) => {
                if visits.iter().any(|v| v.covers(depth, &asleep)) {
                    return true;
                }
                let before = visits.len();
                visits.retain(|v| {
                    !(Visit {
                        depth,
                        asleep: asleep.clone(),
                    })
                    .covers(v.depth, &v.asleep)
                });
                if visits.len() >= before {
                    self.bytes += SEEN_ENTRY_OVERHEAD_BYTES + names;
                }
                visits.push(Visit { depth, asleep });
            }
            None => {
                self.bytes += key.len() as u64 + SEEN_ENTRY_OVERHEAD_BYTES + names;
                self.visits.insert(key, vec![Visit { depth, asleep }]);
            }
        }
        false
    }
}

impl DepthFirst {
    pub(super) fn new(strategy: Strategy, limits: &super::Limits, resuming: bool) -> DepthFirst {
        DepthFirst {
            strategy,
            nodes: Vec::new(),
            replay: 0,
            seen: Seen::default(),
            seen_bytes_max: limits.memory_bytes_max,
            section_steps_max: limits.section_steps_max,
            prune_states: true,
            resuming,
        }
    }

    /// Every interleaving in the plain search's order, none cut: for
    /// choosing which passing schedule to show, never for a verdict.
    pub(super) fn unpruned(limits: &super::Limits, resuming: bool) -> DepthFirst {
        DepthFirst {
            prune_states: false,
            ..DepthFirst::new(Strategy::Plain, limits, resuming)
        }
    }

    /// Where the next run can start: the deepest choice it replays that
    /// kept an image. The choices above it are the same in the next run,
    /// so the image is the state the replay would reach there.
    pub(super) fn resume_point(&self) -> Option<Arc<Resume>> {
        self.nodes
            .get(..self.replay)?
            .iter()
            .rev()
            .find_map(|node| node.resume.clone())
    }

    pub(super) fn seen(&self) -> &Seen {
        &self.seen
    }

    /// Moves to the next branch after a run: the deepest choice with an
    /// option not yet explored (nor asleep, nor known to lead only to
    /// sleeping steps). False once there is none: the exploration is
    /// complete.
    pub(super) fn next_branch(&mut self) -> bool {
        if self.strategy == Strategy::Plain {
            while let Some(node) = self.nodes.last_mut() {
                if node.taken + 1 < node.options.len() {
                    node.taken += 1;
                    self.replay = self.nodes.len();
                    return true;
                }
                self.nodes.pop();
            }
            return false;
        }
        // The steps of the choice just left, as they were there: the same
        // steps here, if the step between kept every lock as it was.
        let mut known: Vec<Taken> = Vec::new();
        while let Some(node) = self.nodes.last_mut() {
            let taken = node.footprint.take().unwrap_or_else(Footprint::opaque);
            if !taken.keeps_locks() {
                known.clear();
            }
            node.done.push(Taken {
                process: node.options[node.taken].clone(),
                footprint: taken,
            });
            let mut next = None;
            for option in node.taken + 1..node.options.len() {
                let process = &node.options[option];
                if node.asleep_or_done(process) {
                    continue;
                }
                let asleep: Vec<Taken> = node.sleep.iter().chain(&node.done).cloned().collect();
                let blocked = Blocking {
                    known: &known,
                    section_steps_max: self.section_steps_max,
                };
                match blocked.only_sleepers_after(
                    &node.options,
                    &asleep,
                    process,
                    node.section_step,
                ) {
                    Some(footprint) => node.done.push(Taken {
                        process: process.clone(),
                        footprint,
                    }),
                    None => {
                        next = Some(option);
                        break;
                    }
                }
            }
            if let Some(next) = next {
                node.taken = next;
                self.replay = self.nodes.len();
                return true;
            }
            if let Some(left) = self.nodes.pop() {
                known = left.sleep.into_iter().chain(left.done).collect();
            }
        }
        false
    }

    /// The steps asleep after the choice at `depth` took its option: those
    /// asleep there or explored there before, that commute with the step
    /// taken.
    fn asleep_after(&self, depth: usize) -> Vec<Taken> {
        let Some(node) = self.nodes.get(depth) else {
            return Vec::new();
        };
        let Some(taken) = &node.footprint else {
            return Vec::new();
        };
        node.sleep
            .iter()
            .chain(&node.done)
            .filter(|t| t.footprint.independent(taken))
            .cloned()
            .collect()
    }

    fn choose(
        &mut self,
        depth: usize,
        action: usize,
        options: &[String],
        image: impl FnOnce() -> Option<Resume>,
    ) -> Result<usize, End> {
        if let Some(node) = self.nodes.get(depth).filter(|_| depth < self.replay) {
            return Ok(node.taken);
        }
        self.nodes.truncate(depth);
        let section_step = match depth.checked_sub(1).map(|parent| &self.nodes[parent]) {
            Some(parent) if parent.action == action => parent.section_step + 1,
            _ => 0,
        };
        let sleep = match depth.checked_sub(1) {
            Some(parent) if self.nodes[parent].action == action => self.asleep_after(parent),
            // A section ends only when each of its processes has moved, so
            // nothing sleeps across sections.
            _ => Vec::new(),
        };
        let Some(taken) =
            (0..options.len()).find(|&i| !sleep.iter().any(|t| t.process == options[i]))
        else {
            // Every process that can move here is asleep: each order from
            // here was covered by an earlier run.
            return Err(End::Pruned);
        };
        // An option asleep on arrival is never explored here, so only a
        // choice with two awake can be branched at later.
        let awake = options
            .iter()
            .filter(|o| !sleep.iter().any(|t| &t.process == *o))
            .count();
        let resume = (self.resuming && awake > 1)
            .then(image)
            .flatten()
            .map(Arc::new);
        self.nodes.push(Node {
            action,
            section_step,
            options: options.to_vec(),
            taken,
            footprint: None,
            sleep,
            done: Vec::new(),
            resume,
        });
        Ok(taken)
    }

    fn moved(
        &mut self,
        made: usize,
        footprint: impl FnOnce() -> Footprint,
        key: impl FnOnce() -> Option<Vec<u8>>,
    ) -> Result<(), End> {
        let reduced = self.strategy == Strategy::Reduced;
        if reduced && let Some(node) = made.checked_sub(1).and_then(|d| self.nodes.get_mut(d)) {
            node.footprint = Some(footprint());
        }
        if made < self.replay || !self.prune_states {
            return Ok(());
        }
        let Some(key) = key() else { return Ok(()) };
        let mut asleep: Vec<String> = if reduced {
            self.asleep_after(made - 1)
                .into_iter()
                .map(|t| t.process)
                .collect()
        } else {
            Vec::new()
        };
        asleep.sort();
        if self.seen.covered_or_record(key, made, asleep) {
            return Err(End::Pruned);
        }
        if self.seen.bytes > self.seen_bytes_max {
            return Err(limit_hit(memory_exceeded(self.seen_bytes_max)));
        }
        Ok(())
    }
}

/// Runs that need not be run: a step that met a lock meets it again from
/// any state with the same locks, and its process's next statement the
/// same (SQLite takes a statement's locks before it reads a row). So where
/// a step that kept every lock leads from a choice to the one below, the
/// steps that met a lock below are known here before running them; a run
/// that would take only such steps and then find every process asleep
/// would explore nothing, and is not run.
struct Blocking<'a> {
    /// The steps of the choice below, valid here.
    known: &'a [Taken],
    section_steps_max: usize,
}

impl Blocking<'_> {
    /// The footprint of `candidate`'s step, if it is known to meet a lock
    /// and every run it starts from here (with `asleep` asleep or explored,
    /// after `section_step` steps of its section) meets only locks and then
    /// sleepers. Never when a run could meet something else: a deadlock
    /// (nobody left to move), the section's step limit.
    fn only_sleepers_after(
        &self,
        options: &[String],
        asleep: &[Taken],
        candidate: &str,
        section_step: usize,
    ) -> Option<Footprint> {
        let footprint = self
            .known
            .iter()
            .find(|t| t.process == candidate)
            .map(|t| &t.footprint)
            .filter(|f| f.blocked_keeping_locks())?;
        let left: Vec<String> = options
            .iter()
            .filter(|o| *o != candidate)
            .cloned()
            .collect();
        if left.is_empty() || section_step + 1 >= self.section_steps_max {
            return None;
        }
        let mut below: Vec<Taken> = asleep
            .iter()
            .filter(|t| t.footprint.independent(footprint))
            .cloned()
            .collect();
        for option in &left {
            if below.iter().any(|t| &t.process == option) {
                continue;
            }
            let next = self.only_sleepers_after(&left, &below, option, section_step + 1)?;
            below.push(Taken {
                process: option.clone(),
                footprint: next,
            });
        }
        Some(footprint.clone())
    }
}

/// Chooses the process that moves next.
pub(super) enum Chooser<'a> {
    DepthFirst(&'a mut DepthFirst),
    /// Follow option indices (a schedule found by exploration).
    Indices(&'a [usize]),
    /// Choose at random from a seeded, portable sequence.
    Random(&'a mut SplitMix64),
    /// Follow the named processes; when they run out, take the first option,
    /// or (`interactive`) stop and report the options.
    Names {
        schedule: &'a Schedule,
        interactive: bool,
    },
}

impl Chooser<'_> {
    /// The index into `options` (the names of the processes that can move)
    /// of the one that moves at choice `depth`, inside the concurrent
    /// section that is action `action` of the scenario. `image` is the run
    /// as it stands, which the depth-first search keeps to resume from.
    pub(super) fn choose(
        &mut self,
        depth: usize,
        action: usize,
        options: &[String],
        image: impl FnOnce() -> Option<Resume>,
    ) -> Result<usize, End> {
        let choice = match self {
            Chooser::DepthFirst(search) => search.choose(depth, action, options, image)?,
            Chooser::Indices(choices) => choices.get(depth).copied().unwrap_or(0),
            Chooser::Random(rng) => rng.below(options.len()),
            Chooser::Names {
                schedule,
                interactive,
            } => match schedule.get(depth) {
                Some(wanted) => options.iter().position(|n| n == wanted).ok_or_else(|| {
                    misfit(Misfit::NotMovable {
                        step: depth + 1,
                        named: wanted.to_string(),
                        movable: options.to_vec(),
                    })
                })?,
                None if *interactive => return Err(End::Awaiting(options.to_vec())),
                None => 0,
            },
        };
        if choice < options.len() {
            Ok(choice)
        } else {
            Err(misfit(Misfit::ChoseStuckProcess))
        }
    }

    /// Called after the `made`-th move: depth-first search prunes a state it
    /// has seen at no greater depth (and, reduced, with no more asleep).
    /// `footprint` is what the move touched; `key` is the state, when it
    /// can be read.
    pub(super) fn moved(
        &mut self,
        made: usize,
        footprint: impl FnOnce() -> Footprint,
        key: impl FnOnce() -> Option<Vec<u8>>,
    ) -> Result<(), End> {
        match self {
            Chooser::DepthFirst(search) => search.moved(made, footprint, key),
            _ => Ok(()),
        }
    }
}

impl Checker {
    /// The error of an exploration that has spent its SQLite steps or holds
    /// more than its memory allows in `seen_bytes` of explored states.
    pub(super) fn over_budget(&self, seen_bytes: u64) -> Option<ScenarioError> {
        if let Some(denial) = self.world.meter().exceeded() {
            return Some(denied(denial, None));
        }
        (seen_bytes > self.limits.memory_bytes_max).then(|| {
            ScenarioError::of(ErrorKind::Limit {
                limit: memory_exceeded(self.limits.memory_bytes_max),
            })
        })
    }

    pub(super) fn out_of_steps(&self, exploration: &Exploration) -> ScenarioError {
        ScenarioError::of(ErrorKind::Limit {
            limit: Limit::ProcedureSteps {
                maximum: self.limits.steps_max,
                explored: Some(Explored {
                    schedules: exploration.schedules,
                    pruned: exploration.pruned,
                }),
            },
        })
    }
}
