//! Tidy's rule on function length: no Rust function in crates/ or web/
//! runs over [`FUNCTION_LINES_MAX`] lines, or over
//! [`TEST_FUNCTION_LINES_MAX`] in a test, unless a comment starting
//! `// long:` just above it (among its doc comment and attributes) says why
//! it cannot be split.
//!
//! A test is a function in a file under a `tests/` directory (an
//! integration test or a `tests/` module directory), in a `tests.rs` file,
//! or inside a module marked `#[cfg(test)]` (or `#[cfg(all(test, ...))]`).
//! Tests get more room because a test often reads best as one story: set
//! up, act, assert, in order.
//!
//! A function is measured from the line of its `fn` to the line of its
//! closing brace. The source is first blanked (comments, strings and
//! character literals become spaces, line breaks kept), so a brace or an
//! `fn` inside a string or a comment is never read as code. It is a
//! reader of this codebase's Rust, not a Rust parser: it never changes a
//! file, and a function it cannot find the end of is left alone.

use super::Problem;

/// The most lines a function outside tests may take without a `// long:`
/// reason.
pub const FUNCTION_LINES_MAX: usize = 80;

/// The most lines a test function may take without a `// long:` reason.
pub const TEST_FUNCTION_LINES_MAX: usize = 100;

/// The comment that lets one function run long; what follows it is the
/// reason, which must not be empty.
const LONG_MARK: &str = "// long:";

/// Whether `file` is one whose functions the rule measures.
pub fn is_measured(file: &str) -> bool {
    file.ends_with(".rs") && (file.starts_with("crates/") || file.starts_with("web/"))
}

/// Whether every function of `file` is a test's: the file is under a
/// `tests/` directory or is a `tests.rs` module.
fn is_test_file(file: &str) -> bool {
    let mut parts: Vec<&str> = file.split('/').collect();
    let name = parts.pop().unwrap_or_default();
    name == "tests.rs" || parts.contains(&"tests")
}

/// Every function of `text` over its bound ([`FUNCTION_LINES_MAX`], or
/// [`TEST_FUNCTION_LINES_MAX`] in a test) without a `// long:` reason
/// above it.
pub fn long_functions(file: &str, text: &str) -> Vec<Problem> {
    let code = blank_non_code(text);
    let raw: Vec<&str> = text.lines().collect();
    let test_file = is_test_file(file);
    let test_modules = test_module_lines(&code);
    let bound = |f: &Function| {
        let in_test_module = test_modules
            .iter()
            .any(|&(first, last)| (first..=last).contains(&f.first_line));
        if test_file || in_test_module {
            TEST_FUNCTION_LINES_MAX
        } else {
            FUNCTION_LINES_MAX
        }
    };
    functions(&code)
        .into_iter()
        .filter(|f| f.lines() > bound(f) && !has_reason(&raw, f.first_line))
        .map(|f| Problem {
            file: file.to_string(),
            line: f.first_line,
            what: format!(
                "`fn {}` is {} lines; split it (at most {}), or say why it cannot be in a \
                 `{LONG_MARK}` comment above it",
                f.name,
                f.lines(),
                bound(&f)
            ),
        })
        .collect()
}

/// One function with a body, by its 1-based first and last lines.
#[derive(Debug, PartialEq, Eq)]
struct Function {
    name: String,
    first_line: usize,
    last_line: usize,
}

impl Function {
    fn lines(&self) -> usize {
        self.last_line - self.first_line + 1
    }
}

/// Whether the comments and attributes right above line `first_line`
/// (1-based) hold a `// long:` comment with a reason.
fn has_reason(lines: &[&str], first_line: usize) -> bool {
    lines[..first_line - 1]
        .iter()
        .rev()
        .map(|line| line.trim())
        .take_while(|line| line.starts_with("//") || line.starts_with('#'))
        .any(|line| {
            line.strip_prefix(LONG_MARK)
                .is_some_and(|reason| !reason.trim().is_empty())
        })
}

