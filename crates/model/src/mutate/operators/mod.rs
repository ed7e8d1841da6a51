//! The operators, one family per file. Each reads the procedure through
//! [`Text`], the one lexer's tokens of the whole source grouped by step, and
//! pushes candidates that differ from the original in one place; `mutants`
//! drops the ones that do not parse or repeat.
//!
//! Every change is a splice of the original source at byte offsets the lexer
//! gave, so everything outside the changed place stays byte for byte, and a
//! `:name` inside a string or a comment is never mistaken for a parameter.
//! `shape.rs` holds what several families read from a statement's tokens
//! (its conditions, its SET lists, its tables); the other files are one
//! family each.
//!
//! Must never panic on any text, and never search the SQL as a string: a
//! text the lexer cannot read gives no candidates.

mod comparisons;
mod conditions;
mod constants;
mod decisions;
mod names;
mod shape;
mod stamp;
mod statements;
#[cfg(test)]
mod testing;
mod transactions;
mod upsert;

use super::{Candidate, Candidates, Context, Operator};
use crate::procedure::lexer::{self, Token, TokenKind};
use crate::procedure::{Procedure, StatementClass, StepKind};
use std::ops::Range;

/// The longest SQL a description quotes, in characters. Longer SQL is cut at
/// a word and ends in `...`, so a description stays one readable line.
const QUOTED_SQL_CHARS_MAX: usize = 48;

/// Every candidate of every operator for `procedure`, into `out` until its
/// budget is reached; each family starts only while it is not.
pub(crate) fn all(procedure: &Procedure, context: &Context, out: &mut Candidates) {
    let Some(text) = Text::new(procedure) else {
        return;
    };
    let families: [&dyn Fn(&mut Candidates); 9] = [
        &|out| conditions::generate(&text, out),
        &|out| comparisons::generate(&text, out),
        &|out| constants::generate(&text, context, out),
        &|out| names::generate(&text, context, out),
        &|out| transactions::generate(&text, out),
        &|out| decisions::generate(&text, out),
        &|out| statements::generate(&text, out),
        &|out| upsert::generate(&text, out),
        &|out| stamp::generate(&text, out),
    ];
    for family in families {
        if out.is_over() {
            return;
        }
        family(out);
    }
}

/// A procedure's source as the operators read it: one [`Unit`] per step.
pub(super) struct Text<'a> {
    pub(super) source: &'a str,
    pub(super) units: Vec<Unit<'a>>,
}

/// One step's place in the source: the statement (or `@effect` comment) and
/// the decision comments that judge it.
pub(super) struct Unit<'a> {
    pub(super) source: &'a str,
    /// `None` for an `@effect` step.
    pub(super) class: Option<StatementClass>,
    /// Byte offset where the step's text starts.
    pub(super) start: usize,
    /// The statement's tokens without its comments and its `;`; empty for an
    /// effect.
    pub(super) code: Vec<Token>,
    /// The nesting level of each code token: parentheses and `CASE ... END`
    /// each open one (the opening and closing tokens sit outside it).
    pub(super) levels: Vec<usize>,
    /// Whether the statement ends with a `;` (an effect always counts as
    /// ended: its comment runs to the end of its line).
    pub(super) terminated: bool,
    /// Where the statement through its `;`, or the effect's comment, ends.
    pub(super) statement_end: usize,
    /// The `-- @refuse` / `-- @return` comments after it, in order.
    pub(super) decisions: Vec<Token>,
    /// Where its last decision, or the statement, ends.
    pub(super) end: usize,
}

impl<'a> Text<'a> {
    fn new(procedure: &'a Procedure) -> Option<Text<'a>> {
        let source = procedure.source.as_str();
        let tokens = lexer::tokens(source).ok()?;
        let mut units = Vec::with_capacity(procedure.steps.len());
        for (index, step) in procedure.steps.iter().enumerate() {
            let next = procedure
                .steps
                .get(index + 1)
                .map_or(source.len(), |s| s.offset);
            let first = tokens.partition_point(|t| t.start < step.offset);
            let mut unit = Unit {
                source,
                class: None,
                start: step.offset,
                code: Vec::new(),
                levels: Vec::new(),
                terminated: true,
                statement_end: step.offset,
                decisions: Vec::new(),
                end: step.offset,
            };
            let mut rest = first;
            match &step.kind {
                StepKind::Sql { class, .. } => {
                    unit.class = Some(*class);
                    unit.terminated = false;
                    while let Some(token) = tokens.get(rest) {
                        rest += 1;
                        if token.kind == TokenKind::Semicolon {
                            unit.terminated = true;
                            unit.statement_end = token.end;
                            break;
                        }
                        if !token.is_comment() {
                            unit.code.push(*token);
                            unit.statement_end = token.end;
                        }
                    }
                    unit.levels = shape::levels(source, &unit.code);
                }
                StepKind::Effect { .. } => {
                    unit.statement_end = tokens.get(first)?.end;
                    rest = first + 1;
                }
            }
            unit.end = unit.statement_end;
            for token in tokens[rest.min(tokens.len())..]
                .iter()
                .take_while(|t| t.start < next)
            {
                if token.kind == TokenKind::LineComment && is_directive(token.text(source)) {
                    unit.decisions.push(*token);
                    unit.end = token.end;
                }
            }
            units.push(unit);
        }
        Some(Text { source, units })
    }

    /// The whole source with `range` replaced by `with`.
    pub(super) fn splice(&self, range: Range<usize>, with: &str) -> String {
        let mut out = String::with_capacity(self.source.len() + with.len());
        out.push_str(&self.source[..range.start]);
        out.push_str(with);
        out.push_str(&self.source[range.end..]);
        out
    }

    /// `range` widened to whole lines when nothing else shares them, so
    /// removing it leaves no blank line; otherwise widened over the spaces
    /// before it, so removing it leaves no gap.
    pub(super) fn removal(&self, range: Range<usize>) -> Range<usize> {
        let bytes = self.source.as_bytes();
        let line_start = self.source[..range.start].rfind('\n').map_or(0, |i| i + 1);
        let rest_of_line = self.source[range.end..]
            .find('\n')
            .map_or(self.source.len(), |i| range.end + i);
        let alone_before = bytes[line_start..range.start]
            .iter()
            .all(u8::is_ascii_whitespace);
        let alone_after = bytes[range.end..rest_of_line]
            .iter()
            .all(u8::is_ascii_whitespace);
        if alone_before && alone_after {
            line_start..(rest_of_line + 1).min(self.source.len())
        } else if alone_before {
            let after = bytes[range.end..rest_of_line]
                .iter()
                .take_while(|b| b.is_ascii_whitespace())
                .count();
            line_start..range.end + after
        } else {
            let before = bytes[line_start..range.start]
                .iter()
                .rev()
                .take_while(|b| b.is_ascii_whitespace())
                .count();
            range.start - before..range.end
        }
    }
}

impl Unit<'_> {
    pub(super) fn is_word(&self, index: usize, keyword: &str) -> bool {
        self.code
            .get(index)
            .is_some_and(|t| t.is_word(self.source, keyword))
    }

