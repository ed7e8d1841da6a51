//! What processes believe, and the general invariants over those beliefs.
//!
//! The naive claim's failure cannot be seen in the database: the row names
//! one owner while two processes each believe they own the message. So the
//! checker keeps, beside the world, what every process believes it holds,
//! updated only from calls that returned ok, and checks after every step:
//!
//! - at most one process believes it holds a given claim at a time (a belief
//!   lapses when the lease it was granted with expires);
//! - tokens only grow: a fresh grant on a resource carries a greater token
//!   than any granted on it before, and no two grants share a token;
//! - no completion is committed under a token other than the current one;
//! - no external effect comes from a process that does not hold the current
//!   claim it needs.
//!
//! An exercise says which procedures grant and release beliefs with
//! [`BeliefRule`]s and which effects need a claim with [`EffectRule`]s.

use crate::history::{Effect, Values};
use crate::value::Value;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// How a procedure's ok outcome changes what its process believes.
///
/// Templates such as `"message {message_id}"` name the resource; `{name}`
/// is filled from the call's arguments, its returned values, `actor` and
/// `process`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BeliefRule {
    pub procedure: String,
    /// The resource an ok call grants: the process now believes it holds it.
    #[serde(default)]
    pub grants: Option<String>,
    /// The resource an ok call releases (a completion, a release).
    #[serde(default)]
    pub releases: Option<String>,
    /// The value carrying the fencing token: returned by a grant, presented
    /// (an argument) by a release.
    #[serde(default)]
    pub token: Option<String>,
    /// The returned value carrying the lease's expiry, in clock seconds.
    #[serde(default)]
    pub expires: Option<String>,
}

/// An external effect that only the holder of a current claim may cause.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EffectRule {
    pub effect: String,
    /// The resource template whose current claim the effect needs.
    pub requires: String,
}

/// One process's belief that it holds a resource.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Belief {
    pub resource: String,
    pub process: String,
    pub actor: String,
    pub token: Option<Value>,
    pub expires_at: Option<i64>,
}

impl Belief {
    pub fn live_at(&self, clock_seconds: i64) -> bool {
        self.expires_at.is_none_or(|expiry| clock_seconds < expiry)
    }
}

/// The beliefs of every process and what the monitor remembers of tokens.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Monitor {
    beliefs: Vec<Belief>,
    /// The most recent token granted for each resource.
    current_token: BTreeMap<String, Value>,
    /// Every token a fresh grant has carried, for any resource.
    granted: BTreeSet<Value>,
}

/// A call that finished ok, as the monitor needs to see it.
pub struct OkCall<'a> {
    pub process: &'a str,
    pub actor: &'a str,
    pub procedure: &'a str,
    pub arguments: &'a Values,
    pub returned: &'a Values,
}

impl Monitor {
    pub fn beliefs(&self) -> &[Belief] {
        &self.beliefs
    }

