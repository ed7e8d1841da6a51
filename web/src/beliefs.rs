//! What each process believes it holds after each step of a history.
//!
//! The report does not carry beliefs, so the timeline replays the history's
//! call outcomes through the core's own [`Monitor`] with the exercise's
//! belief rules: the page computes nothing the engine does not define.

use fencelab_core::history::{Event, Outcome, Values, What};
use fencelab_core::monitor::{Belief, BeliefRule, Monitor, OkCall};
use std::collections::BTreeMap;

/// For each event, the beliefs live after it (lapsed leases dropped).
pub fn after_each_event(rules: &[BeliefRule], history: &[Event]) -> Vec<Vec<Belief>> {
    let mut monitor = Monitor::default();
    let mut arguments: BTreeMap<String, Values> = BTreeMap::new();
    history
        .iter()
        .map(|event| {
            let process = event.process.clone().unwrap_or_default();
            match &event.what {
                What::CallStarted { arguments: args } => {
                    arguments.insert(process.clone(), args.clone());
                }
                What::CallFinished {
                    outcome: Outcome::Ok { values },
                    ..
                } => {
                    let empty = Values::new();
                    let call = OkCall {
                        process: &process,
                        actor: event.actor.as_deref().unwrap_or_default(),
                        procedure: event.procedure.as_deref().unwrap_or_default(),
                        arguments: arguments.get(&process).unwrap_or(&empty),
                        returned: values,
                    };
                    // A broken invariant is the checker's to report; the
                    // beliefs are updated all the same.
                    let _ = monitor.call_ok(rules, &call);
                }
                What::ProcessCrashed { .. } => monitor.crashed(&process),
                _ => {}
            }
            monitor
                .beliefs()
                .iter()
                .filter(|b| b.live_at(event.clock_seconds))
                .cloned()
                .collect()
        })
        .collect()
}

/// "message msg-1 (token 1)".
pub fn describe(belief: &Belief) -> String {
    match &belief.token {
        Some(token) => format!("{} (token {token})", belief.resource),
        None => belief.resource.clone(),
    }
}
