//! `[preprocessor.fencelab]` in book.toml, as mdBook hands it over (the
//! book's whole configuration, as JSON, in the preprocessor's context).
//!
//! ```toml
//! [preprocessor.fencelab]
//! site-dir = "../dist"        # a built fencelab site, copied into the book
//! # site = "https://fencelab.your-school.example/"   # or one hosted elsewhere
//! hook = "telemetry.log"      # optional: a function the book's pages define
//! ```
//!
//! Exactly one of `site-dir` and `site`. Every other key but those mdBook
//! itself reads is refused by name, so a typo is not silently ignored.

use serde_json::Value;
use std::path::PathBuf;

/// Keys of the table that mdBook reads for itself.
const MDBOOK_KEYS: &[&str] = &["command", "renderer", "before", "after", "optional"];
/// The folder of the book's source that the preprocessor writes (the site's
/// copy, the exercise files, the results script), as mdbook-quiz writes its
/// own: mdBook copies it into the built book (mdBook issue 1087).
pub const FOLDER: &str = "fencelab";
/// The longest hook name or site address taken, in characters.
const VALUE_CHARS_MAX: usize = 200;

/// Where the book's exercises are served from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Site {
    /// A built site (`cargo xtask dist`), copied into the book.
    Copied(PathBuf),
    /// A site hosted elsewhere, by its address (ending in `/`).
    Hosted(String),
}

/// The preprocessor's settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    pub site: Site,
    /// A function the book's pages define (a dotted name from `window`),
    /// called with each result.
    pub hook: Option<String>,
}

impl Config {
    /// Reads the table from mdBook's context; `root` is the book's folder.
    pub fn from_context(context: &Value, root: &std::path::Path) -> Result<Config, String> {
        let table = &context["config"]["preprocessor"]["fencelab"];
        let empty = serde_json::Map::new();
        let table = match table {
            Value::Object(map) => map,
            Value::Null => &empty,
            _ => return Err(problem("must be a table")),
        };
        for key in table.keys() {
            if !["site-dir", "site", "hook"].contains(&key.as_str())
                && !MDBOOK_KEYS.contains(&key.as_str())
            {
                return Err(problem(&format!(
                    "has no key `{key}` (its keys: `site-dir`, `site`, `hook`)"
                )));
            }
        }
        let text = |key: &str| -> Result<Option<&str>, String> {
            match table.get(key) {
                None => Ok(None),
                Some(Value::String(text)) if text.chars().count() <= VALUE_CHARS_MAX => {
                    Ok(Some(text.as_str()))
                }
                Some(Value::String(_)) => Err(problem(&format!(
                    "`{key}` is longer than {VALUE_CHARS_MAX} characters"
                ))),
                Some(_) => Err(problem(&format!("`{key}` must be a string"))),
            }
        };
        let site = match (text("site-dir")?, text("site")?) {
            (Some(dir), None) => Site::Copied(root.join(dir)),
            (None, Some(address)) => Site::Hosted(hosted(address)?),
            (Some(_), Some(_)) => {
                return Err(problem(
                    "takes `site-dir` (a built site to copy) or `site` (the address of one), not both",
                ));
            }
            (None, None) => {
                return Err(problem(
                    "needs `site-dir = \"PATH\"` (a built fencelab site, from `cargo xtask dist`) or `site = \"https://...\"` (the address of one)",
                ));
            }
        };
        let hook = text("hook")?.map(hook_name).transpose()?;
        Ok(Config { site, hook })
    }
}

fn problem(what: &str) -> String {
    format!("book.toml: [preprocessor.fencelab] {what}")
}

/// A hosted site's address: http or https, ending in `/`, with nothing an
/// HTML attribute would have to escape.
fn hosted(address: &str) -> Result<String, String> {
    let scheme_ok = address.starts_with("https://") || address.starts_with("http://");
    let plain = address
        .chars()
        .all(|c| c.is_ascii_graphic() && !matches!(c, '"' | '\'' | '<' | '>' | '&' | '\\' | '`'));
    if !scheme_ok || !plain {
        return Err(problem(&format!(
            "`site` must be an http or https address (without quotes, `<`, `>` or `&`); found {address:?}"
        )));
    }
    let mut address = address.to_string();
    if !address.ends_with('/') {
        address.push('/');
    }
    Ok(address)
}

/// A hook's name: identifiers joined by dots, looked up from `window`.
fn hook_name(name: &str) -> Result<String, String> {
    let identifier = |part: &str| {
        let mut chars = part.chars();
        chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
    };
    if name.split('.').all(identifier) {
        Ok(name.to_string())
    } else {
        Err(problem(&format!(
            "`hook` must name a function of the page, as identifiers joined by dots (`telemetry.log`); found {name:?}"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::path::Path;

    fn read(table: Value) -> Result<Config, String> {
        Config::from_context(
            &json!({ "config": { "preprocessor": { "fencelab": table } } }),
            Path::new("/book"),
        )
    }

    #[test]
    fn a_copied_site_and_a_hook() {
        let config =
            read(json!({ "site-dir": "../dist", "hook": "telemetry.log", "command": "x" }));
        assert_eq!(
            config,
            Ok(Config {
                site: Site::Copied("/book/../dist".into()),
                hook: Some("telemetry.log".into()),
            })
        );
    }

    #[test]
    fn a_hosted_site_gets_its_slash() {
        let config = read(json!({ "site": "https://x.example/fencelab" })).unwrap();
        assert_eq!(
            config.site,
            Site::Hosted("https://x.example/fencelab/".into())
        );
    }

    #[test]
    fn unusable_settings_are_named() {
        let cases = [
            (json!({}), "needs `site-dir"),
            (json!({ "site-dir": "a", "site": "https://x/" }), "not both"),
            (json!({ "site": "javascript:alert(1)" }), "http or https"),
            (json!({ "site": "https://x/\"><script>" }), "http or https"),
            (
                json!({ "site-dir": "a", "hook": "alert(1)" }),
                "`hook` must name a function",
            ),
            (json!({ "site-dir": "a", "hok": "x" }), "has no key `hok`"),
            (json!({ "site-dir": 3 }), "`site-dir` must be a string"),
        ];
        for (table, expected) in cases {
            let error = read(table.clone()).unwrap_err();
            assert!(error.contains(expected), "{table}: {error}");
        }
    }
}
