//! Scenarios write parameters as `:name` (SQLite's spelling); PostgreSQL
//! numbers them `$1..$n`. The rewrite skips whatever PostgreSQL's lexer
//! would not read as a parameter: string literals, identifiers, comments,
//! dollar quotes and `::` casts.

use std::ops::Range;

/// `sql` with each `:name` as `$n` (the same name, the same number), and
/// the names in their numbers' order.
pub fn positional(sql: &str) -> (String, Vec<String>) {
    let rewrite = Rewrite::new(sql);
    (rewrite.sql, rewrite.names)
}

/// A rewritten statement, with what it takes to place the server's error
/// positions back in the text the learner wrote.
#[derive(Clone, Debug)]
pub(crate) struct Rewrite {
    pub sql: String,
    pub names: Vec<String>,
    /// Each parameter replaced: where it is in the rewritten text, where it
    /// was in the original; in order.
    spans: Vec<(Range<usize>, Range<usize>)>,
}

impl Rewrite {
    pub fn new(original: &str) -> Rewrite {
        let bytes = original.as_bytes();
        let mut rewrite = Rewrite {
            sql: String::with_capacity(original.len()),
            names: Vec::new(),
            spans: Vec::new(),
        };
        let mut copied = 0;
        let mut at = 0;
        // Whether the byte before `at` continues a word (`a$b$` is one
        // identifier, where `'x'$b$` ends a string and opens a dollar quote).
        let mut in_word = false;
        while at < bytes.len() {
            if let Some(end) = skip_quoted(bytes, at, in_word) {
                at = end;
                in_word = false;
            } else if bytes[at] == b':' && bytes.get(at + 1) == Some(&b':') {
                at += 2;
                in_word = false;
            } else if bytes[at] == b':' && name_end(bytes, at + 1) > at + 1 {
                let end = name_end(bytes, at + 1);
                rewrite.sql.push_str(&original[copied..at]);
                rewrite.replace(&original[at + 1..end], at..end);
                copied = end;
                at = end;
                in_word = false;
            } else {
                in_word = is_identifier_byte(bytes[at]);
                at += 1;
            }
        }
        rewrite.sql.push_str(&original[copied..]);
        rewrite
    }

    fn replace(&mut self, name: &str, original: Range<usize>) {
        let number = match self.names.iter().position(|known| known == name) {
            Some(index) => index + 1,
            None => {
                self.names.push(name.to_string());
                self.names.len()
            }
        };
        let start = self.sql.len();
        self.sql.push_str(&format!("${number}"));
        self.spans.push((start..self.sql.len(), original));
    }

    /// The byte offset in the original text of a byte offset in the
    /// rewritten one (inside a `$n`, its `:name`'s start).
    pub fn original_offset(&self, rewritten: usize) -> usize {
        let mut shift: isize = 0;
        for (new, old) in &self.spans {
            if rewritten < new.start {
                break;
            }
            if rewritten < new.end {
                return old.start;
            }
            shift = old.end as isize - new.end as isize;
        }
        rewritten.saturating_add_signed(shift)
    }

    /// The server's position (1-based, in characters of the rewritten
    /// text) as a byte offset into the original text.
    pub fn original_position(&self, server_position: u32) -> Option<usize> {
        byte_offset(&self.sql, server_position).map(|byte| self.original_offset(byte))
    }
}

/// The byte offset in `text` of the server's error position (1-based, in
/// characters); `None` when it is outside the text.
pub(crate) fn byte_offset(text: &str, server_position: u32) -> Option<usize> {
    let index = usize::try_from(server_position).ok()?.checked_sub(1)?;
    match text.char_indices().nth(index) {
        Some((byte, _)) => Some(byte),
        None if index == text.chars().count() => Some(text.len()),
        None => None,
    }
}

fn is_name_start(byte: u8) -> bool {
    byte.is_ascii_alphabetic() || byte == b'_'
}

fn is_identifier_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'$' || byte >= 0x80
}

/// Where the parameter name starting at `from` ends (`from` when none does).
fn name_end(bytes: &[u8], from: usize) -> usize {
    match bytes.get(from) {
        Some(&first) if is_name_start(first) => {
            let rest = bytes[from..]
                .iter()
                .position(|&b| !(b.is_ascii_alphanumeric() || b == b'_'));
            rest.map_or(bytes.len(), |length| from + length)
        }
        _ => from,
    }
}

