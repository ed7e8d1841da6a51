//! The first inputs of each target's corpus, from the project's own data:
//! the bundled exercise files, their procedure texts (starts, references,
//! broken variants), share links and saved entries made of them, and the
//! inputs of the hostile corpus's cases under tests/hostile/, each for the
//! target that reads its kind.

use fencelab_model::exercise::Exercise;
use std::collections::BTreeMap;
use std::path::Path;

/// A hostile file larger than this is cut: the decoders refuse far smaller
/// inputs, and libFuzzer mutates small ones best.
const HOSTILE_BYTES_MAX: usize = 64 * 1024;
/// The cut for the targets whose every execution reads the whole input
/// through a parser or the engine: 64 KiB seeds held the last campaign's
/// procedure_parser to 0.73 M executions, exercise_loader to 0.29 M and
/// whole_run to 0.13 M. Their large inputs stay covered by the hostile
/// corpus itself, which runs them whole in `cargo test`.
const SLOW_TARGET_HOSTILE_BYTES_MAX: usize = 4 * 1024;
/// The targets cut at [`SLOW_TARGET_HOSTILE_BYTES_MAX`].
const SLOW_TARGETS: [&str; 3] = ["procedure_parser", "exercise_loader", "whole_run"];

/// One seed: the target's name, a file name and the bytes.
pub struct Seed {
    pub target: &'static str,
    pub name: String,
    pub data: Vec<u8>,
}

/// Every seed, from the bundled exercises and from `root`/tests/hostile
/// (read recursively; skipped when missing).
pub fn seeds(root: &Path) -> Vec<Seed> {
    let mut seeds = Vec::new();
    for (file, text) in fencelab_model::bundled::FILES {
        exercise_seeds(&mut seeds, file, text);
    }
    host_message_seeds(&mut seeds);
    site_index_seeds(&mut seeds);
    take_home_script_seeds(&mut seeds);
    book_seeds(&mut seeds, root);
    hostile_seeds(&mut seeds, root);
    seeds
}

/// A book's chapters: the test books' (tests/book, skipped when missing),
/// and one of each way a directive can be written or miswritten.
fn book_seeds(seeds: &mut Vec<Seed>, root: &Path) {
    let mut add = |name: String, data: Vec<u8>| {
        seeds.push(Seed {
            target: "book_directive",
            name,
            data,
        })
    };
    let dir = root.join("tests/book");
    let mut chapters = Vec::new();
    collect_files(&dir, &mut chapters);
    chapters.sort();
    for path in chapters
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
    {
        if let Ok(data) = std::fs::read(path) {
            let name = path
                .strip_prefix(&dir)
                .unwrap_or(path)
                .to_string_lossy()
                .replace(['/', '\\'], "--");
            add(format!("book--{name}"), data);
        }
    }
    add(
        "written-every-way.md".into(),
        b"# A chapter\n\n{{#fencelab claim-compare-and-set}}\n\
          text {{#fencelab ../exercises/mine.toml}} more\n\
          \\{{#fencelab escaped}}\n{{#fencelab}}\n{{#fencelab a b}}\n\
          {{#fencelab open\n{{#fencelabx y}}\n{{#fencelab <b>}}\n"
            .to_vec(),
    );
}

