//! The `-- @...` directives of a procedure: decisions (`@refuse`,
//! `@return`) and effects (`@effect`). Pure text; see the module above for
//! the vocabulary.

use super::{Action, Condition, Measure};

pub(super) enum Directive {
    Decision(Action, Option<Condition>),
    Effect { name: String, values: Vec<String> },
}

/// A refusal's text split at its first `:`: the head before it (the
/// category and its condition, `not_claimable unless changed 1`), and the
/// reason after it, empty without one. Untrimmed. The one reading of where a
/// refusal's condition ends, shared by the interpreter and the mutation
/// operators that change the condition.
pub(crate) fn refusal_parts(text: &str) -> (&str, &str) {
    text.split_once(':').unwrap_or((text, ""))
}

pub(super) fn parse_directive(text: &str) -> Result<Directive, String> {
    let (keyword, rest) = text.split_once(char::is_whitespace).unwrap_or((text, ""));
    let rest = rest.trim();
    match keyword {
        "refuse" => {
            let (head, reason) = refusal_parts(rest);
            let (head, reason) = (head.trim(), reason.trim());
            let (category, condition_text) =
                head.split_once(char::is_whitespace).unwrap_or((head, ""));
            if !is_name(category) {
                return Err(format!(
                    "@refuse needs a category such as not_claimable, not `{category}`"
                ));
            }
            let condition = parse_condition(condition_text.trim())?;
            let reason = if reason.is_empty() {
                category.replace('_', " ")
            } else {
                reason.to_string()
            };
            Ok(Directive::Decision(
                Action::Refuse {
                    category: category.to_string(),
                    reason,
                },
                condition,
            ))
        }
        "return" => {
            let (names_text, condition_text) = split_condition(rest);
            let names = parse_names(names_text)?;
            Ok(Directive::Decision(
                Action::Return { names },
                parse_condition(condition_text)?,
            ))
        }
        "effect" => {
            let (name, values) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
            if !is_name(name) {
                return Err(format!(
                    "@effect needs a name such as invoke_provider, not `{name}`"
                ));
            }
            Ok(Directive::Effect {
                name: name.to_string(),
                values: parse_names(values)?,
            })
        }
        other => Err(format!(
            "unknown directive `@{other}`: the directives are @refuse, @return and @effect"
        )),
    }
}

/// Splits `a, b if returned 1` into its names and its condition, at the
/// first word `if` or `unless`.
fn split_condition(text: &str) -> (&str, &str) {
    let at = text
        .split_whitespace()
        .find(|word| matches!(*word, "if" | "unless"))
        .map(|word| word.as_ptr() as usize - text.as_ptr() as usize);
    match at {
        Some(at) => (text[..at].trim(), text[at..].trim()),
        None => (text.trim(), ""),
    }
}

fn parse_condition(text: &str) -> Result<Option<Condition>, String> {
    if text.is_empty() {
        return Ok(None);
    }
    let words: Vec<&str> = text.split_whitespace().collect();
    let expected = "a condition reads `unless changed N`, `unless returned N`, `if changed N` or `if returned N`";
    let [when, measure, count] = words.as_slice() else {
        return Err(format!("{expected}, not `{text}`"));
    };
    let negated = match *when {
        "unless" => true,
        "if" => false,
        _ => return Err(format!("{expected}, not `{text}`")),
    };
    let measure = match *measure {
        "changed" => Measure::Changed,
        "returned" => Measure::Returned,
        _ => return Err(format!("{expected}, not `{text}`")),
    };
    let count = count
        .parse()
        .map_err(|_| format!("{expected}: `{count}` is not a row count"))?;
    Ok(Some(Condition {
        negated,
        measure,
        count,
    }))
}

fn parse_names(text: &str) -> Result<Vec<String>, String> {
    text.split(',')
        .map(str::trim)
        .filter(|name| !name.is_empty())
        .map(|name| {
            let name = name.strip_prefix(':').unwrap_or(name);
            if is_name(name) {
                Ok(name.to_string())
            } else {
                Err(format!(
                    "`{name}` is not a value name (letters, digits and _)"
                ))
            }
        })
        .collect()
}

fn is_name(text: &str) -> bool {
    !text.is_empty()
        && text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !text.starts_with(|c: char| c.is_ascii_digit())
}
