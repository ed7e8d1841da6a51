//! The core's public API says why in types: no `pub fn` of crates/core
//! returns `Result<_, String>`, and no `pub type` is one. A caller that
//! must branch on a sentence has to parse it; an enum that carries the
//! typed cause lets it match, and the sentence is made where it is shown
//! (the page's worker, the CLI).

use super::Problem;

/// Whether `file` is a source of the core, whose public API this checks.
pub fn is_core_source(file: &str) -> bool {
    file.starts_with("crates/core/src/") && file.ends_with(".rs")
}

/// Each `pub fn` or `pub type` of `text` whose signature (up to its body or
/// its `;`) has `String` as a `Result`'s error.
pub fn string_errors(file: &str, text: &str) -> Vec<Problem> {
    let mut problems = Vec::new();
    let mut from = 0;
    while let Some(found) = next_public_item(&text[from..]) {
        let start = from + found;
        let rest = &text[start..];
        let end = rest.find(['{', ';']).unwrap_or(rest.len());
        let signature: String = rest[..end].split_whitespace().collect::<Vec<_>>().join(" ");
        if has_string_error(&signature) {
            problems.push(Problem {
                file: file.to_string(),
                line: text[..start].lines().count() + 1,
                what: format!(
                    "`{}` gives a `String` as its error: give an enum of the typed causes, \
                     and make the sentence where it is shown",
                    signature.chars().take(80).collect::<String>()
                ),
            });
        }
        from = start + end.max(1);
    }
    problems
}

/// Where the next `pub fn` or `pub type` (not `pub(crate)` and kin) starts
/// in `text`, at the start of a word.
fn next_public_item(text: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(at) = text[from..].find("pub ") {
        let start = from + at;
        let word_start = start == 0 || !text.as_bytes()[start - 1].is_ascii_alphanumeric();
        let after = &text[start + 4..];
        if word_start && (after.starts_with("fn ") || after.starts_with("type ")) {
            return Some(start);
        }
        from = start + 4;
    }
    None
}

/// Whether a signature's `Result<…>` ends with `String` as its error.
fn has_string_error(signature: &str) -> bool {
    signature.match_indices("Result<").any(|(at, _)| {
        // The Result's own closing `>`, counting the angle brackets inside.
        let mut depth = 0usize;
        let inside = &signature[at + "Result<".len()..];
        for (i, c) in inside.char_indices() {
            match c {
                '<' => depth += 1,
                '>' if depth > 0 => depth -= 1,
                '>' => {
                    let error = inside[..i].rsplit(',').next().unwrap_or("").trim();
                    return error == "String" || error == "std::string::String";
                }
                _ => {}
            }
        }
        false
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_public_result_with_a_string_error_is_found_and_nothing_else() {
        let text = "pub fn context(exercise: &Exercise) -> Result<Context, String> {\n}\n\
                    pub fn typed() -> Result<Vec<(String, String)>, Error> {}\n\
                    pub(crate) fn inner() -> Result<(), String> {}\n\
                    fn private() -> Result<(), String> {}\n\
                    pub type Judged =\n    Result<BTreeMap<String, Vec<u8>>, String>;\n\
                    pub fn nested() -> Option<Result<u8, String>> {}\n\
                    pub struct Kept { pub reason: String }\n";
        let lines: Vec<usize> = string_errors("crates/core/src/x.rs", text)
            .iter()
            .map(|p| p.line)
            .collect();
        assert_eq!(lines, [1, 6, 8]);
    }
}
