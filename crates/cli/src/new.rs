//! `fencelab new ID`: writes a commented starter exercise to edit.
//!
//! The starter is a file of its own, `starter.toml`, a complete exercise
//! that passes `fencelab check` and `fencelab mutate` (the CLI's tests check
//! both); `new` only puts the author's id in it, and with `--postgres` adds
//! `starter-postgres.toml`, its `[postgres]` table: the same exercise's
//! PostgreSQL texts. It never overwrites a file,
//! and refuses a bundled exercise's id, which a site's index would refuse.

use crate::{BadInput, Ended, emit};
use std::io::Write;
use std::path::Path;

const STARTER: &str = include_str!("starter.toml");

/// The starter's `[postgres]` table, added at its end by `new --postgres`.
const STARTER_POSTGRES: &str = include_str!("starter-postgres.toml");

/// The line of `starter.toml` that `new` replaces with the author's id.
const STARTER_ID_LINE: &str = "\nid = \"starter\"\n";

/// The starter exercise with `id` as its id, quoted as TOML, so any text
/// reaches the loader's own rule for ids; with its PostgreSQL texts when
/// `postgres`.
fn starter(id: &str, postgres: bool) -> String {
    assert!(
        STARTER.contains(STARTER_ID_LINE),
        "starter.toml has its id line"
    );
    let quoted = toml::Value::String(id.to_string()).to_string();
    let mut text = STARTER.replacen(STARTER_ID_LINE, &format!("\nid = {quoted}\n"), 1);
    if postgres {
        text.push_str(STARTER_POSTGRES);
    }
    text
}

pub fn run(id: &str, dir: &Path, postgres: bool) -> Result<Ended, BadInput> {
    let text = starter(id, postgres);
    // The loader says whether the id is one; the rest of the file is known
    // to load, so any other error is fencelab's own.
    if let Err(error) = fencelab_core::exercise::load(&format!("{id}.toml"), &text) {
        return Err(BadInput(if error.field == "id" {
            // The id is the author's text: written out, so a line break or
            // an ESC sequence in it cannot steer the terminal.
            format!(
                "`{}` is not an exercise id: {}",
                fencelab_model::text::visible(id),
                error.message
            )
        } else {
            format!("the starter exercise does not load (a bug in fencelab): {error}")
        }));
    }
    // A bundled exercise's id is taken: a site's index refuses a second
    // exercise under it (`fencelab index`), so refuse it before the author
    // writes a line.
    if let Some(taken) = crate::bundled_exercises()?.iter().find(|e| e.id == id) {
        return Err(BadInput(format!(
            "`{id}` is the id of a bundled exercise (\"{}\"); a site cannot host a second \
             exercise under it, so choose another ID",
            taken.title
        )));
    }
    let path = dir.join(format!("{id}.toml"));
    let cannot = |e: std::io::Error| BadInput(format!("{}: cannot write: {e}", path.display()));
    std::fs::create_dir_all(dir).map_err(cannot)?;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
        .map_err(|e| {
            if e.kind() == std::io::ErrorKind::AlreadyExists {
                BadInput(format!(
                    "{}: the file already exists, and `fencelab new` never overwrites one \
                     (choose another ID, or another directory with --dir)",
                    path.display()
                ))
            } else {
                cannot(e)
            }
        })?;
    file.write_all(text.as_bytes()).map_err(cannot)?;
    let shown = path.display();
    emit(&format!(
        "wrote {shown}: a starter exercise that passes `fencelab check` and `fencelab mutate`.\n\
         \n\
         fencelab run {shown} --start   # the starting text fails, as a learner first sees it\n\
         fencelab check {shown}         # the reference passes, the broken variant is caught\n\
         fencelab mutate {shown}        # every generated bug is caught or declared equivalent\n\
         \n\
         Edit it into your own exercise; its comments, and docs/EXERCISES.md, describe every field.\n{}",
        if postgres {
            "Its [postgres] table gives the texts that differ on PostgreSQL (\"PostgreSQL dialect\").\n"
        } else {
            ""
        }
    ));
    Ok(Ended::Passed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use fencelab_model::Exercise;

    /// `--postgres` adds the dialect and changes nothing else: the SQLite
    /// exercise is the plain starter's, and on PostgreSQL the schema and
    /// the reference are PostgreSQL's own.
    #[test]
    fn the_postgres_starter_loads_with_both_dialects() {
        let load = |postgres| {
            Exercise::from_toml("my-claim.toml", &starter("my-claim", postgres)).expect("it loads")
        };
        let (plain, both) = (load(false), load(true));
        assert_eq!(
            Exercise {
                postgres: None,
                ..both.clone()
            },
            plain
        );
        let postgres = both.on_postgres().expect("a PostgreSQL dialect");
        assert!(postgres.schema.contains("GENERATED ALWAYS AS IDENTITY"));
        assert!(!postgres.schema.contains("AUTOINCREMENT"));
        let (on_postgres, on_sqlite) = (&postgres.procedures[0], &plain.procedures[0]);
        assert!(on_postgres.reference.starts_with("BEGIN;\n"));
        assert!(on_sqlite.reference.starts_with("BEGIN IMMEDIATE;\n"));
        // The starting text is the same text on both.
        assert_eq!(on_postgres.start, on_sqlite.start);
        let variant = &postgres.variants[0].procedures["take"];
        assert!(variant.starts_with("BEGIN;\n"), "{variant}");
        assert_eq!(postgres.equivalents.len(), 1);
    }
}
