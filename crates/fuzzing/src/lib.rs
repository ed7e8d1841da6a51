//! The bodies of fencelab's fuzz targets.
//!
//! Each target in `fuzz/fuzz_targets/` is one line that calls the function
//! of the same name here, so the same code runs under libFuzzer (`cargo
//! xtask fuzz`) and in `cargo test` (tests/regressions.rs replays every file
//! under `fuzz/regressions/<target>/`), and a crash once fixed stays fixed
//! without the fuzzer.
//!
//! Every function takes any bytes and must return normally: anything the code
//! under test returns is fine, a panic, an abort or a hang is a bug. Where an
//! invariant is cheap to check (a round trip, an error that says something),
//! it is asserted, so a broken invariant is a crash too.

#![cfg(not(target_arch = "wasm32"))]

mod generate;
pub mod script;
pub mod seeds;

use fencelab_core::exercise::ExerciseExt;
use fencelab_core::{Checker, Exercise, Limits, Procedure, Verdict};
use fencelab_model::procedure::{StepKind, lexer};
use std::sync::OnceLock;

pub use generate::procedure_text;
pub use script::take_home_script;

/// A fuzz target's body: any bytes in, a panic when something is wrong.
pub type Target = fn(&[u8]);

/// The fuzz targets, by name: the folders under `fuzz/fuzz_targets/`,
/// `fuzz/corpus/` and `fuzz/regressions/`.
pub const TARGETS: [(&str, Target); 9] = [
    ("procedure_parser", procedure_parser),
    ("exercise_loader", exercise_loader),
    ("share_link", share_link),
    ("saved_state", saved_state),
    ("whole_run", whole_run),
    ("host_message", host_message),
    ("book_directive", book_directive),
    ("site_index", site_index),
    ("take_home_script", take_home_script),
];

/// The longest refusal the frame may post back to a host: a refusal quotes
/// only bounded pieces of what it refuses, never the whole message.
const REFUSAL_BYTES_MAX: usize = 1024;

/// What a course page posts to an embedded frame, as the frame reads it
/// (web/src/embed/protocol.rs; as JSON text here, a posted object in the
/// page), and the same bytes as the frame's
/// `?parent=` origin. A message read has an id; a refused one says why in a
/// bounded sentence; an origin read is one the reader gives back unchanged.
pub fn host_message(data: &[u8]) {
    use fencelab_web::embed::protocol::{parent_origin, read_host};
    let text = String::from_utf8_lossy(data);
    match read_host(&mut serde_json::Deserializer::from_str(&text)) {
        Ok(request) => {
            let _ = request.id;
        }
        Err(refusal) => {
            assert!(!refusal.message.trim().is_empty(), "a refusal says nothing");
            assert!(
                refusal.message.len() <= REFUSAL_BYTES_MAX,
                "a refusal of {} bytes: it quotes too much of the message",
                refusal.message.len()
            );
        }
    }
    match parent_origin(&text) {
        Ok(origin) => assert_eq!(
            parent_origin(&origin).as_ref(),
            Ok(&origin),
            "an origin read does not read back as itself"
        ),
        Err(message) => {
            assert!(!message.trim().is_empty(), "an origin refusal says nothing");
            assert!(
                message.len() <= REFUSAL_BYTES_MAX,
                "an origin refusal quotes too much"
            );
        }
    }
}

