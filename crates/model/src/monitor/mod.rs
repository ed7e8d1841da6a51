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
mod violation;

pub use violation::{Holder, RuleError, Violation};

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
    /// What the exercise calls its token, for the sentences learners read:
    /// `incarnation`, `generation`, `fencing token`. `token` when not given.
    #[serde(default)]
    pub token_called: Option<String>,
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
    /// What a reader calls the process (crate::naming): `host-a #2`.
    pub called: String,
    pub token: Option<Value>,
    pub expires_at: Option<i64>,
    /// What the exercise calls the token (`token`, `incarnation`, ...).
    #[serde(default = "default_token_word")]
    pub token_called: String,
}

impl Belief {
    pub fn live_at(&self, clock_seconds: i64) -> bool {
        self.expires_at.is_none_or(|expiry| clock_seconds < expiry)
    }

    /// "message msg-1 (token 1)", in the exercise's words.
    pub fn describe(&self) -> String {
        match &self.token {
            Some(token) => format!("{} ({} {token})", self.resource, self.token_called),
            None => self.resource.clone(),
        }
    }
}

fn default_token_word() -> String {
    "token".into()
}

/// The beliefs of every process and what the monitor remembers of tokens.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Monitor {
    beliefs: Vec<Belief>,
    /// The most recent token granted for each resource.
    current_token: BTreeMap<String, Value>,
    /// Every token a fresh grant has carried, for any resource.
    granted: BTreeSet<Value>,
    /// What a reader calls each process, by its id (crate::naming).
    names: BTreeMap<String, String>,
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

    /// Says what a reader calls the process `process` (its name from
    /// crate::naming), for the beliefs and sentences about it.
    pub fn name_process(&mut self, process: &str, called: &str) {
        self.names.insert(process.to_string(), called.to_string());
    }

    /// The holder `process`, hosting `actor`, under its name (the actor
    /// itself for a process never named).
    fn holder(&self, process: &str, actor: &str) -> Holder {
        Holder {
            process: process.to_string(),
            actor: actor.to_string(),
            called: self
                .names
                .get(process)
                .map_or(actor, String::as_str)
                .to_string(),
        }
    }

    /// The beliefs live at `clock_seconds` (lapsed leases left out).
    pub fn live_beliefs(&self, clock_seconds: i64) -> Vec<Belief> {
        self.beliefs
            .iter()
            .filter(|b| b.live_at(clock_seconds))
            .cloned()
            .collect()
    }

    /// Updates beliefs from a call that returned ok, and returns the first
    /// invariant the call broke, if any. The beliefs are updated either way,
    /// so what every process believes stays true to its outcomes.
    pub fn call_ok(
        &mut self,
        rules: &[BeliefRule],
        call: &OkCall<'_>,
    ) -> Result<Option<Violation>, RuleError> {
        let mut context: Values = call.arguments.clone();
        context.extend(call.returned.iter().map(|(k, v)| (k.clone(), v.clone())));
        context.insert("actor".into(), Value::from(call.actor));
        context.insert("process".into(), Value::from(call.process));
        let holder = self.holder(call.process, call.actor);
        let mut violation = None;
        for rule in rules.iter().filter(|r| r.procedure == call.procedure) {
            let word = rule.token_called.clone().unwrap_or_else(default_token_word);
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
                let expires_at = expiry(rule, &context, call.procedure)?;
                let broke = self.grant(resource, expires_at, call, &holder, &token, &word);
                violation = violation.or(broke);
            }
            if let Some(template) = &rule.releases {
                let resource = render(template, &context)?;
                let broke = self.release(&resource, call.process, &holder, &token, &word);
                violation = violation.or(broke);
            }
        }
        Ok(violation)
    }

    /// Records that `call`'s process now holds `resource`, until
    /// `expires_at`, with `token` (a renewal keeps its token), and returns
    /// the invariant a fresh token broke, if any.
    fn grant(
        &mut self,
        resource: String,
        expires_at: Option<i64>,
        call: &OkCall<'_>,
        holder: &Holder,
        token: &Option<Value>,
        word: &str,
    ) -> Option<Violation> {
        let held = self.position(&resource, call.process);
        let renewal = token.is_some() && held.is_some_and(|i| self.beliefs[i].token == *token);
        let violation = match (renewal, token) {
            (false, Some(token)) => self.mint(&resource, holder, token, word),
            _ => None,
        };
        let belief = Belief {
            resource,
            process: call.process.to_string(),
            actor: call.actor.to_string(),
            called: holder.called.clone(),
            token: token.clone(),
            expires_at,
            token_called: word.to_string(),
        };
        match held {
            Some(i) => self.beliefs[i] = belief,
            None => {
                self.beliefs.push(belief);
                self.beliefs.sort();
            }
        }
        violation
    }

    /// Records `token` as the newest granted for `resource`, and returns
    /// the invariant it broke if it is not greater than the last one or was
    /// granted before.
    fn mint(
        &mut self,
        resource: &str,
        holder: &Holder,
        token: &Value,
        word: &str,
    ) -> Option<Violation> {
        // Tokens only grow for one resource; minted from one counter, no two
        // grants anywhere share one. (Grants on different resources may
        // finish out of mint order: a claim that mints outside its
        // transaction is still safe.)
        let violation = if let Some(earlier) = self.current_token.get(resource)
            && token <= earlier
        {
            Some(Violation::TokenNotGreater {
                resource: resource.to_string(),
                holder: holder.clone(),
                token: token.clone(),
                earlier: earlier.clone(),
                token_called: word.to_string(),
            })
        } else if !self.granted.insert(token.clone()) {
            Some(Violation::TokenReused {
                resource: resource.to_string(),
                holder: holder.clone(),
                token: token.clone(),
                token_called: word.to_string(),
            })
        } else {
            None
        };
        self.current_token
            .insert(resource.to_string(), token.clone());
        violation
    }

    /// Records that `process` no longer holds `resource`, and returns the
    /// invariant broken if the token it presented is not the current one.
    fn release(
        &mut self,
        resource: &str,
        process: &str,
        holder: &Holder,
        token: &Option<Value>,
        word: &str,
    ) -> Option<Violation> {
        let violation = match (token, self.current_token.get(resource)) {
            (Some(presented), Some(current)) if presented != current => {
                Some(Violation::StaleCompletion {
                    resource: resource.to_string(),
                    holder: holder.clone(),
                    presented: presented.clone(),
                    current: current.clone(),
                    token_called: word.to_string(),
                })
            }
            _ => None,
        };
        if let Some(i) = self.position(resource, process) {
            self.beliefs.remove(i);
        }
        violation
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
    ) -> Result<Option<Violation>, RuleError> {
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
                return Ok(Some(Violation::EffectWithoutClaim {
                    effect: effect.name.clone(),
                    holder: self.holder(&effect.process, &effect.actor),
                    resource,
                }));
            }
        }
        Ok(None)
    }

    /// At most one process may believe it holds a resource at a time.
    pub fn check_exclusive(&self, clock_seconds: i64) -> Option<Violation> {
        let live: Vec<&Belief> = self
            .beliefs
            .iter()
            .filter(|b| b.live_at(clock_seconds))
            .collect();
        live.windows(2).find_map(|pair| {
            let (first, second) = (pair[0], pair[1]);
            (first.resource == second.resource && first.process != second.process).then(|| {
                Violation::TwoHolders {
                    resource: first.resource.clone(),
                    first: self.holder(&first.process, &first.actor),
                    first_token: first.token.clone(),
                    second: self.holder(&second.process, &second.actor),
                    second_token: second.token.clone(),
                }
            })
        })
    }

    fn position(&self, resource: &str, process: &str) -> Option<usize> {
        self.beliefs
            .iter()
            .position(|b| b.resource == resource && b.process == process)
    }
}

