//! Helpers shared by the tests that print outcomes as the lessons do.

use fencelab_core::{Outcome, Value, Values};

pub fn values(pairs: &[(&str, Value)]) -> Values {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect()
}

/// The lesson's printed line for a claim's outcome.
pub fn claim_line(actor: &str, outcome: &Outcome) -> String {
    match outcome {
        Outcome::Ok { values } => {
            let token = &values["token"];
            match values.get("freshness").and_then(Value::as_str) {
                Some("same") => format!("{actor}: still mine, SAME token {token}"),
                Some(_) => format!("{actor}: claimed with FRESH token {token}"),
                None => format!("{actor}: claimed with token {token}"),
            }
        }
        Outcome::Refused { reason, .. } => format!("{actor}: refused, {reason}"),
        Outcome::Error(error) => panic!("{actor}: unexpected error {error:?}"),
    }
}

pub fn complete_line(actor: &str, outcome: &Outcome) -> String {
    match outcome {
        Outcome::Ok { .. } => format!("{actor}: completed"),
        Outcome::Refused { reason, .. } => format!("{actor}: refused, {reason}"),
        Outcome::Error(error) => panic!("{actor}: unexpected error {error:?}"),
    }
}
