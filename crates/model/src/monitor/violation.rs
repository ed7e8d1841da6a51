//! Broken invariants as data, and the sentences learners read from them.

use crate::value::Value;
use serde::{Deserialize, Serialize};
use std::fmt;

/// A process as the invariants name it: by what a reader calls it
/// (crate::naming: `worker-b`, `host-a #2`), its id kept for who asks.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Holder {
    pub process: String,
    pub actor: String,
    pub called: String,
}

impl fmt::Display for Holder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.called)
    }
}

/// A broken invariant, as data. The sentence a learner reads is its
/// `Display`, in the exercise's own word for the token (`token_called`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Violation {
    /// Two processes believe at once that they hold one resource.
    TwoHolders {
        resource: String,
        first: Holder,
        first_token: Option<Value>,
        second: Holder,
        second_token: Option<Value>,
    },
    /// A fresh grant carried a token not greater than an earlier grant on
    /// the same resource.
    TokenNotGreater {
        resource: String,
        holder: Holder,
        token: Value,
        earlier: Value,
        token_called: String,
    },
    /// A fresh grant carried a token that an earlier grant already had.
    TokenReused {
        resource: String,
        holder: Holder,
        token: Value,
        token_called: String,
    },
    /// A release (a completion) succeeded under a token other than the
    /// resource's current one.
    StaleCompletion {
        resource: String,
        holder: Holder,
        presented: Value,
        current: Value,
        token_called: String,
    },
    /// An external effect from a process that does not hold the current
    /// claim the effect needs.
    EffectWithoutClaim {
        effect: String,
        holder: Holder,
        resource: String,
    },
    /// A scenario's own invariant query returned rows.
    ScenarioInvariant {
        name: String,
        columns: Vec<String>,
        rows: Vec<Vec<Value>>,
    },
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Violation::TwoHolders {
                resource,
                first,
                second,
                ..
            } => write!(f, "{first} and {second} both believe they hold {resource}"),
            Violation::TokenNotGreater {
                resource,
                holder,
                token,
                earlier,
                token_called: word,
            } => write!(
                f,
                "{holder} was granted {resource} with {word} {token}, but {word} {earlier} \
                 was granted for it before: {word}s must only grow"
            ),
            Violation::TokenReused {
                resource,
                holder,
                token,
                token_called: word,
            } => write!(
                f,
                "{holder} was granted {resource} with {word} {token}, which an earlier claim \
                 was already granted: every claim needs a {word} of its own from the shared counter"
            ),
            Violation::StaleCompletion {
                resource,
                holder,
                presented,
                current,
                token_called: word,
            } => write!(
                f,
                "{holder} completed {resource} under {word} {presented}, but the current {word} is {current}"
            ),
            Violation::EffectWithoutClaim {
                effect,
                holder,
                resource,
            } => write!(
                f,
                "{holder} caused the external effect {effect} without holding the current claim on {resource}"
            ),
            Violation::ScenarioInvariant {
                name,
                columns,
                rows,
            } => write!(f, "{name}: {}", crate::report::violated_by(columns, rows)),
        }
    }
}

/// A belief or effect rule that cannot be applied to a call: the exercise's
/// rules and the procedure disagree (a template names a value the call does
/// not have, an expiry that is not an integer). An error, never a failure:
/// it is not a counterexample.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RuleError {
    pub message: String,
}

impl fmt::Display for RuleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}
