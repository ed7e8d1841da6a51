//! The `[postgres]` table: the texts that differ on PostgreSQL, checked by
//! the rules the SQLite ones are (each reference parses, a start only on an
//! editable procedure, no SQL text holds what SQL cannot), and each named by
//! what the SQLite part has: a procedure, a named mutant or a scenario of
//! that name there, or an error at the name.

use super::{
    Named, Part, ProcedureSpec, Source, load_equivalents, load_scenarios, replacement_texts,
};
use crate::exercise::file::{PostgresFile, PostgresProcedureFile};
use crate::exercise::{Dialect, DialectTexts, LoadError, Variant};
use crate::procedure::Procedure;
use crate::scenario::Scenario;
use std::collections::BTreeMap;

/// What the SQLite part of the file holds, loaded: what the dialect's names
/// must name.
pub(super) struct Sqlite<'a> {
    pub(super) procedures: &'a [ProcedureSpec],
    pub(super) scenarios: &'a [Scenario],
    pub(super) variants: &'a [Variant],
}

/// The dialect of `[postgres]`, spanning `file`.
pub(super) fn load(
    source: &Source,
    file: &toml::Spanned<PostgresFile>,
    sqlite: &Sqlite<'_>,
) -> Result<Dialect, LoadError> {
    let postgres = file.get_ref();
    source.sql_characters(&postgres.schema, "postgres.schema")?;
    let procedures = load_procedures(source, &postgres.procedures, sqlite.procedures)?;
    let variants = load_variants(source, postgres, sqlite)?;
    let equivalents = load_equivalents(source, &postgres.equivalent, Part::Postgres)?;
    let scenarios = load_scenarios(
        source,
        &postgres.scenarios,
        Part::Postgres,
        sqlite.procedures,
    )?;
    for (i, (spanned, scenario)) in postgres.scenarios.iter().zip(&scenarios).enumerate() {
        if !sqlite.scenarios.iter().any(|s| s.name == scenario.name) {
            return Err(source.error(
                spanned.span(),
                &format!("postgres.scenarios[{i}].name"),
                format!(
                    "there is no scenario named `{}` to give its PostgreSQL form",
                    scenario.name
                ),
            ));
        }
    }
    Ok(Dialect {
        schema: postgres.schema.get_ref().clone(),
        isolation: postgres.isolation,
        procedures,
        variants,
        equivalents,
        scenarios,
    })
}

/// `[postgres.procedures.NAME]`: each of a procedure there is, giving a
/// reference that parses or a start (on an editable procedure), or both.
fn load_procedures(
    source: &Source,
    files: &BTreeMap<String, toml::Spanned<PostgresProcedureFile>>,
    procedures: &[ProcedureSpec],
) -> Result<BTreeMap<String, DialectTexts>, LoadError> {
    let mut loaded = BTreeMap::new();
    for (name, spanned) in files {
        let field = format!("postgres.procedures.{name}");
        let Some(sqlite) = procedures.iter().find(|p| &p.name == name) else {
            return Err(source.error(
                spanned.span(),
                &field,
                format!("there is no procedure named `{name}`"),
            ));
        };
        let texts = spanned.get_ref();
        if texts.reference.is_none() && texts.start.is_none() {
            return Err(source.error(
                spanned.span(),
                &field,
                "give the procedure's PostgreSQL `reference` or `start`, or leave its table out",
            ));
        }
        if let Some(reference) = &texts.reference {
            Procedure::parse(name, reference.get_ref()).map_err(|e| {
                source.procedure_error(reference.span(), &format!("{field}.reference"), &e)
            })?;
        }
        if let Some(start) = &texts.start {
            let field = format!("{field}.start");
            if !sqlite.editable {
                return Err(source.error(
                    start.span(),
                    &field,
                    "only an editable procedure has a starting text (add editable = true)",
                ));
            }
            source.sql_characters(start, &field)?;
        }
        let text =
            |text: &Option<toml::Spanned<String>>| text.as_ref().map(|t| t.get_ref().clone());
        loaded.insert(
            name.clone(),
            DialectTexts {
                reference: text(&texts.reference),
                start: text(&texts.start),
            },
        );
    }
    Ok(loaded)
}

/// `[[postgres.mutants]]`: each by the name of a named mutant there is,
/// named once, with texts as a mutant's are.
fn load_variants(
    source: &Source,
    postgres: &PostgresFile,
    sqlite: &Sqlite<'_>,
) -> Result<BTreeMap<String, BTreeMap<String, String>>, LoadError> {
    let mut variants = BTreeMap::new();
    for (i, spanned) in postgres.variants.iter().enumerate() {
        let variant = spanned.get_ref();
        let field = format!("postgres.mutants[{i}]");
        let named = Named::of(spanned.span(), &field, &variant.name);
        named.unique(
            source,
            "PostgreSQL mutant",
            variants.keys().map(String::as_str),
        )?;
        if !sqlite.variants.iter().any(|v| v.name == variant.name) {
            return Err(source.error(
                spanned.span(),
                &named.field,
                format!(
                    "there is no mutant named `{}` to give its PostgreSQL texts",
                    variant.name
                ),
            ));
        }
        let texts = replacement_texts(
            source,
            &named,
            &field,
            &variant.procedures,
            sqlite.procedures,
        )?;
        variants.insert(variant.name.clone(), texts);
    }
    Ok(variants)
}

