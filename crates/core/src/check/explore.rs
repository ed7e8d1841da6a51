//! Exploration strategies: how the next process is chosen at each choice of
//! a run, and the depth-first search over every interleaving.
//!
//! The interpreter (`run.rs`) asks its [`Chooser`] at every choice and tells
//! it after every move; it never knows which strategy it serves.

use super::{Checker, Path};
use crate::random::SplitMix64;
use crate::report::{Exploration, Failure, ScenarioError};
use crate::scenario::{Action, Scenario};
use crate::schedule::Schedule;
use std::collections::HashMap;

/// How a run ended.
#[derive(Clone, Debug, Default)]
pub(super) enum End {
    #[default]
    Completed,
    /// Cut: the state reached had been reached before at no greater depth.
    Pruned,
    Failed(Box<Failure>),
    Error(ScenarioError),
    /// Driving by hand: the schedule ran out where these processes may move.
    Awaiting(Vec<String>),
    /// Stopped after the requested history event.
    Stopped,
}

/// Depth-first search state shared by the runs of one exploration.
pub(super) struct DepthFirst<'a> {
    /// The choices to replay before exploring anew (always the first option
    /// after them).
    prefix: &'a [usize],
    /// Every state compared so far, with the smallest depth it was seen at.
    seen: &'a mut Seen,
    /// The most bytes `seen` may hold.
    seen_bytes_max: u64,
    /// (choice index, number of options) wherever this run had a choice.
    branch_points: Vec<(usize, usize)>,
}

/// The states an exploration has compared, and the bytes they take.
#[derive(Default)]
pub(super) struct Seen {
    depths: HashMap<Vec<u8>, usize>,
    bytes: u64,
}

/// What one entry of [`Seen`] costs beside its key: the map's slot, the
/// key's allocation header, the depth.
const SEEN_ENTRY_OVERHEAD_BYTES: u64 = 64;

/// Chooses the process that moves next.
pub(super) enum Chooser<'a> {
    DepthFirst(DepthFirst<'a>),
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
    /// of the one that moves at choice `depth`.
    pub(super) fn choose(&mut self, depth: usize, options: &[String]) -> Result<usize, End> {
        let choice = match self {
            Chooser::DepthFirst(search) => {
                if options.len() > 1 {
                    search.branch_points.push((depth, options.len()));
                }
                search.prefix.get(depth).copied().unwrap_or(0)
            }
            Chooser::Indices(choices) => choices.get(depth).copied().unwrap_or(0),
            Chooser::Random(rng) => rng.below(options.len()),
            Chooser::Names {
                schedule,
                interactive,
            } => match schedule.get(depth) {
                Some(wanted) => options.iter().position(|n| n == wanted).ok_or_else(|| {
                    super::run::scenario_error(format!(
                        "the schedule's step {} names {wanted}, but only {} can move then",
                        depth + 1,
                        options.join(", ")
                    ))
                })?,
                None if *interactive => return Err(End::Awaiting(options.to_vec())),
                None => 0,
            },
        };
        if choice < options.len() {
            Ok(choice)
        } else {
            Err(super::run::scenario_error(
                "the schedule chose a process that cannot move".into(),
            ))
        }
    }

    /// Called after the `made`-th move: depth-first search prunes a state it
    /// has seen at no greater depth. `key` is the state, when it can be read.
    pub(super) fn moved(
        &mut self,
        made: usize,
        key: impl FnOnce() -> Option<Vec<u8>>,
    ) -> Result<(), End> {
        let Chooser::DepthFirst(search) = self else {
            return Ok(());
        };
        if made < search.prefix.len() {
            return Ok(());
        }
        let Some(key) = key() else { return Ok(()) };
        match search.seen.depths.get(&key) {
            Some(&earlier) if earlier <= made => Err(End::Pruned),
            Some(_) => {
                search.seen.depths.insert(key, made);
                Ok(())
            }
            None => {
                search.seen.bytes += key.len() as u64 + SEEN_ENTRY_OVERHEAD_BYTES;
                if search.seen.bytes > search.seen_bytes_max {
                    return Err(End::Error(ScenarioError::new(super::run::memory_exceeded(
                        search.seen_bytes_max,
                    ))));
                }
                search.seen.depths.insert(key, made);
                Ok(())
            }
        }
    }
}

/// What an exploration found: its figures and the choices of the schedule
/// to show (the worst run: errors outrank failures, then shorter, then
/// earlier; or the first complete run).
pub(super) struct Explored {
    pub(super) exploration: Exploration,
    pub(super) shown: Vec<usize>,
}