    /// Updates beliefs from a call that returned ok; returns the invariant it
    /// broke, if any.
    pub fn call_ok(&mut self, rules: &[BeliefRule], call: &OkCall<'_>) -> Result<(), String> {
        let mut context: Values = call.arguments.clone();
        context.extend(call.returned.iter().map(|(k, v)| (k.clone(), v.clone())));
        context.insert("actor".into(), Value::from(call.actor));
        context.insert("process".into(), Value::from(call.process));
        let who = format!("{} ({})", call.process, call.actor);
        for rule in rules.iter().filter(|r| r.procedure == call.procedure) {
            // NULL is no token at all: a claim that mints none grants nothing
            // to compare.
            let token = rule
                .token
                .as_ref()
                .and_then(|name| context.get(name))
                .filter(|value| **value != Value::Null)
                .cloned();
            if let Some(template) = &rule.grants {
                let resource = render(template, &context)?;
                // A NULL expiry is a claim without a lease: it does not lapse.
                let expires_at = match rule.expires.as_ref().map(|name| (name, context.get(name))) {
                    None | Some((_, Some(Value::Null))) => None,
                    Some((_, Some(Value::Integer(at)))) => Some(*at),
                    Some((name, _)) => {
                        return Err(format!(
                            "{} returned no integer `{name}` (the lease's expiry)",
                            call.procedure
                        ));
                    }
                };
                let held = self.position(&resource, call.process);
                let renewal =
                    token.is_some() && held.is_some_and(|i| self.beliefs[i].token == token);
                if let (false, Some(token)) = (renewal, &token) {
                    // Tokens only grow for one resource; minted from one
                    // counter, no two grants anywhere share one. (Grants on
                    // different resources may finish out of mint order: a
                    // claim that mints outside its transaction is still safe.)
                    if let Some(current) = self.current_token.get(&resource)
                        && token <= current
                    {
                        return Err(format!(
                            "{who} was granted {resource} with token {token}, \
                             but token {current} was granted for it before: tokens must only grow"
                        ));
                    }
                    if !self.granted.insert(token.clone()) {
                        return Err(format!(
                            "{who} was granted {resource} with token {token}, \
                             which an earlier claim was already granted: every claim needs \
                             a token of its own from the shared counter"
                        ));
                    }
                    self.current_token.insert(resource.clone(), token.clone());
                }
                let belief = Belief {
                    resource,
                    process: call.process.to_string(),
                    actor: call.actor.to_string(),
                    token: token.clone(),
                    expires_at,
                };
                match held {
                    Some(i) => self.beliefs[i] = belief,
                    None => {
                        self.beliefs.push(belief);
                        self.beliefs.sort();
                    }
                }
            }
            if let Some(template) = &rule.releases {
                let resource = render(template, &context)?;
                if let (Some(presented), Some(current)) =
                    (&token, self.current_token.get(&resource))
                    && presented != current
                {
                    return Err(format!(
                        "{who} completed {resource} under token {presented}, \
                         but the current token is {current}"
                    ));
                }
                if let Some(i) = self.position(&resource, call.process) {
                    self.beliefs.remove(i);
                }
            }
        }
        Ok(())
    }

    /// A crashed process believes nothing.
    pub fn crashed(&mut self, process: &str) {
        self.beliefs.retain(|b| b.process != process);
    }

    /// Checks an external effect against the rules.
    pub fn effect(
        &self,
        rules: &[EffectRule],
        effect: &Effect,
        clock_seconds: i64,
    ) -> Result<(), String> {
        let mut context = effect.values.clone();
        context.insert("actor".into(), Value::from(effect.actor.as_str()));
        context.insert("process".into(), Value::from(effect.process.as_str()));
        for rule in rules.iter().filter(|r| r.effect == effect.name) {
            let resource = render(&rule.requires, &context)?;
            let current = self.current_token.get(&resource);
            let holds = self.beliefs.iter().any(|b| {
                b.resource == resource
                    && b.process == effect.process
                    && b.live_at(clock_seconds)
                    && b.token.as_ref() == current
            });
            if !holds {
                return Err(format!(
                    "{} ({}) caused the external effect {} without holding the current claim on {resource}",
                    effect.process, effect.actor, effect.name
                ));
            }
        }
        Ok(())
    }

    /// At most one process may believe it holds a resource at a time.
    pub fn check_exclusive(&self, clock_seconds: i64) -> Result<(), String> {
        let live: Vec<&Belief> = self
            .beliefs
            .iter()
            .filter(|b| b.live_at(clock_seconds))
            .collect();
        for pair in live.windows(2) {
            let (first, second) = (pair[0], pair[1]);
            if first.resource == second.resource && first.process != second.process {
                return Err(format!(
                    "{} ({}) and {} ({}) both believe they hold {}",
                    first.process, first.actor, second.process, second.actor, first.resource
                ));
            }
        }
        Ok(())
    }

    fn position(&self, resource: &str, process: &str) -> Option<usize> {
        self.beliefs
            .iter()
            .position(|b| b.resource == resource && b.process == process)
    }
}