/// A book's chapter as mdbook-fencelab reads it for `{{#fencelab TARGET}}`
/// (crates/mdbook/src/directive.rs), on any UTF-8 text. Every directive
/// found is its own text, braces included, on the line it names, with a
/// target within bounds; every escape is a backslash before an opening;
/// every unusable directive names a line of the chapter and says why in a
/// bounded sentence.
pub fn book_directive(data: &[u8]) {
    use fencelab_mdbook::directive::{OPENING, TARGET_CHARS_MAX, Target, find};
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let line_of = |at: usize| text[..at].matches('\n').count() + 1;
    let lines = text.split_inclusive('\n').count().max(1);
    let found = find(text);
    for directive in &found.directives {
        let span = directive.span.clone();
        assert!(
            span.end <= text.len()
                && text.is_char_boundary(span.start)
                && text.is_char_boundary(span.end),
            "a directive's span {span:?} is not a place in the chapter"
        );
        let written = &text[span.clone()];
        assert!(
            written.starts_with(OPENING) && written.ends_with("}}") && !written.contains('\n'),
            "a directive's span is not one directive: {written:?}"
        );
        assert_eq!(
            directive.line,
            line_of(span.start),
            "a directive names another line"
        );
        let named = match &directive.target {
            Target::Bundled(id) => {
                assert!(
                    id.chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_'),
                    "an id of other characters: {id:?}"
                );
                id.clone()
            }
            Target::File(path) => {
                let path = path.to_string_lossy().into_owned();
                assert!(
                    path.ends_with(".toml"),
                    "a file target not ending in .toml: {path:?}"
                );
                path
            }
        };
        assert!(
            !named.is_empty() && named.chars().count() <= TARGET_CHARS_MAX,
            "a target of {} characters",
            named.chars().count()
        );
        assert!(
            written.contains(named.as_str()),
            "the target is not in its directive"
        );
    }
    for &escape in &found.escapes {
        assert!(
            text.get(escape..)
                .is_some_and(|rest| rest.starts_with('\\') && rest[1..].starts_with(OPENING)),
            "an escape at {escape} is not a backslash before an opening"
        );
    }
    for error in &found.errors {
        assert!(
            (1..=lines).contains(&error.line),
            "an error on line {} of a chapter of {lines}",
            error.line
        );
        assert!(
            !error.message.trim().is_empty(),
            "an unusable directive without a reason"
        );
        assert!(
            error.message.len() <= REFUSAL_BYTES_MAX,
            "a reason of {} bytes quotes too much of the chapter",
            error.message.len()
        );
    }
}

/// The procedure parser on any UTF-8 text: an accepted procedure is
/// consistent with its text, a refused one says why and where.
pub fn procedure_parser(data: &[u8]) {
    let Ok(source) = std::str::from_utf8(data) else {
        return;
    };
    let _ = lexer::tokens(source);
    match Procedure::parse("fuzzed", source) {
        Ok(procedure) => {
            assert!(!procedure.steps.is_empty(), "a procedure with no steps");
            assert_eq!(procedure.source, source);
            for step in &procedure.steps {
                assert!(
                    source.is_char_boundary(step.offset) && step.offset <= source.len(),
                    "step offset {} is not a place in the text",
                    step.offset
                );
                assert!(step.position.line >= 1 && step.position.column >= 1);
                match &step.kind {
                    StepKind::Sql { sql, .. } => {
                        // SQL's white space, not Unicode's: SQLite reads
                        // U+202F and its kin as name characters.
                        assert!(
                            !sql.trim_matches([' ', '\t', '\n', '\r']).is_empty(),
                            "an empty statement became a step"
                        );
                        assert!(
                            source[step.offset..].starts_with(sql.as_str()),
                            "step at {} does not start with its SQL {sql:?}",
                            step.offset
                        );
                    }
                    StepKind::Effect { name, .. } => assert!(!name.is_empty()),
                }
            }
            let _ = procedure.parameters();
            // The page and its worker exchange procedures as JSON.
            let json = serde_json::to_string(&procedure).expect("a procedure serialises");
            let back: Procedure = serde_json::from_str(&json).expect("its JSON reads back");
            assert_eq!(back, procedure, "a procedure's JSON does not round-trip");
        }
        Err(error) => {
            assert!(
                !error.message.trim().is_empty(),
                "a parse error says nothing"
            );
            assert!(error.position.line >= 1 && error.position.column >= 1);
            let _ = error.to_string();
        }
    }
}

/// A site's index as the checking worker reads it on every load, without
/// a TOML parser (`SiteIndex::parse_written`, for the form `fencelab index`
/// writes): whatever it reads, it reads as the toml parser does
/// (`SiteIndex::parse`, which the exercise reader uses for every other
/// text), value or sentence.
pub fn site_index(data: &[u8]) {
    use fencelab_model::site::SiteIndex;
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Some(written) = SiteIndex::parse_written(text) {
        assert_eq!(
            written,
            SiteIndex::parse(text),
            "the written form is read otherwise than TOML reads it"
        );
    }
}