/// When a literal, quoted identifier, comment or dollar quote starts at
/// `at`, where it ends (the end of the text when it is unterminated).
fn skip_quoted(bytes: &[u8], at: usize, after_identifier: bool) -> Option<usize> {
    match bytes[at] {
        b'\'' => Some(quoted_end(bytes, at + 1, b'\'', false)),
        b'"' => Some(quoted_end(bytes, at + 1, b'"', false)),
        b'e' | b'E' if !after_identifier && bytes.get(at + 1) == Some(&b'\'') => {
            Some(quoted_end(bytes, at + 2, b'\'', true))
        }
        b'-' if bytes.get(at + 1) == Some(&b'-') => Some(
            bytes[at..]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(bytes.len(), |length| at + length + 1),
        ),
        b'/' if bytes.get(at + 1) == Some(&b'*') => Some(block_comment_end(bytes, at + 2)),
        b'$' if !after_identifier => dollar_quote_end(bytes, at),
        _ => None,
    }
}

/// The end of a quoted run whose body starts at `from`: a doubled quote is
/// one quote; in an `E'...'` string a backslash escapes the next byte.
fn quoted_end(bytes: &[u8], from: usize, quote: u8, backslashes: bool) -> usize {
    let mut at = from;
    while at < bytes.len() {
        let escaped = backslashes && bytes[at] == b'\\';
        if escaped || (bytes[at] == quote && bytes.get(at + 1) == Some(&quote)) {
            at += 2;
        } else if bytes[at] == quote {
            return at + 1;
        } else {
            at += 1;
        }
    }
    bytes.len()
}

/// Block comments nest in PostgreSQL.
fn block_comment_end(bytes: &[u8], from: usize) -> usize {
    let mut depth = 1;
    let mut at = from;
    while at < bytes.len() {
        if bytes[at..].starts_with(b"/*") {
            depth += 1;
            at += 2;
        } else if bytes[at..].starts_with(b"*/") {
            depth -= 1;
            at += 2;
            if depth == 0 {
                return at;
            }
        } else {
            at += 1;
        }
    }
    bytes.len()
}