/// Fills `{name}` in a template from `context`.
fn render(template: &str, context: &Values) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let close = rest[open..]
            .find('}')
            .ok_or_else(|| format!("`{template}` has a `{{` without its `}}`"))?;
        let name = &rest[open + 1..open + close];
        let value = context
            .get(name)
            .ok_or_else(|| format!("`{template}` names `{name}`, which the call does not have"))?;
        match value {
            Value::Text(text) => out.push_str(text),
            other => out.push_str(&other.to_string()),
        }
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn rules() -> Vec<BeliefRule> {
        vec![
            BeliefRule {
                procedure: "claim".into(),
                grants: Some("message {message_id}".into()),
                releases: None,
                token: Some("token".into()),
                expires: Some("expires_at".into()),
            },
            BeliefRule {
                procedure: "complete".into(),
                grants: None,
                releases: Some("message {message_id}".into()),
                token: Some("token".into()),
                expires: None,
            },
        ]
    }

    fn values(pairs: &[(&str, Value)]) -> Values {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect()
    }

    fn claim(monitor: &mut Monitor, process: &str, token: i64, expires: i64) -> Result<(), String> {
        monitor.call_ok(
            &rules(),
            &OkCall {
                process,
                actor: "worker",
                procedure: "claim",
                arguments: &values(&[("message_id", "msg-1".into())]),
                returned: &values(&[("token", token.into()), ("expires_at", expires.into())]),
            },
        )
    }

    #[test]
    fn two_live_beliefs_on_one_resource_break_exclusivity() {
        let mut monitor = Monitor::default();
        claim(&mut monitor, "proc-1", 1, 100).unwrap();
        claim(&mut monitor, "proc-2", 2, 200).unwrap();
        let error = monitor.check_exclusive(50).unwrap_err();
        assert!(
            error.contains("both believe they hold message msg-1"),
            "{error}"
        );
        // Once proc-1's lease has lapsed, only proc-2 believes.
        monitor.check_exclusive(100).unwrap();
    }

    #[test]
    fn tokens_must_grow_and_renewals_keep_theirs() {
        let mut monitor = Monitor::default();
        claim(&mut monitor, "proc-1", 3, 100).unwrap();
        claim(&mut monitor, "proc-1", 3, 100).unwrap();
        let error = claim(&mut monitor, "proc-2", 3, 200).unwrap_err();
        assert!(error.contains("tokens must only grow"), "{error}");
    }

    #[test]
    fn grants_on_different_resources_may_finish_out_of_order_but_never_share_a_token() {
        let grant = |monitor: &mut Monitor, process: &str, message: &str, token: i64| {
            monitor.call_ok(
                &rules(),
                &OkCall {
                    process,
                    actor: "worker",
                    procedure: "claim",
                    arguments: &values(&[("message_id", message.into())]),
                    returned: &values(&[("token", token.into()), ("expires_at", 100.into())]),
                },
            )
        };
        let mut monitor = Monitor::default();
        grant(&mut monitor, "proc-2", "msg-2", 6).unwrap();
        grant(&mut monitor, "proc-1", "msg-1", 5).unwrap();
        let error = grant(&mut monitor, "proc-3", "msg-3", 5).unwrap_err();
        assert!(error.contains("a token of its own"), "{error}");
    }

    #[test]
    fn a_completion_must_present_the_current_token() {
        let mut monitor = Monitor::default();
        claim(&mut monitor, "proc-1", 3, 100).unwrap();
        claim(&mut monitor, "proc-2", 5, 200).unwrap();
        let stale = OkCall {
            process: "proc-1",
            actor: "worker",
            procedure: "complete",
            arguments: &values(&[("message_id", "msg-1".into()), ("token", 3.into())]),
            returned: &Values::new(),
        };
        let error = monitor.call_ok(&rules(), &stale).unwrap_err();
        assert!(
            error.contains("under token 3, but the current token is 5"),
            "{error}"
        );
    }
}