/// The exercise loader, with the schema tried on SQLite as the CLI and the
/// worker load it: a refusal names a place and says why.
pub fn exercise_loader(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match fencelab_core::exercise::load("fuzzed.toml", text) {
        Ok(exercise) => {
            assert!(
                Exercise::from_toml("fuzzed.toml", text).is_ok(),
                "the model's loader refuses what the engine's accepts"
            );
            for (name, text) in exercise.texts_with(&Default::default()) {
                assert!(
                    Procedure::parse(&name, &text).is_ok(),
                    "a loaded exercise's procedure {name} does not parse"
                );
            }
            for variant in &exercise.variants {
                let _ = exercise.texts_of_variant(variant);
            }
        }
        Err(error) => {
            assert!(
                !error.message.trim().is_empty(),
                "a load error says nothing"
            );
            assert!(!error.field.is_empty(), "a load error names no field");
            let _ = error.to_string();
        }
    }
}

/// The share-link decoder on any fragment; a link it reads is written back
/// by `encode` to a fragment that reads as the same link. The same bytes go
/// to the decoder of the other link a fragment can carry, an exercise link
/// (`#x1=`, the authoring view's), with the same promise for the text it
/// reads.
pub fn share_link(data: &[u8]) {
    let fragment = String::from_utf8_lossy(data);
    let _ = fencelab_web::share::is_link(&fragment);
    match fencelab_web::share::decode(&fragment) {
        Ok(link) => {
            let again = fencelab_web::share::encode(&link);
            assert_eq!(
                fencelab_web::share::decode(&again).as_ref(),
                Ok(&link),
                "a decoded link does not survive encode and decode"
            );
        }
        Err(message) => assert!(!message.trim().is_empty(), "a link error says nothing"),
    }
    // The same bytes as the payload of a link, to get past the prefix.
    if !data.starts_with(b"s1=") {
        let mut prefixed = String::from("s1=");
        prefixed.push_str(&fragment);
        if let Ok(link) = fencelab_web::share::decode(&prefixed) {
            let again = fencelab_web::share::encode(&link);
            assert_eq!(fencelab_web::share::decode(&again), Ok(link));
        }
    }
    exercise_link(&fragment);
    if !data.starts_with(b"x1=") {
        exercise_link(&format!("x1={fragment}"));
    }
}

/// An exercise link's text, if it reads, is written back to a link that
/// reads as the same text (or refused, saying why: too long for a link).
fn exercise_link(fragment: &str) {
    use fencelab_web::author::link;
    let _ = link::is_exercise_link(fragment);
    match link::decode(fragment) {
        Ok(text) => match link::encode(&text) {
            Ok(again) => assert_eq!(
                link::decode(&again).as_deref(),
                Ok(text.as_str()),
                "a decoded exercise link does not survive encode and decode"
            ),
            Err(message) => assert!(!message.trim().is_empty(), "a refusal says nothing"),
        },
        Err(message) => assert!(!message.trim().is_empty(), "a link error says nothing"),
    }
}

/// The saved-state reader on any entry text; an entry it reads writes back
/// as JSON that reads as the same entry.
pub fn saved_state(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    match fencelab_web::state::Saved::parse(&text) {
        Ok(saved) => {
            let _ = saved.progress();
            let json = serde_json::to_string(&saved).expect("a saved entry serialises");
            assert_eq!(
                fencelab_web::state::Saved::parse(&json).as_ref(),
                Ok(&saved),
                "a saved entry does not survive being written and read"
            );
        }
        Err(message) => assert!(!message.trim().is_empty(), "a storage error says nothing"),
    }
}

/// The limits of one whole run: small, so one input stays well under a
/// second, yet enough for the claim exercise's scenarios to be explored.
pub fn whole_run_limits() -> Limits {
    Limits {
        schedules_max: 16,
        section_steps_max: 48,
        steps_max: 600,
        ..Limits::default()
    }
}

/// The template of a whole run: the bundled claim exercise (two tables, three
/// scenarios, one editable procedure `claim`).
fn claim_exercise() -> &'static Exercise {
    static EXERCISE: OnceLock<Exercise> = OnceLock::new();
    EXERCISE.get_or_init(|| {
        let (file, text) = fencelab_model::bundled::FILES[0];
        Exercise::from_toml(file, text).expect("the bundled claim exercise loads")
    })
}