/// `$tag$ ... $tag$` (the tag may be empty); `None` when the `$` at `at`
/// opens no dollar quote (`$1`, a lone `$`).
fn dollar_quote_end(bytes: &[u8], at: usize) -> Option<usize> {
    let tag_length = bytes[at + 1..].iter().position(|&b| b == b'$')?;
    let tag = &bytes[at + 1..at + 1 + tag_length];
    let valid = match tag.first() {
        None => true,
        Some(&first) => is_name_start(first) || first >= 0x80,
    } && tag
        .iter()
        .all(|&b| b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80);
    if !valid {
        return None;
    }
    let delimiter = &bytes[at..at + tag_length + 2];
    let body = at + delimiter.len();
    Some(
        bytes[body..]
            .windows(delimiter.len())
            .position(|window| window == delimiter)
            .map_or(bytes.len(), |offset| body + offset + delimiter.len()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|name| name.to_string()).collect()
    }

    #[test]
    fn each_name_gets_a_number_and_a_repeated_name_keeps_it() {
        let (sql, found) = positional("UPDATE t SET a = :a, b = :b WHERE a = :a");
        assert_eq!(sql, "UPDATE t SET a = $1, b = $2 WHERE a = $1");
        assert_eq!(found, names(&["a", "b"]));
    }

    #[test]
    fn a_cast_is_not_a_parameter_but_a_parameter_may_be_cast() {
        assert_eq!(
            positional("SELECT x::int, :a::int8, :b ::text"),
            (
                "SELECT x::int, $1::int8, $2 ::text".to_string(),
                names(&["a", "b"])
            )
        );
    }

    #[test]
    fn string_literals_with_doubled_quotes_are_skipped() {
        assert_eq!(
            positional("SELECT ':a', 'it''s :b', :c"),
            ("SELECT ':a', 'it''s :b', $1".to_string(), names(&["c"]))
        );
    }

    #[test]
    fn escape_strings_skip_backslashed_quotes() {
        assert_eq!(
            positional(r"SELECT E'\' :a', e':b\\', :c, some':d'"),
            (
                r"SELECT E'\' :a', e':b\\', $1, some':d'".to_string(),
                names(&["c"])
            )
        );
    }

    #[test]
    fn quoted_identifiers_are_skipped() {
        assert_eq!(
            positional(r#"SELECT ":a"":b", :c FROM "t""#),
            (r#"SELECT ":a"":b", $1 FROM "t""#.to_string(), names(&["c"]))
        );
    }

    #[test]
    fn comments_are_skipped_and_block_comments_nest() {
        assert_eq!(
            positional("SELECT :a -- :b\n, /* :c /* :d */ :e */ :f"),
            (
                "SELECT $1 -- :b\n, /* :c /* :d */ :e */ $2".to_string(),
                names(&["a", "f"])
            )
        );
    }

    #[test]
    fn dollar_quotes_are_skipped_and_positional_parameters_are_not_quotes() {
        assert_eq!(
            positional("SELECT $$ :a $$, $q$ :b $ $q$, :c, $1, a$b"),
            (
                "SELECT $$ :a $$, $q$ :b $ $q$, $1, $1, a$b".to_string(),
                names(&["c"])
            )
        );
    }

    #[test]
    fn unterminated_quotes_run_to_the_end() {
        for sql in [
            "SELECT ':a",
            "SELECT \":a",
            "SELECT /* :a",
            "SELECT $x$ :a",
            "SELECT E':a\\",
        ] {
            assert_eq!(positional(sql), (sql.to_string(), vec![]), "{sql}");
        }
    }

    #[test]
    fn names_are_ascii_words_and_a_lone_colon_stays() {
        assert_eq!(
            positional("SELECT a[1:2], :x_1y, :9, :, :é"),
            ("SELECT a[1:2], $1, :9, :, :é".to_string(), names(&["x_1y"]))
        );
    }

    #[test]
    fn positions_map_back_through_the_rewrite() {
        let rewrite = Rewrite::new("SELECT :alpha, :b, 'é', nope");
        assert_eq!(rewrite.sql, "SELECT $1, $2, 'é', nope");
        // Inside `$1`, its `:alpha`; after it, shifted by the names' lengths.
        assert_eq!(rewrite.original_offset(8), 7);
        assert_eq!(rewrite.original_offset(11), 15);
        let nope_rewritten = rewrite.sql.find("nope").unwrap_or_default();
        let nope_original = "SELECT :alpha, :b, 'é', nope"
            .find("nope")
            .unwrap_or_default();
        assert_eq!(rewrite.original_offset(nope_rewritten), nope_original);
        // The server counts characters from 1: `nope` is its 21st.
        assert_eq!(rewrite.original_position(21), Some(nope_original));
        assert_eq!(rewrite.original_position(0), None);
        assert_eq!(rewrite.original_position(999), None);
    }
}

#[cfg(test)]
mod properties {
    use super::*;
    use proptest::prelude::*;

    /// Pieces that each lexical rule must keep or rewrite.
    fn piece() -> impl Strategy<Value = String> {
        prop_oneof![
            Just(" ".to_string()),
            Just("::int".to_string()),
            Just("'x '' :q'".to_string()),
            Just("E'\\' :q'".to_string()),
            Just("\":q\"".to_string()),
            Just("-- :q\n".to_string()),
            Just("/* :q /* :q */ */".to_string()),
            Just("$t$ :q $t$".to_string()),
            Just("é".to_string()),
            "[a-c]{1,2}".prop_map(|name| format!(":{name}")),
        ]
    }

    proptest! {
        /// Every `:name` outside quotes becomes a `$n` whose number is its
        /// name's place; nothing else changes; and every char boundary of the
        /// rewritten text maps back to one of the original.
        #[test]
        fn the_rewrite_replaces_exactly_the_parameters(pieces in proptest::collection::vec(piece(), 0..12)) {
            let original: String = pieces.concat();
            let rewrite = Rewrite::new(&original);
            let mut expected = String::new();
            let mut expected_names: Vec<String> = Vec::new();
            for piece in &pieces {
                match piece.strip_prefix(':').filter(|name| !name.starts_with(':')) {
                    Some(name) => {
                        if !expected_names.iter().any(|known| known == name) {
                            expected_names.push(name.to_string());
                        }
                        let number = expected_names.iter().position(|known| known == name).unwrap_or(0) + 1;
                        expected.push_str(&format!("${number}"));
                    }
                    None => expected.push_str(piece),
                }
            }
            // Where two pieces touch, they may lex as one word (`:a` and
            // `b` are `:ab`): compare with the model only where none do.
            let ends_word = |s: &str| s.chars().last().is_some_and(|c| c.is_alphanumeric() || c == '_');
            let starts_word = |s: &str| s.chars().next().is_some_and(|c| c.is_alphanumeric() || "_$:".contains(c));
            let glued = pieces.windows(2).any(|w| ends_word(&w[0]) && starts_word(&w[1]));
            if !glued {
                prop_assert_eq!(&rewrite.sql, &expected);
                prop_assert_eq!(&rewrite.names, &expected_names);
            }
            for offset in (0..=rewrite.sql.len()).filter(|&at| rewrite.sql.is_char_boundary(at)) {
                prop_assert!(original.is_char_boundary(rewrite.original_offset(offset).min(original.len())));
            }
        }
    }
}