/// Fills `{name}` in a template from `context`.
fn render(template: &str, context: &Values) -> Result<String, RuleError> {
    render_text(template, context).map_err(|message| RuleError { message })
}

/// Checks a template's braces and returns the names it uses, for loaders
/// that validate rules before anything runs.
pub fn template_names(template: &str) -> Result<Vec<String>, String> {
    let mut names = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let close = rest[open..]
            .find('}')
            .ok_or_else(|| format!("`{template}` has a `{{` without its `}}`"))?;
        let name = &rest[open + 1..open + close];
        if name.is_empty() || name.contains('{') {
            return Err(format!("`{template}` has an empty or nested `{{...}}`"));
        }
        names.push(name.to_string());
        rest = &rest[open + close + 1..];
    }
    Ok(names)
}

fn render_text(template: &str, context: &Values) -> Result<String, String> {
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

/// The expiry a grant's rule reads from the call's context: none without
/// `expires`, and none for a NULL one (a claim without a lease does not
/// lapse); anything but an integer is the rule's error.
fn expiry(rule: &BeliefRule, context: &Values, procedure: &str) -> Result<Option<i64>, RuleError> {
    match rule.expires.as_ref().map(|name| (name, context.get(name))) {
        None | Some((_, Some(Value::Null))) => Ok(None),
        Some((_, Some(Value::Integer(at)))) => Ok(Some(*at)),
        Some((name, _)) => Err(RuleError {
            message: format!(
                "{procedure} returned no integer `{name}` (the lease's expiry), which the \
                 exercise's belief rule needs"
            ),
        }),
    }
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
                token_called: None,
            },
            BeliefRule {
                procedure: "complete".into(),
                grants: None,
                releases: Some("message {message_id}".into()),
                token: Some("token".into()),
                expires: None,
                token_called: None,
            },
        ]
    }

    fn values(pairs: &[(&str, Value)]) -> Values {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect()
    }

    fn claim(monitor: &mut Monitor, process: &str, token: i64, expires: i64) -> Option<Violation> {
        monitor
            .call_ok(
                &rules(),
                &OkCall {
                    process,
                    actor: "worker",
                    procedure: "claim",
                    arguments: &values(&[("message_id", "msg-1".into())]),
                    returned: &values(&[("token", token.into()), ("expires_at", expires.into())]),
                },
            )
            .expect("the rules apply")
    }

    #[test]
    fn two_live_beliefs_on_one_resource_break_exclusivity() {
        let mut monitor = Monitor::default();
        assert_eq!(claim(&mut monitor, "proc-1", 1, 100), None);
        assert_eq!(claim(&mut monitor, "proc-2", 2, 200), None);
        let error = monitor
            .check_exclusive(50)
            .expect("a violation")
            .to_string();
        assert!(
            error.contains("both believe they hold message msg-1"),
            "{error}"
        );
        // Once proc-1's lease has lapsed, only proc-2 believes.
        assert_eq!(monitor.check_exclusive(100), None);
    }

    #[test]
    fn tokens_must_grow_and_renewals_keep_theirs() {
        let mut monitor = Monitor::default();
        assert_eq!(claim(&mut monitor, "proc-1", 3, 100), None);
        assert_eq!(claim(&mut monitor, "proc-1", 3, 100), None);
        let error = claim(&mut monitor, "proc-2", 3, 200)
            .expect("a violation")
            .to_string();
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
        assert_eq!(grant(&mut monitor, "proc-2", "msg-2", 6), Ok(None));
        assert_eq!(grant(&mut monitor, "proc-1", "msg-1", 5), Ok(None));
        let error = grant(&mut monitor, "proc-3", "msg-3", 5)
            .expect("the rules apply")
            .expect("a violation")
            .to_string();
        assert!(error.contains("a token of its own"), "{error}");
    }

    #[test]
    fn a_completion_must_present_the_current_token() {
        let mut monitor = Monitor::default();
        assert_eq!(claim(&mut monitor, "proc-1", 3, 100), None);
        assert_eq!(claim(&mut monitor, "proc-2", 5, 200), None);
        let stale = OkCall {
            process: "proc-1",
            actor: "worker",
            procedure: "complete",
            arguments: &values(&[("message_id", "msg-1".into()), ("token", 3.into())]),
            returned: &Values::new(),
        };
        let violation = monitor
            .call_ok(&rules(), &stale)
            .expect("the rules apply")
            .expect("a violation");
        assert_eq!(
            violation,
            Violation::StaleCompletion {
                resource: "message msg-1".into(),
                holder: Holder {
                    process: "proc-1".into(),
                    actor: "worker".into(),
                    called: "worker".into(),
                },
                presented: 3.into(),
                current: 5.into(),
                token_called: "token".into(),
            }
        );
        let error = violation.to_string();
        assert!(
            error.contains("under token 3, but the current token is 5"),
            "{error}"
        );
    }

    #[test]
    fn sentences_use_the_exercises_word_for_its_token() {
        let mut rules = rules();
        for rule in &mut rules {
            rule.token_called = Some("incarnation".into());
        }
        let mut monitor = Monitor::default();
        let claim = |monitor: &mut Monitor, process: &str, token: i64| {
            monitor.call_ok(
                &rules,
                &OkCall {
                    process,
                    actor: "host",
                    procedure: "claim",
                    arguments: &values(&[("message_id", "s-1".into())]),
                    returned: &values(&[("token", token.into()), ("expires_at", 100.into())]),
                },
            )
        };
        assert_eq!(claim(&mut monitor, "proc-1", 1), Ok(None));
        assert_eq!(claim(&mut monitor, "proc-2", 3), Ok(None));
        assert_eq!(
            monitor.beliefs()[0].describe(),
            "message s-1 (incarnation 1)"
        );
        let finish = OkCall {
            process: "proc-1",
            actor: "host",
            procedure: "complete",
            arguments: &values(&[("message_id", "s-1".into()), ("token", 1.into())]),
            returned: &Values::new(),
        };
        let sentence = monitor
            .call_ok(&rules, &finish)
            .expect("the rules apply")
            .expect("a violation")
            .to_string();
        assert!(
            sentence.ends_with("under incarnation 1, but the current incarnation is 3"),
            "{sentence}"
        );
    }

    #[test]
    fn a_template_naming_a_missing_value_is_a_rule_error() {
        let rules = vec![BeliefRule {
            procedure: "claim".into(),
            grants: Some("message {message_id".into()),
            releases: None,
            token: None,
            expires: None,
            token_called: None,
        }];
        let error = Monitor::default()
            .call_ok(
                &rules,
                &OkCall {
                    process: "proc-1",
                    actor: "w",
                    procedure: "claim",
                    arguments: &Values::new(),
                    returned: &Values::new(),
                },
            )
            .unwrap_err();
        assert!(error.message.contains("without its `}`"), "{error}");
        assert!(template_names("message {message_id").is_err());
        assert_eq!(
            template_names("a {x} b {y}").unwrap(),
            ["x".to_string(), "y".to_string()]
        );
    }
}