/// One bundled exercise's seeds: the file, its procedure texts, and a
/// share link and a saved entry made of its starting texts.
fn exercise_seeds(seeds: &mut Vec<Seed>, file: &str, text: &str) {
    let mut add =
        |target: &'static str, name: String, data: Vec<u8>| seeds.push(Seed { target, name, data });
    let stem = file.trim_end_matches(".toml");
    add(
        "exercise_loader",
        format!("{stem}.toml"),
        text.as_bytes().into(),
    );
    let Ok(exercise) = Exercise::from_toml(file, text) else {
        return;
    };
    let mut texts: Vec<(String, String)> = Vec::new();
    for spec in &exercise.procedures {
        texts.push((format!("{}-start", spec.name), spec.start.clone()));
        texts.push((format!("{}-reference", spec.name), spec.reference.clone()));
    }
    for (i, variant) in exercise.variants.iter().enumerate() {
        for (procedure, text) in &variant.procedures {
            texts.push((format!("{procedure}-mutant-{i}"), text.clone()));
        }
    }
    for (name, text) in &texts {
        add(
            "procedure_parser",
            format!("{stem}-{name}.sql"),
            text.as_bytes().into(),
        );
        // The generator reads any bytes; a text gives it varied ones.
        add(
            "whole_run",
            format!("{stem}-{name}"),
            text.as_bytes().into(),
        );
    }
    let edits: BTreeMap<String, String> = exercise
        .procedures
        .iter()
        .filter(|spec| spec.editable)
        .map(|spec| (spec.name.clone(), spec.start.clone()))
        .collect();
    // Through JSON, as the page writes them: fields added later keep
    // their defaults.
    let link = serde_json::json!({
        "format": fencelab_web::share::LINK_FORMAT,
        "exercise": exercise.id,
        "edits": edits,
        "scenario": exercise.scenarios.first().map(|s| s.name.clone()),
    });
    if let Ok(link) = serde_json::from_value::<fencelab_web::share::Link>(link) {
        add(
            "share_link",
            format!("{stem}.link"),
            fencelab_web::share::encode(&link).into_bytes(),
        );
    }
    let saved = serde_json::json!({
        "format": fencelab_web::state::SAVE_FORMAT,
        "edits": edits,
    });
    add(
        "saved_state",
        format!("{stem}.json"),
        saved.to_string().into_bytes(),
    );
}

