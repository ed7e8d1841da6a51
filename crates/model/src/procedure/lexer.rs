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
    let mut start = 0;
    while start < bytes.len() {
        if bytes[start].is_ascii_whitespace() {
            start += 1;
            continue;
        }
        let (kind, end) = token_at(source, start)?;
        out.push(Token { kind, start, end });
        start = end;
    }
    Ok(out)
}

/// The kind and the end (one past it) of the token at `start`, which is
/// not white space.
fn token_at(source: &str, start: usize) -> Result<(TokenKind, usize), LexError> {
    let bytes = source.as_bytes();
    let byte = bytes[start];
    let next = bytes.get(start + 1);
    Ok(match byte {
        b'-' if next == Some(&b'-') => {
            let end = source[start..]
                .find('\n')
                .map_or(bytes.len(), |n| start + n);
            (TokenKind::LineComment, end)
        }
        b'/' if next == Some(&b'*') => {
            let close = source[start + 2..].find("*/").ok_or_else(|| LexError {
                offset: start,
                message: "this comment is never closed with */".into(),
            })?;
            (TokenKind::BlockComment, start + 2 + close + 2)
        }
        b'\'' | b'"' | b'`' | b'[' => {
            let end = quote_close(bytes, start)? + 1;
            if byte == b'\'' {
                (TokenKind::String, end)
            } else {
                (TokenKind::QuotedName, end)
            }
        }
        b':' | b'@' | b'$' | b'?' => {
            let end = start + 1 + word_len(&source[start + 1..]);
            if end == start + 1 && byte != b'?' {
                (TokenKind::Punctuation, end)
            } else {
                (TokenKind::Parameter, end)
            }
        }
        b';' => (TokenKind::Semicolon, start + 1),
        b'(' => (TokenKind::OpenParen, start + 1),
        b')' => (TokenKind::CloseParen, start + 1),
        b if b.is_ascii_digit() || (b == b'.' && next.is_some_and(u8::is_ascii_digit)) => {
            (TokenKind::Number, number_end(bytes, start))
        }
        _ if starts_word(&source[start..]) => (TokenKind::Word, start + word_len(&source[start..])),
        _ => (TokenKind::Punctuation, punctuation_end(source, start)),
    })
}

/// The end of the number at `start`: the digits, letters (`1e5`, `0x1F`),
/// points and underscores that follow it.
fn number_end(bytes: &[u8], start: usize) -> usize {
    let mut end = start + 1;
    while bytes
        .get(end)
        .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'.' || *b == b'_')
    {
        end += 1;
    }
    end
}

/// The end of the operator or other punctuation at `start`: two bytes for
/// a two-character operator, else one character.
fn punctuation_end(source: &str, start: usize) -> usize {
    let two = source.get(start..start + 2).unwrap_or("");
    if matches!(two, "<=" | ">=" | "<>" | "!=" | "==" | "||" | "<<" | ">>") {
        start + 2
    } else {
        start + source[start..].chars().next().map_or(1, char::len_utf8)
    }
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
