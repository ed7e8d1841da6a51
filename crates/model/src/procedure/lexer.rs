//! The one SQL lexer: procedure texts are split into statements, classified
//! and searched for `:parameters` from its tokens, so quotes and comments
//! mean the same thing to every question asked of a text.
//!
//! It knows SQLite's lexical rules only as far as those questions need:
//! strings (`'...'` with `''` escapes), quoted identifiers (`"..."`, `` `...` ``,
//! `[...]`), comments (`-- ...` to the end of the line, `/* ... */`),
//! parameters (`:name`, `@name`, `$name`, `?NNN`), words, numbers and single
//! punctuation characters. It never decides whether SQL is valid: SQLite does.

/// What a token is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenKind {
    /// A bare word: a keyword, a name or a function name.
    Word,
    /// A parameter; the token's text includes its sigil (`:token`).
    Parameter,
    /// A string literal, quotes included.
    String,
    /// A quoted identifier, quotes included.
    QuotedName,
    Number,
    /// `-- ...` up to (not including) the end of its line.
    LineComment,
    /// `/* ... */`.
    BlockComment,
    Semicolon,
    OpenParen,
    CloseParen,
    /// Any other single character, or an operator such as `<=`.
    Punctuation,
}

/// A token: its kind and its byte range in the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    pub kind: TokenKind,
    pub start: usize,
    pub end: usize,
}

impl Token {
    pub fn text<'a>(&self, source: &'a str) -> &'a str {
        &source[self.start..self.end]
    }

    /// Whether this is the bare word `keyword` (compared without case).
    pub fn is_word(&self, source: &str, keyword: &str) -> bool {
        self.kind == TokenKind::Word && self.text(source).eq_ignore_ascii_case(keyword)
    }

    pub fn is_comment(&self) -> bool {
        matches!(self.kind, TokenKind::LineComment | TokenKind::BlockComment)
    }
}

/// A text the lexer cannot finish: an unclosed quote or comment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LexError {
    pub offset: usize,
    pub message: String,
}

/// The tokens of `source`, white space left out.
pub fn tokens(source: &str) -> Result<Vec<Token>, LexError> {
    let bytes = source.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let start = i;
        let byte = bytes[i];
        let kind = match byte {
            b if b.is_ascii_whitespace() => {
                i += 1;
                continue;
            }
            b'-' if bytes.get(i + 1) == Some(&b'-') => {
                i = source[i..].find('\n').map_or(bytes.len(), |n| i + n);
                TokenKind::LineComment
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                let close = source[i + 2..].find("*/").ok_or_else(|| LexError {
                    offset: start,
                    message: "this comment is never closed with */".into(),
                })?;
                i = i + 2 + close + 2;
                TokenKind::BlockComment
            }
            b'\'' | b'"' | b'`' | b'[' => {
                let j = quote_close(bytes, start)?;
                i = j + 1;
                if byte == b'\'' {
                    TokenKind::String
                } else {
                    TokenKind::QuotedName
                }
            }
            b':' | b'@' | b'$' | b'?' => {
                i += 1 + word_len(&source[i + 1..]);
                if i == start + 1 && byte != b'?' {
                    TokenKind::Punctuation
                } else {
                    TokenKind::Parameter
                }
            }
            b';' => {
                i += 1;
                TokenKind::Semicolon
            }
            b'(' => {
                i += 1;
                TokenKind::OpenParen
            }
            b')' => {
                i += 1;
                TokenKind::CloseParen
            }
            b if b.is_ascii_digit()
                || (b == b'.' && bytes.get(i + 1).is_some_and(u8::is_ascii_digit)) =>
            {
                i += 1;
                while bytes
                    .get(i)
                    .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'.' || *b == b'_')
                {
                    i += 1;
                }
                TokenKind::Number
            }
            _ if starts_word(&source[i..]) => {
                i += word_len(&source[i..]);
                TokenKind::Word
            }
            _ => {
                let two = source.get(i..i + 2).unwrap_or("");
                i += if matches!(two, "<=" | ">=" | "<>" | "!=" | "==" | "||" | "<<" | ">>") {
                    2
                } else {
                    source[i..].chars().next().map_or(1, char::len_utf8)
                };
                TokenKind::Punctuation
            }
        };
        out.push(Token {
            kind,
            start,
            end: i,
        });
    }
    Ok(out)
}

/// The offset of the quote that closes the one at `start` (`]` for `[`);
/// inside a string or a quoted name a doubled quote is an escaped one.
fn quote_close(bytes: &[u8], start: usize) -> Result<usize, LexError> {
    let open = bytes[start];
    let close = if open == b'[' { b']' } else { open };
    let mut j = start + 1;
    loop {
        match bytes.get(j) {
            None => {
                return Err(LexError {
                    offset: start,
                    message: "this quote is never closed".into(),
                });
            }
            Some(&b) if b == close && close != b']' && bytes.get(j + 1) == Some(&close) => j += 2,
            Some(&b) if b == close => return Ok(j),
            Some(_) => j += 1,
        }
    }
}

fn starts_word(text: &str) -> bool {
    text.chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
}

/// Bytes of the name at the start of `text` (letters, digits, `_`, `$`).
fn word_len(text: &str) -> usize {
    text.char_indices()
        .find(|(_, c)| !(c.is_alphanumeric() || *c == '_' || *c == '$'))
        .map_or(text.len(), |(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn kinds(source: &str) -> Vec<(TokenKind, &str)> {
        tokens(source)
            .unwrap()
            .into_iter()
            .map(|t| (t.kind, t.text(source)))
            .collect()
    }

    #[test]
    fn quotes_comments_and_parameters_are_single_tokens() {
        use TokenKind::*;
        assert_eq!(
            kinds("SELECT 'a;''b' AS \"x y\", :id /* :not */ -- :nor\n<= 1.5;"),
            [
                (Word, "SELECT"),
                (String, "'a;''b'"),
                (Word, "AS"),
                (QuotedName, "\"x y\""),
                (Punctuation, ","),
                (Parameter, ":id"),
                (BlockComment, "/* :not */"),
                (LineComment, "-- :nor"),
                (Punctuation, "<="),
                (Number, "1.5"),
                (Semicolon, ";"),
            ]
        );
    }

    #[test]
    fn unclosed_quotes_and_comments_are_errors_at_their_start() {
        assert_eq!(tokens("SELECT 'oops").unwrap_err().offset, 7);
        assert_eq!(tokens("SELECT 1; /* oops").unwrap_err().offset, 10);
    }
}