/// The functions with a body in `code` (already blanked), nested ones
/// included.
fn functions(code: &str) -> Vec<Function> {
    let bytes = code.as_bytes();
    let line_of = |offset: usize| 1 + bytes[..offset].iter().filter(|&&b| b == b'\n').count();
    let mut found = Vec::new();
    let mut at = 0;
    while let Some(start) = next_fn_keyword(code, at) {
        at = start + 2;
        let Some(name) = identifier_after(code, at) else {
            continue;
        };
        let Some(open) = body_start(bytes, at) else {
            continue;
        };
        let Some(close) = matching_brace(bytes, open) else {
            continue;
        };
        found.push(Function {
            name: name.to_string(),
            first_line: line_of(start),
            last_line: line_of(close),
        });
    }
    found
}

/// The 1-based first and last lines of every module marked
/// `#[cfg(test)]` or `#[cfg(all(test, ...))]` in `code` (already blanked).
fn test_module_lines(code: &str) -> Vec<(usize, usize)> {
    let bytes = code.as_bytes();
    let line_of = |offset: usize| 1 + bytes[..offset].iter().filter(|&&b| b == b'\n').count();
    ["#[cfg(test)]", "#[cfg(all(test,"]
        .iter()
        .flat_map(|mark| code.match_indices(mark))
        .filter_map(|(start, _)| {
            let open = module_body_after(code, start)?;
            let close = matching_brace(bytes, open)?;
            Some((line_of(start), line_of(close)))
        })
        .collect()
}

/// The offset of the `{` that opens the body of the module marked by the
/// attribute at `attribute`, other attributes in between skipped; `None`
/// when the item is not a module with a body (a test-only function, or
/// `mod tests;`, whose file [`is_test_file`] reads by its name).
fn module_body_after(code: &str, attribute: usize) -> Option<usize> {
    let mut rest = &code[attribute..];
    while let Some(inner) = rest.strip_prefix("#[") {
        rest = inner.split_once(']')?.1.trim_start();
    }
    for visibility in ["pub(crate) ", "pub(super) ", "pub "] {
        rest = rest.strip_prefix(visibility).unwrap_or(rest).trim_start();
    }
    let after_mod = rest.strip_prefix("mod")?;
    if !after_mod.starts_with(char::is_whitespace) {
        return None;
    }
    let name = identifier_after(after_mod, 0)?;
    let after_name = after_mod.trim_start()[name.len()..].trim_start();
    after_name
        .starts_with('{')
        .then(|| code.len() - after_name.len())
}

fn is_identifier_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_'
}

/// The offset of the next `fn` keyword at or after `from`: a word of its
/// own, followed by white space (so `fn(u8)`, a type, is not one).
fn next_fn_keyword(code: &str, from: usize) -> Option<usize> {
    let bytes = code.as_bytes();
    let mut at = from;
    while let Some(found) = code.get(at..)?.find("fn") {
        let start = at + found;
        let before_ok = start == 0 || !is_identifier_byte(bytes[start - 1]);
        let after_ok = bytes.get(start + 2).is_some_and(u8::is_ascii_whitespace);
        if before_ok && after_ok {
            return Some(start);
        }
        at = start + 2;
    }
    None
}

/// The function's name after its `fn` keyword, if one follows.
fn identifier_after(code: &str, at: usize) -> Option<&str> {
    let rest = code[at..].trim_start();
    let length = rest.bytes().take_while(|&b| is_identifier_byte(b)).count();
    (length > 0).then(|| &rest[..length])
}

/// The offset of the `{` that opens the body: the first one outside
/// parentheses, brackets and angle brackets' arguments; `None` when a `;`
/// ends the signature first (a trait's declaration).
fn body_start(bytes: &[u8], from: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (offset, &byte) in bytes.iter().enumerate().skip(from) {
        match byte {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth = depth.saturating_sub(1),
            b'{' if depth == 0 => return Some(offset),
            b';' if depth == 0 => return None,
            _ => {}
        }
    }
    None
}

/// The offset of the `}` that closes the `{` at `open`.
fn matching_brace(bytes: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (offset, &byte) in bytes.iter().enumerate().skip(open) {
        match byte {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(offset);
                }
            }
            _ => {}
        }
    }
    None
}