/// A host page's messages, one of each kind, and the origins a frame's
/// `?parent=` names.
fn host_message_seeds(seeds: &mut Vec<Seed>) {
    let mut add =
        |target: &'static str, name: String, data: Vec<u8>| seeds.push(Seed { target, name, data });
    for (name, message) in [
        ("check", r#"{"fencelab":1,"id":1,"type":"check"}"#),
        ("reset", r#"{"fencelab":1,"id":"r","type":"reset"}"#),
        (
            "show-scenario",
            r#"{"fencelab":1,"id":2,"type":"show-scenario","scenario":"one winner"}"#,
        ),
        (
            "set-procedures",
            r#"{"fencelab":1,"id":3,"type":"set-procedures","procedures":{"claim":"SELECT 1;"}}"#,
        ),
        ("origin", "https://course.example:8443"),
    ] {
        add(
            "host_message",
            format!("{name}.json"),
            message.as_bytes().into(),
        );
    }
}

/// Site indexes: as `fencelab index` writes them, the empty one a site
/// starts with, and forms only a TOML parser reads.
fn site_index_seeds(seeds: &mut Vec<Seed>) {
    use fencelab_model::site::SiteIndex;
    let written = |files: &[&str]| {
        SiteIndex::new(files.iter().map(|f| f.to_string()).collect())
            .map(|index| index.to_toml())
            .unwrap_or_default()
    };
    for (name, text) in [
        ("empty.toml", written(&[])),
        ("two.toml", written(&["a.toml", "my_course-2.toml"])),
        ("start.toml", "format = 1\nexercises = []\n".to_string()),
        (
            "inline.toml",
            "format = 1 # one\nexercises = [\"a.toml\", \"b.toml\"]\r\n".to_string(),
        ),
    ] {
        seeds.push(Seed {
            target: "site_index",
            name: name.to_string(),
            data: text.into_bytes(),
        });
    }
}

/// The texts of each bundled exercise, and the spellings of an encoding
/// declaration and of a literal's end that a script writer must hold.
fn take_home_script_seeds(seeds: &mut Vec<Seed>) {
    for exercise in fencelab_core::bundled::exercises().unwrap_or_default() {
        seeds.push(Seed {
            target: "take_home_script",
            name: format!("{}.bin", exercise.id),
            data: crate::script::seed_of(&exercise),
        });
    }
    for (name, text) in [
        (
            "cookie-emacs",
            "\u{1}-*- coding:unicode_escape -*-\"+__import__('os')\\n",
        ),
        (
            "cookie-vim",
            "\u{2}vim: set fileencoding=latin-1 :\u{a0}caf\u{e9}",
        ),
        ("cookie-bom", "\u{feff}# coding=utf-16\r\n\"\"\"'''"),
        (
            "separators",
            "\u{2028}\u{2029}\u{85}\u{c}\u{b}\u{1b}[31m\u{202e}",
        ),
    ] {
        seeds.push(Seed {
            target: "take_home_script",
            name: format!("{name}.bin"),
            data: text.repeat(4).into_bytes(),
        });
    }
}

/// The inputs of the hostile corpus's cases under `root`/tests/hostile,
/// each for the targets that read its kind.
fn hostile_seeds(seeds: &mut Vec<Seed>, root: &Path) {
    let mut add =
        |target: &'static str, name: String, data: Vec<u8>| seeds.push(Seed { target, name, data });
    let dir = root.join("tests/hostile");
    let mut hostile = Vec::new();
    collect_files(&dir, &mut hostile);
    hostile.sort();
    for path in hostile {
        let Some((kind, input)) = hostile_case(&path) else {
            continue;
        };
        let targets: &[&'static str] = match kind.as_str() {
            "procedure" => &["procedure_parser", "whole_run"],
            // Exercise files, however the case runs them.
            "exercise" | "mutate" | "check" | "terminal" => &["exercise_loader"],
            "link" => &["share_link"],
            "saved" => &["saved_state"],
            // A scenario file is part of an exercise file.
            "scenario" => &["exercise_loader"],
            // What a writer sends a FIFO: read by the command line alone.
            "file" => &[],
            _ => &[
                "procedure_parser",
                "exercise_loader",
                "share_link",
                "saved_state",
            ],
        };
        let name = path
            .strip_prefix(&dir)
            .unwrap_or(&path)
            .to_string_lossy()
            .replace(['/', '\\'], "--");
        for target in targets {
            let mut data = input.clone();
            if SLOW_TARGETS.contains(target) {
                data.truncate(SLOW_TARGET_HOSTILE_BYTES_MAX);
            }
            add(target, format!("hostile--{name}"), data);
        }
    }
}

/// A case of the hostile corpus (tests/hostile/cases/README.md): a TOML
/// file with a `kind` and an `input`, repeated `repeat` times between its
/// `head` and `tail`. Its input, cut at [`HOSTILE_BYTES_MAX`]; `None` for
/// any other file.
fn hostile_case(path: &Path) -> Option<(String, Vec<u8>)> {
    if path.extension()? != "toml" {
        return None;
    }
    let text = std::fs::read_to_string(path).ok()?;
    let case: toml::Table = toml::from_str(&text).ok()?;
    let kind = case.get("kind")?.as_str()?.to_string();
    let input = case.get("input")?.as_str()?;
    let repeat = case
        .get("repeat")
        .and_then(|r| r.as_integer())
        .unwrap_or(1)
        .clamp(1, 100_000) as usize;
    let part = |field: &str| case.get(field).and_then(|v| v.as_str()).unwrap_or("");
    let mut data = part("head").as_bytes().to_vec();
    for _ in 0..repeat {
        if data.len() >= HOSTILE_BYTES_MAX {
            break;
        }
        data.extend_from_slice(input.as_bytes());
    }
    data.extend_from_slice(part("tail").as_bytes());
    data.truncate(HOSTILE_BYTES_MAX);
    Some((kind, data))
}

fn collect_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        if path.is_dir() {
            collect_files(&path, out);
        } else if path.is_file() {
            out.push(path);
        }
    }
}