impl Checker {
    /// Runs every interleaving of the scenario's concurrent sections, depth
    /// first, from the seed each time, pruning states already seen.
    pub(super) fn explore_all(
        &mut self,
        scenario: &Scenario,
        actions: &[Action],
    ) -> Result<Explored, ScenarioError> {
        let mut exploration = Exploration {
            sections: super::sections(actions),
            ..Exploration::default()
        };
        let mut seen = Seen::default();
        let mut stack: Vec<Vec<usize>> = vec![Vec::new()];
        let mut worst: Option<(Vec<usize>, End)> = None;
        let mut first_complete: Option<Vec<usize>> = None;
        while let Some(prefix) = stack.pop() {
            if self.spent.procedure_steps > self.limits.steps_max {
                return Err(self.out_of_steps(&exploration));
            }
            if let Some(error) = self.over_budget(seen.bytes) {
                return Err(error);
            }
            if exploration.schedules >= self.limits.schedules_max {
                return Err(ScenarioError::new(format!(
                    "exploration stopped at its limit of {} schedules before covering \
                     every interleaving: this is not a pass",
                    self.limits.schedules_max
                )));
            }
            let mut chooser = Chooser::DepthFirst(DepthFirst {
                prefix: &prefix,
                seen: &mut seen,
                seen_bytes_max: self.limits.memory_bytes_max,
                branch_points: Vec::new(),
            });
            let path = self.run_path(scenario, actions, &mut chooser, None);
            let Chooser::DepthFirst(search) = chooser else {
                unreachable!("the chooser is the depth-first search built above")
            };
            for &(depth, options) in &search.branch_points {
                if depth >= prefix.len() {
                    for option in (1..options).rev() {
                        let mut sibling = path.choices[..depth].to_vec();
                        sibling.push(option);
                        stack.push(sibling);
                    }
                }
            }
            let Path { end, choices, .. } = path;
            self.spent.memory_bytes = self.spent.memory_bytes.max(seen.bytes);
            match end {
                End::Pruned => exploration.pruned += 1,
                // Exploration never waits for a person nor stops early.
                End::Awaiting(_) | End::Stopped => {}
                End::Completed => {
                    exploration.schedules += 1;
                    first_complete.get_or_insert(choices);
                }
                End::Failed(_) | End::Error(_) => {
                    exploration.schedules += 1;
                    let rank = |e: &End| matches!(e, End::Error(_)) as u8;
                    let better = worst.as_ref().is_none_or(|(shown, shown_end)| {
                        (rank(&end), std::cmp::Reverse(choices.len()))
                            > (rank(shown_end), std::cmp::Reverse(shown.len()))
                    });
                    if better {
                        worst = Some((choices, end));
                    }
                }
            }
        }
        if self.spent.procedure_steps > self.limits.steps_max {
            return Err(self.out_of_steps(&exploration));
        }
        if let Some(error) = self.over_budget(seen.bytes) {
            return Err(error);
        }
        exploration.states = seen.depths.len() as u64;
        let shown = worst
            .map(|(choices, _)| choices)
            .or(first_complete)
            .unwrap_or_default();
        Ok(Explored { exploration, shown })
    }

    /// The error of an exploration that has spent its SQLite steps or holds
    /// more than its memory allows in `seen_bytes` of explored states.
    fn over_budget(&self, seen_bytes: u64) -> Option<ScenarioError> {
        if let Some(denial) = self.world.meter().exceeded() {
            return Some(ScenarioError::new(denial.to_string()));
        }
        (seen_bytes > self.limits.memory_bytes_max)
            .then(|| ScenarioError::new(super::run::memory_exceeded(self.limits.memory_bytes_max)))
    }

    fn out_of_steps(&self, exploration: &Exploration) -> ScenarioError {
        ScenarioError::new(format!(
            "exploration stopped at its limit of {} procedure steps (over {} schedules and \
             {} pruned branches) before covering every interleaving: this is not a pass. \
             Simplify the scenario, or raise the limit (`fencelab run --max-steps`)",
            self.limits.steps_max, exploration.schedules, exploration.pruned
        ))
    }

    /// Runs up to `runs` schedules drawn from `seed`; the choices of the
    /// first failing one (or the last), and how many ran.
    pub(super) fn explore_random(
        &mut self,
        scenario: &Scenario,
        actions: &[Action],
        seed: u64,
        runs: u64,
    ) -> (Vec<usize>, u64) {
        let mut rng = SplitMix64::new(seed);
        let mut last = Vec::new();
        let mut done = 0;
        for _ in 0..runs {
            let path = self.run_path(scenario, actions, &mut Chooser::Random(&mut rng), None);
            done += 1;
            last = path.choices;
            if matches!(path.end, End::Failed(_) | End::Error(_)) {
                break;
            }
        }
        (last, done)
    }
}