/// `text` with every comment, string and character literal replaced by
/// spaces, line breaks kept, so offsets and line numbers stay the same.
fn blank_non_code(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let end = literal_end(&chars, i);
        if end == i {
            out.push(chars[i]);
            i += 1;
        } else {
            for &c in &chars[i..end] {
                out.push(if c == '\n' { '\n' } else { ' ' });
                // Keep byte offsets: a wide character blanks to as many spaces.
                for _ in 1..c.len_utf8() {
                    out.push(' ');
                }
            }
            i = end;
        }
    }
    out
}

/// Where the comment or literal starting at `i` ends (one past it), or `i`
/// when none starts there.
fn literal_end(chars: &[char], i: usize) -> usize {
    let at = |k: usize| chars.get(k).copied();
    let after_identifier = i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_');
    match (chars[i], at(i + 1)) {
        ('/', Some('/')) => (i..chars.len())
            .find(|&k| chars[k] == '\n')
            .unwrap_or(chars.len()),
        ('/', Some('*')) => block_comment_end(chars, i),
        ('"', _) => quoted_end(chars, i + 1, '"'),
        ('r', Some('"' | '#')) if !after_identifier => raw_string_end(chars, i + 1).unwrap_or(i),
        ('b', Some('r')) if !after_identifier => raw_string_end(chars, i + 2).unwrap_or(i),
        ('\'', _) => char_literal_end(chars, i),
        _ => i,
    }
}

fn block_comment_end(chars: &[char], start: usize) -> usize {
    let mut depth = 0usize;
    let mut k = start;
    while k + 1 < chars.len() {
        match (chars[k], chars[k + 1]) {
            ('/', '*') => {
                depth += 1;
                k += 2;
            }
            ('*', '/') => {
                depth -= 1;
                k += 2;
                if depth == 0 {
                    return k;
                }
            }
            _ => k += 1,
        }
    }
    chars.len()
}

/// The end of a string whose contents start at `from`, escapes honoured.
fn quoted_end(chars: &[char], from: usize, quote: char) -> usize {
    let mut k = from;
    while k < chars.len() {
        match chars[k] {
            '\\' => k += 2,
            c if c == quote => return k + 1,
            _ => k += 1,
        }
    }
    chars.len()
}

/// The end of a raw string whose hashes (if any) start at `from`; `None`
/// when what follows `r` is not a raw string after all (`r#ident`, `br`
/// in a name).
fn raw_string_end(chars: &[char], from: usize) -> Option<usize> {
    let hashes = chars.get(from..)?.iter().take_while(|&&c| c == '#').count();
    let open = from + hashes;
    if chars.get(open) != Some(&'"') {
        return None;
    }
    let mut k = open + 1;
    while k < chars.len() {
        let closes = chars[k + 1..]
            .iter()
            .take(hashes)
            .filter(|&&c| c == '#')
            .count()
            == hashes;
        if chars[k] == '"' && closes {
            return Some(k + 1 + hashes);
        }
        k += 1;
    }
    Some(chars.len())
}