/// A whole check: a procedure generated from `data` (see [`procedure_text`])
/// as the claim exercise's `claim`, every scenario checked with
/// [`whole_run_limits`]. Each report is one of the verdicts, an error says
/// something, and a failing schedule replays as a failure.
///
/// The world is built once and kept across inputs, each input's procedure
/// put in its place, as the worker and `fencelab mutate` keep theirs: the
/// schema and seed rows never change here, and building them was a quarter
/// of each input's time. A report depends only on the texts, the scenario
/// and the limits (the world is reset before every run), so a kept world
/// that leaked one input's state into the next would show here as a
/// schedule that does not replay as reported.
pub fn whole_run(data: &[u8]) {
    thread_local! {
        static CHECKER: std::cell::RefCell<Option<Checker>> =
            const { std::cell::RefCell::new(None) };
    }
    let text = procedure_text(data);
    let exercise = claim_exercise();
    let texts = vec![("claim".to_string(), text)];
    let procedure = match Procedure::parse("claim", &texts[0].1) {
        Ok(procedure) => procedure,
        Err(_) => {
            let unusable = exercise
                .checker(&texts)
                .err()
                .expect("a procedure that does not parse makes the texts unusable");
            assert!(
                !unusable.error.to_string().trim().is_empty(),
                "an unusable procedure without a message"
            );
            return;
        }
    };
    CHECKER.with_borrow_mut(|kept| {
        let checker = match kept {
            Some(checker) => {
                checker.set_procedure(procedure);
                checker
            }
            None => {
                let mut built = exercise
                    .checker(&texts)
                    .expect("the claim exercise's world builds with a procedure that parses");
                built.set_limits(whole_run_limits());
                kept.insert(built)
            }
        };
        check_every_scenario(checker, exercise);
    });
}

fn check_every_scenario(checker: &mut Checker, exercise: &Exercise) {
    for scenario in &exercise.scenarios {
        let report = checker.check(scenario);
        if let Some(error) = report.error() {
            assert!(
                !error.to_string().trim().is_empty(),
                "scenario {} errored without a message",
                scenario.name
            );
        }
        if report.verdict() == Verdict::Failed {
            assert!(
                report.problem().is_some_and(|p| !p.trim().is_empty()),
                "scenario {} failed without saying why",
                scenario.name
            );
            // Exact replay: the schedule shown fails again, the same way.
            let again = checker.replay(scenario, &report.schedule);
            assert_eq!(
                again.problem(),
                report.problem(),
                "scenario {}: schedule `{}` does not replay as it was reported",
                scenario.name,
                report.schedule
            );
        }
        serde_json::to_string(&report).expect("a report serialises");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_target_takes_empty_and_garbage_input() {
        for (_, target) in TARGETS {
            target(b"");
            target(b"\xff\xfe garbage \0");
        }
    }

    #[test]
    fn the_book_seeds_reach_every_kind_of_directive() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let chapters: Vec<_> = seeds::seeds(&root)
            .into_iter()
            .filter(|seed| seed.target == "book_directive")
            .collect();
        assert!(
            chapters.len() >= 4,
            "the test books' chapters and one of every kind"
        );
        let (mut directives, mut escapes, mut errors) = (0, 0, 0);
        for chapter in &chapters {
            book_directive(&chapter.data);
            let found = fencelab_mdbook::directive::find(&String::from_utf8_lossy(&chapter.data));
            directives += found.directives.len();
            escapes += found.escapes.len();
            errors += found.errors.len();
        }
        assert!(
            directives >= 2 && escapes >= 1 && errors >= 5,
            "{directives} directives, {escapes} escapes, {errors} errors"
        );
    }

    #[test]
    fn the_claim_reference_runs_whole() {
        // Not through the generator: the template's own reference passes.
        let exercise = claim_exercise();
        let report = exercise.run_texts_with_limits(
            &exercise.texts_with(&Default::default()),
            &exercise.scenarios,
            whole_run_limits(),
        );
        assert_eq!(report.failed, 0, "{report:?}");
    }
}
