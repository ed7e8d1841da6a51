//! What the `fencelab` command line does apart from parsing its arguments
//! and running commands: reading the untrusted files it is given
//! ([`files`]), writing the files a user names for its output ([`output`]),
//! its scratch folders and their removal on every way it ends, signals
//! included ([`scratch`]), a learner's submitted texts, each unusable one
//! named with what to do about it ([`submission`]), and turning reports
//! into the text it prints ([`render`]), which [`shown`] makes safe for a
//! terminal. A library so the hostile corpus (tests/hostile) runs the very
//! code a user's input meets, and mdbook-fencelab writes as the command
//! line does.

pub mod files;
pub mod output;
pub mod render;
pub mod scratch;
pub mod submission;

use std::borrow::Cow;

/// Text as the command line prints it, on standard output or standard
/// error: every control character and bidirectional override in it (from a
/// name, a text, an error quoting either) written out as `\u{..}`, its line
/// breaks and tabs kept. Everything the command line prints goes through
/// here (`emit` and `BadInput::report` in main.rs), so no untrusted text
/// reaches a terminal as it is.
pub fn shown(text: &str) -> Cow<'_, str> {
    fencelab_model::text::visible_lines(text)
}

/// JSON text as the command line prints it: what [`shown`] writes out, as
/// JSON's own `\uXXXX` escapes, so the document stays valid and means the
/// same. (serde_json escapes C0 controls itself; DEL, C1 and the bidi
/// characters it leaves as they are. Each is in the Basic Multilingual
/// Plane, so one escape each, and outside strings JSON is ASCII.)
pub fn shown_json(json: &str) -> Cow<'_, str> {
    use fencelab_model::text::is_hidden;
    if !json.chars().any(|c| c != '\n' && c != '\t' && is_hidden(c)) {
        return Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if c != '\n' && c != '\t' && is_hidden(c) {
            out.push_str(&format!("\\u{:04x}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_keeps_its_meaning_with_every_hidden_character_escaped() {
        let value = serde_json::json!({ "name": "jobs\u{202e}\u{1b}[31m\u{85}" });
        let text = serde_json::to_string_pretty(&value).unwrap();
        let printed = shown_json(&text);
        assert!(
            !printed
                .chars()
                .any(|c| c != '\n' && fencelab_model::text::is_hidden(c))
        );
        let back: serde_json::Value = serde_json::from_str(&printed).unwrap();
        assert_eq!(back, value);
    }
}
