//! Finding `{{#fencelab TARGET}}` in a chapter's text: untrusted text, so
//! every directive that cannot be used is an error naming its line, and
//! nothing here reads a file or knows what an exercise is.
//!
//! `TARGET` is an exercise id (`claim-compare-and-set`) or the path of an
//! exercise file ending in `.toml`, relative to the chapter's own file (as
//! mdBook's `{{#include}}` is). `\{{#fencelab ...}}` stays in the page as
//! written, without its backslash.

use std::ops::Range;
use std::path::PathBuf;

/// What opens a directive.
pub const OPENING: &str = "{{#fencelab";
/// What closes it, on the same line.
const CLOSING: &str = "}}";
/// The longest target taken, in characters.
pub const TARGET_CHARS_MAX: usize = 200;

/// One directive, where it was in its chapter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Directive {
    /// Its line in the chapter, from 1.
    pub line: usize,
    /// Its bytes in the chapter's text, braces included.
    pub span: Range<usize>,
    pub target: Target,
}

/// What a directive names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// An exercise bundled with fencelab, by id.
    Bundled(String),
    /// An exercise file, by its path as written (relative to the chapter).
    File(PathBuf),
}

/// A directive that cannot be used: its line and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DirectiveError {
    pub line: usize,
    pub message: String,
}

/// What a chapter holds: its directives, its escaped ones (the backslash's
/// byte, to drop) and its unusable ones.
#[derive(Default, Debug)]
pub struct Found {
    pub directives: Vec<Directive>,
    pub escapes: Vec<usize>,
    pub errors: Vec<DirectiveError>,
}

/// Every directive of `text`, in order.
pub fn find(text: &str) -> Found {
    let mut found = Found::default();
    let mut line_start = 0;
    for (index, line) in text.split_inclusive('\n').enumerate() {
        let mut from = 0;
        while let Some(at) = line[from..].find(OPENING) {
            let start = from + at;
            let escaped = line[..start].ends_with('\\');
            let Some(length) = line[start..].find(CLOSING) else {
                if !escaped {
                    found.errors.push(DirectiveError {
                        line: index + 1,
                        message: format!(
                            "`{OPENING}` is not closed by `{CLOSING}` on the same line"
                        ),
                    });
                }
                break;
            };
            let end = start + length + CLOSING.len();
            if escaped {
                found.escapes.push(line_start + start - 1);
            } else {
                let inner = &line[start + OPENING.len()..start + length];
                match target(inner) {
                    Ok(target) => found.directives.push(Directive {
                        line: index + 1,
                        span: line_start + start..line_start + end,
                        target,
                    }),
                    Err(message) => found.errors.push(DirectiveError {
                        line: index + 1,
                        message,
                    }),
                }
            }
            from = end;
        }
        line_start += line.len();
    }
    found
}

/// The target a directive's inner text names.
fn target(inner: &str) -> Result<Target, String> {
    // `{{#fencelabs x}}` is another preprocessor's, or a typo: say so.
    if !inner.is_empty() && !inner.starts_with(char::is_whitespace) {
        return Err(format!(
            "`{OPENING}` must be followed by a space and an exercise id or the path of an exercise file"
        ));
    }
    let words: Vec<&str> = inner.split_whitespace().collect();
    let word = match words.as_slice() {
        [] => {
            return Err(format!(
                "`{OPENING}}}}}` names no exercise: write an exercise id or the path of an exercise file (ending in .toml)"
            ));
        }
        [word] => *word,
        _ => {
            return Err(format!(
                "`{OPENING}` takes one exercise id or path; found {} words (a path with spaces is not taken)",
                words.len()
            ));
        }
    };
    let chars = word.chars().count();
    if chars > TARGET_CHARS_MAX {
        return Err(format!(
            "the exercise named is {chars} characters long; at most {TARGET_CHARS_MAX} are taken"
        ));
    }
    if word.ends_with(".toml") {
        return Ok(Target::File(PathBuf::from(word)));
    }
    let is_id = word
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if is_id {
        Ok(Target::Bundled(word.to_string()))
    } else {
        Err(format!(
            "`{word}` is neither an exercise id (letters, digits, `-` and `_`) nor the path of an exercise file (ending in .toml)"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_paths_are_found_with_their_lines() {
        let text = "# One\n\n{{#fencelab claim-compare-and-set}}\ntext {{#fencelab ../ex/mine.toml}} more\n";
        let found = find(text);
        assert!(found.errors.is_empty(), "{:?}", found.errors);
        let [first, second] = found.directives.as_slice() else {
            panic!("two directives: {:?}", found.directives);
        };
        assert_eq!(first.line, 3);
        assert_eq!(
            first.target,
            Target::Bundled("claim-compare-and-set".into())
        );
        assert_eq!(
            &text[first.span.clone()],
            "{{#fencelab claim-compare-and-set}}"
        );
        assert_eq!(second.line, 4);
        assert_eq!(second.target, Target::File("../ex/mine.toml".into()));
    }

    #[test]
    fn unusable_directives_name_their_line() {
        let text = "a\n{{#fencelab}}\n{{#fencelab a b}}\n{{#fencelab x\n{{#fencelab <b>}}\n{{#fencelabx y}}\n";
        let found = find(text);
        assert!(found.directives.is_empty());
        let lines: Vec<usize> = found.errors.iter().map(|e| e.line).collect();
        assert_eq!(lines, [2, 3, 4, 5, 6]);
        assert!(found.errors[0].message.contains("names no exercise"));
        assert!(found.errors[1].message.contains("found 2 words"));
        assert!(found.errors[2].message.contains("not closed"));
        assert!(found.errors[3].message.contains("neither an exercise id"));
    }

    #[test]
    fn an_escaped_directive_is_kept_as_text() {
        let text = "write \\{{#fencelab ID}} in a chapter";
        let found = find(text);
        assert!(found.directives.is_empty() && found.errors.is_empty());
        assert_eq!(found.escapes, [6]);
    }
}
