//! `fencelab record --postgres [URL] --out DIR [EXERCISE...]`: each
//! exercise's PostgreSQL verdicts, recorded for a site (issue 53, item 4).
//! The page cannot hold concurrent PostgreSQL sessions, so the site carries
//! what the server said, as `model::report::Recorded` JSON the page reads.

use crate::index::INDEX_FILE;
use crate::postgres::{Engine, PostgresArg};
use crate::{BadInput, Ended};
use fencelab_core::check::Limits;
use fencelab_core::target::Target;
use fencelab_core::{Exercise, ExerciseReport};
use fencelab_model::report::{Recorded, RecordedRun, RecordedTexts, recorded_file};
use std::collections::BTreeMap;
use std::path::Path;

/// Records every exercise `names` gives (the bundled ones with a dialect
/// when none) into `out`.
pub(crate) fn run(names: &[String], out: &Path, postgres: &PostgresArg) -> Result<Ended, BadInput> {
    if postgres.postgres.is_none() {
        return Err(BadInput(
            "record needs a server: give --postgres URL (or a bare --postgres with \
             FENCELAB_POSTGRES set)"
                .to_string(),
        ));
    }
    let engine = postgres.engine()?;
    let exercises = if names.is_empty() {
        crate::named_exercises(names, &engine)?
    } else {
        let mut found = Vec::new();
        for name in names {
            found.extend(named(name, &engine)?);
        }
        found
    };
    // Every one must have a dialect before anything is written.
    for exercise in &exercises {
        engine.exercise(exercise)?;
    }
    std::fs::create_dir_all(out)
        .map_err(|e| BadInput(format!("{}: cannot create: {e}", out.display())))?;
    for exercise in &exercises {
        let recorded = record(&engine, exercise)?;
        let file = out.join(recorded_file(&exercise.id));
        let json = serde_json::to_string(&recorded)
            .map_err(|e| BadInput(format!("{}: cannot write JSON: {e}", exercise.id)))?;
        std::fs::write(&file, json)
            .map_err(|e| BadInput(format!("{}: cannot write: {e}", file.display())))?;
        let differing: usize = recorded.runs.iter().map(|r| r.differing().count()).sum();
        crate::emit(&format!(
            "{}: {} runs on {}, {differing} scenario verdicts differ from SQLite's -> {}\n",
            exercise.id,
            recorded.runs.len(),
            recorded.engine,
            file.display()
        ));
    }
    Ok(Ended::Passed)
}

/// The exercises `name` gives: a folder's (a site's exercises/, its index
/// left out) that have a dialect, as the bundled ones are chosen; an
/// exercise named on its own, whatever it has.
fn named(name: &str, engine: &Engine) -> Result<Vec<Exercise>, BadInput> {
    let folder = Path::new(name);
    if !folder.is_dir() {
        return crate::named_exercises(&[name.to_string()], engine);
    }
    let mut found = Vec::new();
    for file in crate::exercise_files(&[folder.to_path_buf()])? {
        if file.file_name().is_some_and(|f| f == INDEX_FILE) {
            continue;
        }
        let exercise = crate::load(&file)?;
        if engine.runs(&exercise) {
            found.push(exercise);
        }
    }
    Ok(found)
}

/// One exercise's recording: every set of texts run on both engines.
fn record(engine: &Engine, exercise: &Exercise) -> Result<Recorded, BadInput> {
    let (server_exercise, target) = engine.exercise(exercise)?;
    let Engine::Postgres { version, .. } = engine else {
        return Err(BadInput("record runs on PostgreSQL only".to_string()));
    };
    let mut runs = Vec::new();
    for (texts, on_sqlite, on_server) in text_sets(exercise, &server_exercise) {
        let sqlite = suite(&Target::Sqlite, exercise, &on_sqlite);
        let server = suite(&target, &server_exercise, &on_server);
        runs.push(RecordedRun::new(texts, server, &sqlite));
    }
    Ok(Recorded {
        exercise: exercise.id.clone(),
        engine: version.clone(),
        runs,
    })
}

/// Procedure texts by name, as a suite takes them.
type Texts = Vec<(String, String)>;

/// The reference's, the starting texts' and each named variant's texts, on
/// SQLite and as the server runs them (a variant the dialect has no text of
/// runs the SQLite one there too: `on_postgres` keeps it).
fn text_sets(sqlite: &Exercise, server: &Exercise) -> Vec<(RecordedTexts, Texts, Texts)> {
    let mut sets = vec![
        (
            RecordedTexts::Reference,
            sqlite.texts_with(&BTreeMap::new()),
            server.texts_with(&BTreeMap::new()),
        ),
        (
            RecordedTexts::Start,
            sqlite.texts_with(&sqlite.start_edits()),
            server.texts_with(&server.start_edits()),
        ),
    ];
    for variant in &sqlite.variants {
        if let Some(on_server) = server.variants.iter().find(|v| v.name == variant.name) {
            sets.push((
                RecordedTexts::Variant(variant.name.clone()),
                sqlite.texts_of_variant(variant),
                server.texts_of_variant(on_server),
            ));
        }
    }
    sets
}

/// Every scenario of `exercise` against `texts` on `target`, to the end.
fn suite(target: &Target, exercise: &Exercise, texts: &Texts) -> ExerciseReport {
    target
        .suite(exercise, texts, &exercise.scenarios, Limits::default())
        .finish()
}
