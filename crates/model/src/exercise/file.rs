//! The exercise file as written: the TOML tables serde reads, every field
//! spanned where an error may need its place, unknown fields refused. The
//! loader (`load.rs`) checks what they hold; nothing here judges a value.

use super::Journal;
use crate::monitor::{BeliefRule, EffectRule};
use crate::scenario::Scenario;
use crate::value::Value;
use serde::Deserialize;
use std::collections::BTreeMap;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct File {
    pub(super) format: u32,
    pub(super) id: toml::Spanned<String>,
    pub(super) title: String,
    pub(super) lesson: String,
    pub(super) narrative: String,
    pub(super) schema: toml::Spanned<String>,
    #[serde(default)]
    pub(super) journal: Journal,
    #[serde(default)]
    pub(super) constants: Option<toml::Spanned<BTreeMap<String, Value>>>,
    pub(super) procedures: toml::Spanned<BTreeMap<String, toml::Spanned<ProcedureFile>>>,
    /// Procedure names in the order the learner sees them; defaults to
    /// editable ones first, then by name.
    #[serde(default)]
    pub(super) order: Vec<String>,
    #[serde(default)]
    pub(super) hints: Vec<String>,
    #[serde(default)]
    pub(super) working_version: Option<toml::Spanned<String>>,
    #[serde(default)]
    pub(super) beliefs: Vec<toml::Spanned<BeliefRule>>,
    #[serde(default)]
    pub(super) effects: Vec<toml::Spanned<EffectRule>>,
    #[serde(default)]
    pub(super) scenarios: Vec<toml::Spanned<Scenario>>,
    /// The named broken variants, `[[mutants]]` in the file.
    #[serde(default, rename = "mutants")]
    pub(super) variants: Vec<toml::Spanned<VariantFile>>,
    #[serde(default)]
    pub(super) equivalent: Vec<toml::Spanned<EquivalentFile>>,
    /// The PostgreSQL dialect: the texts that differ on PostgreSQL.
    #[serde(default)]
    pub(super) postgres: Option<toml::Spanned<PostgresFile>>,
}

/// `[postgres]`: each text given replaces the SQLite one of its name when
/// the exercise runs on PostgreSQL (`super::Dialect`).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct PostgresFile {
    pub(super) schema: toml::Spanned<String>,
    #[serde(default)]
    pub(super) isolation: super::Isolation,
    #[serde(default)]
    pub(super) procedures: BTreeMap<String, toml::Spanned<PostgresProcedureFile>>,
    /// `[[postgres.mutants]]`: by a named variant's name, its texts.
    #[serde(default, rename = "mutants")]
    pub(super) variants: Vec<toml::Spanned<PostgresVariantFile>>,
    #[serde(default)]
    pub(super) equivalent: Vec<toml::Spanned<EquivalentFile>>,
    #[serde(default)]
    pub(super) scenarios: Vec<toml::Spanned<Scenario>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct PostgresProcedureFile {
    #[serde(default)]
    pub(super) reference: Option<toml::Spanned<String>>,
    #[serde(default)]
    pub(super) start: Option<toml::Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct PostgresVariantFile {
    pub(super) name: String,
    pub(super) procedures: BTreeMap<String, toml::Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct EquivalentFile {
    #[serde(default)]
    pub(super) mutant: Option<String>,
    #[serde(default)]
    pub(super) mutants: Vec<String>,
    pub(super) reason: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ProcedureFile {
    pub(super) reference: toml::Spanned<String>,
    #[serde(default)]
    pub(super) editable: bool,
    #[serde(default)]
    pub(super) start: Option<toml::Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct VariantFile {
    pub(super) name: String,
    pub(super) explanation: String,
    pub(super) procedures: BTreeMap<String, toml::Spanned<String>>,
}

/// The dotted path of the TOML key nearest before `offset`, for errors that
/// come from the parser: the last table header and key seen.
pub(super) fn field_of(text: &str, offset: usize) -> String {
    // Up to the end of the line the offset is on: a key that starts there
    // (an unknown field, say) is the field at fault, not the one before.
    let offset = offset.min(text.len());
    let line_end = text[offset..]
        .find('\n')
        .map_or(text.len(), |end| offset + end);
    let before = text.get(..line_end).unwrap_or(text);
    let mut table = String::new();
    let mut key = String::new();
    for line in before.lines() {
        let line = line.trim();
        if let Some(header) = line.strip_prefix("[[").and_then(|l| l.strip_suffix("]]")) {
            table = header.trim().to_string();
            key.clear();
        } else if let Some(header) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            table = header.trim().to_string();
            key.clear();
        } else if let Some((name, _)) = line.split_once('=')
            && !name.trim().is_empty()
            && name
                .trim()
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "_-.\"".contains(c))
        {
            key = name.trim().to_string();
        }
    }
    match (table.is_empty(), key.is_empty()) {
        (true, true) => "(top level)".into(),
        (true, false) => key,
        (false, true) => table,
        (false, false) => format!("{table}.{key}"),
    }
}