/// The end of a character literal at `start`, or `start` when the quote
/// opens a lifetime or a label (`'a`, `'outer:`).
fn char_literal_end(chars: &[char], start: usize) -> usize {
    match (chars.get(start + 1), chars.get(start + 2)) {
        (Some('\\'), _) => quoted_end(chars, start + 1, '\''),
        (Some(_), Some('\'')) => start + 3,
        _ => start,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A function of `body_lines` lines between its `fn` line and its
    /// closing brace, whose body holds what would fool a naive count: a
    /// brace in a string, a character and a comment, and a lifetime.
    fn planted(name: &str, body_lines: usize) -> String {
        let mut text = format!("fn {name}<'a>(x: &'a [u8; 4]) -> usize {{\n");
        for i in 0..body_lines {
            text.push_str(match i % 4 {
                0 => "    let s = \"}\";\n",
                1 => "    let c = '}';\n",
                2 => "    // } a brace in a comment\n",
                _ => "    let r = r#\"}\"#;\n",
            });
        }
        text.push_str("}\n");
        text
    }

    #[test]
    fn a_long_function_is_found_unless_it_says_why() {
        let at_the_bound = planted("fits", FUNCTION_LINES_MAX - 2);
        let over = planted("too_long", FUNCTION_LINES_MAX - 1);
        let text = format!("{at_the_bound}\n/// Docs.\n#[test]\n{over}");
        let problems = long_functions("crates/x/src/a.rs", &text);
        let found: Vec<(usize, &str)> =
            problems.iter().map(|p| (p.line, p.what.as_str())).collect();
        let over_line = FUNCTION_LINES_MAX + 4;
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].0, over_line);
        assert!(
            found[0]
                .1
                .starts_with("`fn too_long` is 81 lines; split it (at most 80)"),
            "{}",
            found[0].1
        );

        let reasoned =
            format!("// long: one table of cases, read top to bottom.\n/// Docs.\n{over}");
        assert_eq!(long_functions("crates/x/src/a.rs", &reasoned), vec![]);
        let no_reason = format!("// long:\n{over}");
        assert_eq!(long_functions("crates/x/src/a.rs", &no_reason).len(), 1);
        // A reason that is not right above the function does not count.
        let apart = format!("// long: far away\nconst X: u8 = 1;\n{over}");
        assert_eq!(long_functions("crates/x/src/a.rs", &apart).len(), 1);
    }

    #[test]
    fn a_test_may_run_longer_but_not_without_bound() {
        let over_80 = planted("long_test", FUNCTION_LINES_MAX - 1);
        let over_100 = planted("too_long_test", TEST_FUNCTION_LINES_MAX - 1);
        for file in [
            "crates/core/tests/a.rs",
            "crates/x/src/tests.rs",
            "web/src/state/tests/a.rs",
        ] {
            assert_eq!(long_functions(file, &over_80), vec![], "{file}");
            let problems = long_functions(file, &over_100);
            assert_eq!(problems.len(), 1, "{file}");
            assert!(
                problems[0]
                    .what
                    .starts_with("`fn too_long_test` is 101 lines; split it (at most 100)"),
                "{}",
                problems[0].what
            );
        }

        // In a source file, only a `#[cfg(test)]` module's functions get
        // the test bound; the function after the module does not.
        let module = |attribute: &str, body: &str| {
            format!(
                "{attribute}\n#[allow(dead_code)]\npub(crate) mod tests {{\n{body}}}\n{over_80}"
            )
        };
        for attribute in ["#[cfg(test)]", "#[cfg(all(test, feature = \"toml\"))]"] {
            let problems = long_functions("crates/x/src/a.rs", &module(attribute, &over_80));
            let names: Vec<&str> = problems.iter().map(|p| p.what.as_str()).collect();
            assert_eq!(problems.len(), 1, "{names:?}");
            assert_eq!(problems[0].line, 3 + FUNCTION_LINES_MAX + 1 + 2);
            assert_eq!(
                long_functions("crates/x/src/a.rs", &module(attribute, &over_100)).len(),
                2
            );
        }
        // A test-only function outside a test module, or a module declared
        // without a body, is not a test module.
        let declared = format!("#[cfg(test)]\nmod tests;\n{over_80}");
        assert_eq!(long_functions("crates/x/src/a.rs", &declared).len(), 1);
        assert!(!is_test_file("crates/x/src/contests.rs"));
        assert!(!is_test_file("crates/x/src/tests_data.rs"));
    }

    #[test]
    fn nested_declarations_and_types_are_read_as_they_are() {
        let text = "trait T {\n    fn declared(&self);\n}\n\
                    fn outer(f: fn(u8) -> u8) {\n    fn inner() {}\n    let s = \"fn fake() {\";\n}\n";
        let names: Vec<(String, usize, usize)> = functions(&blank_non_code(text))
            .into_iter()
            .map(|f| (f.name, f.first_line, f.last_line))
            .collect();
        assert_eq!(
            names,
            vec![("outer".to_string(), 4, 7), ("inner".to_string(), 5, 5)]
        );
        assert!(is_measured("web/src/components/app.rs"));
        assert!(!is_measured("fuzz/fuzz_targets/x.rs"));
    }
}
