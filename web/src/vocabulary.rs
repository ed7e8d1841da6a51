//! What the editor offers beside a procedure and as completions: the
//! built-in parameters, the exercise's constants, the parameters its
//! reference uses, and the decision comments.

use crate::editor::Word;
use fencelab_model::procedure::{BUILT_IN_PARAMETERS, DECISION_FORMS};
use fencelab_model::{Exercise, Procedure};

/// What `procedure` of `exercise` can use.
pub fn vocabulary(exercise: &Exercise, procedure: &str) -> Vec<Word> {
    let mut words: Vec<Word> = Vec::new();
    let mut add = |label: String, detail: &str| {
        if !words.iter().any(|w| w.label == label) {
            words.push(Word {
                label,
                detail: detail.to_string(),
                kind: "parameter",
            });
        }
    };
    for (name, detail) in BUILT_IN_PARAMETERS {
        add(format!(":{name}"), detail);
    }
    for name in exercise.constants.keys() {
        add(format!(":{name}"), "a constant of this exercise");
    }
    if let Some(spec) = exercise.procedures.iter().find(|p| p.name == procedure)
        && let Ok(parsed) = Procedure::parse(&spec.name, &spec.reference)
    {
        for name in parsed.parameters() {
            add(
                format!(":{name}"),
                "an argument, or a column returned earlier",
            );
        }
    }
    words.extend(DECISION_FORMS.iter().map(|decision| Word {
        label: decision.form.to_string(),
        detail: decision.does.to_string(),
        kind: "directive",
    }));
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_claim_offers_built_ins_its_parameters_and_the_decisions() {
        let exercises = fencelab_model::bundled::catalog().expect("the bundled exercises load");
        let claim = &exercises[0];
        let words = vocabulary(claim, "claim");
        let labels: Vec<&str> = words.iter().map(|w| w.label.as_str()).collect();
        assert!(labels.contains(&":now"), "{labels:?}");
        assert!(labels.contains(&":message_id"), "{labels:?}");
        assert!(labels.contains(&"-- @return NAME"), "{labels:?}");
        let mut unique = labels.clone();
        unique.dedup();
        assert_eq!(unique.len(), labels.len(), "no word twice: {labels:?}");
    }
}