    /// Whether the code token at `index` is one of `keywords`.
    pub(super) fn is_any_word(&self, index: usize, keywords: &[&str]) -> bool {
        keywords.iter().any(|k| self.is_word(index, k))
    }

    pub(super) fn is_punctuation(&self, index: usize, text: &str) -> bool {
        self.code
            .get(index)
            .is_some_and(|t| t.kind == TokenKind::Punctuation && t.text(self.source) == text)
    }

    pub(super) fn kind(&self, index: usize) -> Option<TokenKind> {
        self.code.get(index).map(|t| t.kind)
    }

    pub(super) fn token_text(&self, index: usize) -> &str {
        self.code.get(index).map_or("", |t| t.text(self.source))
    }

    /// The code tokens `first..end` as one line: comments left out, white
    /// space folded, cut to a readable length and quoted.
    pub(super) fn quote(&self, first: usize, end: usize) -> String {
        quote(&self.folded(first, end))
    }

    /// The code tokens `first..end` as one line, comments left out and white
    /// space folded, whole and unquoted: SQL to write into another statement.
    pub(super) fn folded(&self, first: usize, end: usize) -> String {
        let mut sql = String::new();
        let mut previous: Option<&Token> = None;
        for token in self.code.get(first..end).unwrap_or_default() {
            if previous.is_some_and(|p| p.end < token.start) {
                sql.push(' ');
            }
            sql.push_str(token.text(self.source));
            previous = Some(token);
        }
        sql
    }

    /// Byte range of the code tokens `first..end` (`first < end`).
    pub(super) fn span(&self, first: usize, end: usize) -> Range<usize> {
        self.code[first].start..self.code[end - 1].end
    }

    /// The unit's text in the source, decisions included.
    pub(super) fn text(&self) -> &str {
        &self.source[self.start..self.end]
    }

    /// Whether the unit ends in a line comment (a decision or an effect),
    /// which would swallow anything put after it on the same line.
    pub(super) fn ends_in_line_comment(&self) -> bool {
        self.class.is_none() || !self.decisions.is_empty()
    }

    pub(super) fn is_transaction_control(&self) -> bool {
        matches!(
            self.class,
            Some(StatementClass::Begin | StatementClass::Commit | StatementClass::Rollback)
        )
    }
}

/// Whether a line comment is a `-- @` directive.
fn is_directive(comment: &str) -> bool {
    comment
        .get(2..)
        .is_some_and(|rest| rest.trim_start().starts_with('@'))
}

/// Pieces of the source put together, each marked when it ends in a line
/// comment: a line break goes after such a piece when the next one would
/// otherwise continue its line, and be commented out.
pub(super) fn join(pieces: &[(&str, bool)]) -> String {
    let mut out = String::with_capacity(pieces.iter().map(|(p, _)| p.len() + 1).sum());
    let mut comment_open = false;
    for (piece, ends_in_comment) in pieces {
        if comment_open {
            let rest = piece.trim_start_matches([' ', '\t']);
            if rest.starts_with(['\n', '\r']) {
                comment_open = false;
            } else if !rest.is_empty() {
                out.push('\n');
                comment_open = false;
            }
        }
        out.push_str(piece);
        comment_open |= *ends_in_comment;
    }
    out
}

/// `sql` folded to one line, cut to [`QUOTED_SQL_CHARS_MAX`] and quoted in
/// backticks.
pub(super) fn quote(sql: &str) -> String {
    let folded = sql.split_whitespace().collect::<Vec<_>>().join(" ");
    if folded.chars().count() <= QUOTED_SQL_CHARS_MAX {
        return format!("`{folded}`");
    }
    let cut: String = folded.chars().take(QUOTED_SQL_CHARS_MAX).collect();
    let cut = cut.rfind(' ').map_or(cut.as_str(), |at| &cut[..at]);
    format!("`{cut} ...`")
}

/// A candidate of `operator` changing the original at `offset`.
pub(super) fn candidate(
    operator: Operator,
    offset: usize,
    variant: Option<&str>,
    description: String,
    text: String,
) -> Candidate {
    Candidate {
        operator,
        offset,
        variant: variant.map(str::to_string),
        description,
        text,
    }
}
