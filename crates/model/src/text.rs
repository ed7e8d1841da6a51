//! Untrusted text made safe to show: every character that would steer a
//! terminal or reorder what a reader sees is written out as an escape.
//!
//! Names and texts from exercise files, links and saved work reach the CLI's
//! terminal and the page. A control character (`ESC [31m`, a carriage
//! return, a bell) in them would act on a terminal instead of being read,
//! and a bidirectional override or isolate (U+202E and kin, the "Trojan
//! Source" characters) would show a reader text in another order than the
//! one it has. [`visible`] writes each such character as `\u{202e}`, the way
//! Rust's own `{:?}` does, so what is shown is what is there; every other
//! character, any script included, stays as it is.
//!
//! Must never drop or reorder a character: the escape is the character,
//! written so it can be read.

use std::borrow::Cow;

/// Whether `c` must be shown as an escape: a control character (C0, DEL,
/// C1), a bidirectional formatting character, or a line or paragraph
/// separator (which some terminals and editors break lines at).
pub fn is_hidden(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061c}'
                | '\u{200e}'
                | '\u{200f}'
                | '\u{202a}'..='\u{202e}'
                | '\u{2066}'..='\u{2069}'
                | '\u{2028}'
                | '\u{2029}'
        )
}

/// `text` with every hidden character ([`is_hidden`]) written as `\u{..}`
/// in lowercase hex: for a name or a one-line text, where even a line break
/// is the input's, not the layout's.
pub fn visible(text: &str) -> Cow<'_, str> {
    escape(text, is_hidden)
}

/// `text` as [`visible`] writes it, but with its line breaks and tabs kept:
/// for a whole message or report made of several lines, as the CLI prints
/// it.
pub fn visible_lines(text: &str) -> Cow<'_, str> {
    escape(text, |c| c != '\n' && c != '\t' && is_hidden(c))
}

fn escape(text: &str, hidden: impl Fn(char) -> bool) -> Cow<'_, str> {
    if !text.chars().any(&hidden) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if hidden(c) {
            out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// `word` as one word of a POSIX shell command line, for a command the page
/// shows a learner to paste into a terminal (`fencelab run ... --set
/// PROC=FILE`): as it is when it holds only characters no shell reads
/// specially, else in single quotes, each `'` written `'\''`. The one
/// escaping function for shell text; `crates/model/tests/shell_word.rs`
/// holds it to what `sh` itself reads back.
pub fn shell_word(word: &str) -> Cow<'_, str> {
    let plain = |c: char| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        Cow::Borrowed(word)
    } else {
        Cow::Owned(format!("'{}'", word.replace('\'', r"'\''")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn control_and_bidi_characters_are_written_out_and_nothing_else_changes() {
        assert_eq!(visible("claim\u{1b}[31m"), "claim\\u{1b}[31m");
        assert_eq!(visible("jobs\u{202e}sboj"), "jobs\\u{202e}sboj");
        assert_eq!(visible("a\u{2066}b\u{2069}"), "a\\u{2066}b\\u{2069}");
        assert_eq!(visible("one\ntwo\r"), "one\\u{a}two\\u{d}");
        assert_eq!(visible("\u{85}\u{7f}\u{0}"), "\\u{85}\\u{7f}\\u{0}");
        assert_eq!(visible("worker-ä 作業 عامل"), "worker-ä 作業 عامل");
        assert!(matches!(visible("plain"), Cow::Borrowed("plain")));
    }

    #[test]
    fn a_message_keeps_its_lines_and_tabs_but_not_a_terminal_sequence() {
        assert_eq!(
            visible_lines("line one\n\tline \u{1b}]0;title\u{7}two\r\n"),
            "line one\n\tline \\u{1b}]0;title\\u{7}two\\u{d}\n"
        );
    }
}