#[cfg(test)]
mod tests {
    use crate::exercise::{Exercise, Isolation, LoadError, line_at};
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    const SESSION: &str = "09-session-incarnations.toml";

    /// The session exercise, whose procedures are one of each kind: an
    /// editable one with a start (finish_session), an editable one
    /// without (claim_session), one not editable (start_host).
    fn session_file() -> &'static str {
        include_str!("../../../exercises/09-session-incarnations.toml")
    }

    /// A dialect that gives one of everything.
    const DIALECT: &str = r#"
[postgres]
schema = """
CREATE TABLE hosts (id TEXT PRIMARY KEY);
"""
isolation = "repeatable read"

[postgres.procedures.start_host]
reference = """
SELECT 1;
-- @return
"""

[postgres.procedures.claim_session]
reference = """
BEGIN;
SELECT 2;
COMMIT;
"""

[postgres.procedures.finish_session]
start = """
SELECT 3;
"""

[[postgres.mutants]]
name = "no host-lease check"
procedures = { finish_session = """
SELECT 4;
""" }

[[postgres.equivalent]]
mutant = "claim_session:2:1:delete-statement"
reason = "Nothing reads what it returns."

[[postgres.scenarios]]
name = "too late to finish"
summary = "On PostgreSQL, at serializable."
isolation = "serializable"
steps = [
  { start = "a", actor = "host-a" },
  { call = "start_host", process = "a", expect = { outcome = "ok" } },
]
"#;

    fn load(text: &str) -> Result<Exercise, LoadError> {
        Exercise::from_toml(SESSION, text)
    }

    fn with(dialect: &str) -> String {
        format!("{}\n{dialect}", session_file())
    }

    #[test]
    fn a_dialect_is_loaded_and_on_postgres_replaces_exactly_what_it_gives() {
        let sqlite = load(session_file()).expect("the session exercise loads");
        assert_eq!(sqlite.postgres, None);
        assert_eq!(sqlite.on_postgres(), None, "SQLite only");
        let both = load(&with(DIALECT)).expect("the dialect loads");
        let dialect = both.postgres.clone().expect("a dialect");
        assert_eq!(dialect.isolation, Isolation::RepeatableRead);
        // The SQLite exercise is as it was without the table.
        assert_eq!(
            Exercise {
                postgres: None,
                ..both.clone()
            },
            sqlite
        );

        let derived = both.on_postgres().expect("it runs on PostgreSQL");
        let mut expected = sqlite.clone();
        expected.schema = "CREATE TABLE hosts (id TEXT PRIMARY KEY);\n".into();
        for procedure in &mut expected.procedures {
            match procedure.name.as_str() {
                // Not editable: its start is its reference.
                "start_host" => {
                    procedure.reference = "SELECT 1;\n-- @return\n".into();
                    procedure.start.clone_from(&procedure.reference);
                }
                // Its SQLite start was its reference: so is its PostgreSQL one.
                "claim_session" => {
                    procedure.reference = "BEGIN;\nSELECT 2;\nCOMMIT;\n".into();
                    procedure.start.clone_from(&procedure.reference);
                }
                // A start alone: the reference stays SQLite's.
                _ => procedure.start = "SELECT 3;\n".into(),
            }
        }
        let variant = expected
            .variants
            .iter_mut()
            .find(|v| v.name == "no host-lease check")
            .expect("the variant");
        variant
            .procedures
            .insert("finish_session".into(), "SELECT 4;\n".into());
        for scenario in &mut expected.scenarios {
            if scenario.name == "too late to finish" {
                scenario.clone_from(&dialect.scenarios[0]);
            } else {
                scenario.isolation = Some(Isolation::RepeatableRead);
            }
        }
        expected.equivalents.clone_from(&dialect.equivalents);
        assert_eq!(derived, expected);
        // The scenario's own level; the dialect's for the rest.
        let late = &derived.scenarios[1];
        assert_eq!(late.isolation, Some(Isolation::Serializable));
        assert_eq!(both.isolation_for(late), Isolation::Serializable);
        assert_eq!(
            both.isolation_for(&sqlite.scenarios[0]),
            Isolation::RepeatableRead
        );
        assert_eq!(
            sqlite.isolation_for(&sqlite.scenarios[0]),
            Isolation::ReadCommitted
        );
    }

    #[test]
    fn an_exercise_with_a_dialect_round_trips_through_json() {
        let both = load(&with(DIALECT)).expect("the dialect loads");
        for exercise in [both.clone(), both.on_postgres().expect("derived")] {
            let json = serde_json::to_string(&exercise).expect("written");
            let read: Exercise = serde_json::from_str(&json).expect("read");
            assert_eq!(read, exercise);
        }
        let json = serde_json::to_value(&both).expect("written");
        assert_eq!(json["postgres"]["isolation"], "repeatable read");
        assert_eq!(
            json["postgres"]["mutants"]["no host-lease check"]["finish_session"],
            "SELECT 4;\n"
        );
    }

    /// Broken dialects: each an edit of [`DIALECT`] (`from` replaced by
    /// `to`; an empty `from` is the end, where `to` is added), the field at
    /// fault, and the line the error is put at, as the text that line
    /// starts with (its last such line).
    const BROKEN: [[&str; 4]; 17] = [
        [
            "schema = \"\"\"\nCREATE TABLE hosts (id TEXT PRIMARY KEY);\n\"\"\"\n",
            "",
            "postgres",
            "[postgres]",
        ],
        [
            "isolation = \"repeatable read\"",
            "colour = \"blue\"",
            "postgres.colour",
            "colour",
        ],
        [
            "isolation = \"repeatable read\"",
            "isolation = \"snapshot\"",
            "postgres.isolation",
            "isolation = \"snapshot\"",
        ],
        [
            "isolation = \"serializable\"",
            "isolation = \"read uncommitted\"",
            "postgres.scenarios.isolation",
            "isolation = \"read",
        ],
        [
            "[postgres.procedures.start_host]",
            "[postgres.procedures.stop_host]",
            "postgres.procedures.stop_host",
            "[postgres.procedures.stop_host]",
        ],
        [
            "[postgres.procedures.finish_session]\nstart",
            "[postgres.procedures.finish_session]\nending",
            "postgres.procedures.finish_session.ending",
            "ending",
        ],
        [
            "start = \"\"\"\nSELECT 3;\n\"\"\"\n",
            "",
            "postgres.procedures.finish_session",
            "[postgres.procedures.finish_session]",
        ],
        [
            "[postgres.procedures.start_host]\nreference",
            "[postgres.procedures.start_host]\nstart",
            "postgres.procedures.start_host.start",
            "start = \"\"\"\nSELECT 1;",
        ],
        [
            "SELECT 2;\nCOMMIT;",
            "SELECT 2;\n-- @refuse\nCOMMIT;",
            "postgres.procedures.claim_session.reference",
            "-- @refuse",
        ],
        [
            "SELECT 1;\n-- @return",
            "SELECT 1\\u0000;\n-- @return",
            "postgres.procedures.start_host.reference",
            "SELECT 1\\u0000",
        ],
        [
            "CREATE TABLE hosts",
            "CREATE TABLE \\u0001hosts",
            "postgres.schema",
            "CREATE TABLE \\u0001",
        ],
        [
            "name = \"no host-lease check\"",
            "name = \"no such mutant\"",
            "postgres.mutants[0].name",
            "[[postgres.mutants]]",
        ],
        [
            "",
            "[[postgres.mutants]]\nname = \"no host-lease check\"\nprocedures = { finish_session = \"SELECT 5;\" }\n",
            "postgres.mutants[1].name",
            "[[postgres.mutants]]",
        ],
        [
            "procedures = { finish_session",
            "procedures = { finish_it",
            "postgres.mutants[0].procedures.finish_it",
            "procedures = { finish_it",
        ],
        [
            "name = \"too late to finish\"",
            "name = \"too early to finish\"",
            "postgres.scenarios[0].name",
            "[[postgres.scenarios]]",
        ],
        [
            "call = \"start_host\"",
            "call = \"stop_host\"",
            "postgres.scenarios[0].steps[1]",
            "  { call = \"stop_host\"",
        ],
        [
            "reason = \"Nothing reads what it returns.\"",
            "reason = \" \"",
            "postgres.equivalent[0].reason",
            "[[postgres.equivalent]]",
        ],
    ];

    /// Loads [`DIALECT`] with `from` replaced by `to` and asserts the error
    /// is about `field`, at the last line that starts with `line`.
    fn assert_refused(from: &str, to: &str, field: &str, line: &str) {
        let dialect = if from.is_empty() {
            format!("{DIALECT}{to}")
        } else {
            assert!(DIALECT.contains(from), "{from}");
            DIALECT.replacen(from, to, 1)
        };
        let text = with(&dialect);
        let error = load(&text).expect_err(field);
        let at = text
            .rfind(&format!("\n{line}"))
            .map(|at| line_at(&text, at + 1));
        assert_eq!(
            (error.file.as_str(), error.field.as_str(), Some(error.line)),
            (SESSION, field, at),
            "{error}"
        );
    }

    #[test]
    fn each_broken_dialect_is_refused_at_its_field_and_line() {
        for [from, to, field, line] in BROKEN {
            assert_refused(from, to, field, line);
        }
        // A PostgreSQL text is held to the bound a SQLite one is.
        let too_long = format!(
            "BEGIN;\n{}",
            "SELECT 2;\n".repeat(crate::procedure::PROCEDURE_TEXT_BYTES_MAX / 10)
        );
        let from = "BEGIN;\nSELECT 2;\nCOMMIT;\n";
        let field = "postgres.procedures.claim_session.reference";
        assert_refused(from, &too_long, field, "BEGIN;");
    }
}
