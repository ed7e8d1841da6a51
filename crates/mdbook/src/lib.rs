//! mdbook-fencelab: fencelab exercises in an mdBook.
//!
//! Background: a course often lives in a book built by mdBook, and an
//! exercise embedded in it should need no JavaScript from the author, and
//! never be a broken one. mdBook lets a program rewrite the book between
//! loading and rendering: a *preprocessor*, named `mdbook-NAME` and enabled
//! by `[preprocessor.NAME]` in book.toml (mdbook-quiz is one).
//!
//! The idea: `{{#fencelab EXERCISE-ID}}` or `{{#fencelab path/to/file.toml}}`
//! in a chapter becomes a `<fencelab-exercise>` element (web/embed.js),
//! after the exercise is loaded and checked as `fencelab check` would, so a
//! broken one fails the build with its file and line. The site the frames
//! come from is copied into the book (`site-dir`) or named by address
//! (`site`); see [`config`]. Each page also loads `book.js`, which keeps
//! every exercise's result in localStorage (`mdbook-fencelab:ID`) and hands
//! it to the book's `hook`, if it names one.
//!
//! How to use it: docs/EMBEDDING.md, "An mdBook from nothing".
//!
//! Debugging a failure: every message starts with the chapter's file and
//! the directive's line (`src/week-2.md:14:`), then what is wrong; an
//! exercise file's own errors follow with its file, line and column.
//!
//! Limitations: the preprocessor writes into the book's source folder
//! (`src/fencelab/`, as mdbook-quiz writes `src/mdbook-quiz/`: mdBook gives
//! preprocessors no other way to add files); a hosted site must already
//! serve the book's own exercise files (`cargo xtask dist --exercises`).
//! Only the HTML renderer is supported.

pub mod config;
pub mod directive;
pub mod exercises;
pub mod site;

use config::{Config, FOLDER, Site};
use directive::{Directive, Target};
use exercises::Resolved;
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// Whether the preprocessor works for mdBook's `renderer`.
pub fn supports(renderer: &str) -> bool {
    renderer == "html"
}

/// One reason the book cannot be built, with where it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BookError {
    /// What mdBook sent could not be read (not the `[context, book]` JSON).
    Input(String),
    /// book.toml's `[preprocessor.fencelab]` cannot be used.
    Config(String),
    /// A directive that cannot be used, or an exercise it names that does
    /// not load or pass its check: the chapter's file and the line.
    Chapter {
        chapter: String,
        line: usize,
        message: String,
    },
    /// The book's copy of the site could not be written.
    Site(String),
}

impl fmt::Display for BookError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BookError::Input(message) => write!(f, "the input from mdBook: {message}"),
            BookError::Config(message) | BookError::Site(message) => f.write_str(message),
            BookError::Chapter {
                chapter,
                line,
                message,
            } => write!(f, "{chapter}:{line}: {message}"),
        }
    }
}

impl std::error::Error for BookError {}

/// A chapter as the walk over mdBook's book finds it.
struct Chapter {
    /// Its file, relative to the book's source folder.
    source: PathBuf,
    /// Its file as messages name it (`src/week-2.md`).
    shown: String,
    /// The folder of its file, which its paths are relative to.
    dir: PathBuf,
    directives: Vec<Directive>,
    escapes: Vec<usize>,
}

/// What the book's directives came to: each chapter's exercise ids, in its
/// directives' order; the exercise files of the book's own, by the name the
/// site serves them under (`ID.toml`); and every problem.
#[derive(Default)]
struct Resolution {
    ids: Vec<Vec<String>>,
    own_files: Vec<(String, String)>,
    errors: Vec<BookError>,
}

/// Reads `[context, book]` as mdBook writes it and returns the book,
/// rewritten, as mdBook reads it back; or every problem found, in the
/// book's order. Nothing is written unless every directive is usable.
pub fn preprocess(input: &str) -> Result<String, Vec<BookError>> {
    let (context, mut book): (Value, Value) =
        serde_json::from_str(input).map_err(|e| vec![BookError::Input(e.to_string())])?;
    let root = PathBuf::from(context["root"].as_str().unwrap_or("."));
    let config = Config::from_context(&context, &root).map_err(|e| vec![BookError::Config(e)])?;
    let src_name = context["config"]["book"]["src"].as_str().unwrap_or("src");
    source_inside(&root, src_name).map_err(|e| vec![BookError::Config(e)])?;

    let (chapters, mut errors) = chapters(&mut book, &root, src_name);
    let resolution = resolve_all(&chapters, &root);
    errors.extend(resolution.errors);
    if !errors.is_empty() {
        in_book_order(&mut errors, &chapters);
        return Err(errors);
    }

    let folder = root.join(src_name).join(FOLDER);
    // A hosted site serves its own copy of the book's exercise files (they
    // were checked all the same); only a copied site gets them here.
    let written = match &config.site {
        Site::Copied(dir) => site::write(&folder, Some(dir), &resolution.own_files),
        Site::Hosted(_) => site::write(&folder, None, &[]),
    };
    written.map_err(|e| vec![BookError::Site(e)])?;

    let mut index = 0;
    for_each_chapter(&mut book, &mut |chapter| {
        let Some(content) = chapter.get("content").and_then(Value::as_str) else {
            return;
        };
        if chapter.get("source_path").and_then(Value::as_str).is_none() {
            return;
        }
        // The same chapters, in the same order, as the first walk found.
        let (Some(found), Some(ids)) = (chapters.get(index), resolution.ids.get(index)) else {
            return;
        };
        index += 1;
        let rewritten = rewrite(content, found, ids, &config);
        chapter.insert("content".into(), Value::String(rewritten));
    });
    serde_json::to_string(&book).map_err(|e| vec![BookError::Input(e.to_string())])
}

/// Refuses a book whose source folder (`[book] src`) is not inside its
/// root, as written or through a link: the preprocessor writes into it.
fn source_inside(root: &Path, src: &str) -> Result<(), String> {
    use std::path::Component;
    let refuse = |why: &str| {
        Err(format!(
            "book.toml: [book] src = {:?} {why}; mdbook-fencelab writes into the book's source \
             folder, and never outside the book",
            fencelab_cli::shown(src)
        ))
    };
    let plain = Path::new(src)
        .components()
        .all(|part| matches!(part, Component::Normal(_) | Component::CurDir));
    if !plain {
        return refuse("is not a folder inside the book's");
    }
    let resolved = (
        std::fs::canonicalize(root),
        std::fs::canonicalize(root.join(src)),
    );
    match resolved {
        (Ok(root), Ok(src)) if !src.starts_with(&root) => {
            refuse("leads outside the book through a symbolic link")
        }
        _ => Ok(()),
    }
}

/// Every chapter with a file and a text, with its directives, and the
/// directives that cannot be used.
fn chapters(book: &mut Value, root: &Path, src_name: &str) -> (Vec<Chapter>, Vec<BookError>) {
    let mut errors = Vec::new();
    let mut chapters = Vec::new();
    for_each_chapter(book, &mut |chapter| {
        let (Some(source), Some(content)) = (
            chapter.get("source_path").and_then(Value::as_str),
            chapter.get("content").and_then(Value::as_str),
        ) else {
            return;
        };
        let found = directive::find(content);
        let shown = Path::new(src_name).join(source).display().to_string();
        errors.extend(found.errors.into_iter().map(|e| BookError::Chapter {
            chapter: shown.clone(),
            line: e.line,
            message: e.message,
        }));
        let file = root.join(src_name).join(source);
        chapters.push(Chapter {
            source: PathBuf::from(source),
            shown,
            dir: file.parent().map(Path::to_path_buf).unwrap_or_default(),
            directives: found.directives,
            escapes: found.escapes,
        });
    });
    (chapters, errors)
}

/// Resolves every directive, each exercise once however many chapters
/// name it, and keeps one file per id.
fn resolve_all(chapters: &[Chapter], root: &Path) -> Resolution {
    let mut resolved: BTreeMap<(PathBuf, String), Result<Resolved, String>> = BTreeMap::new();
    // Each id of the book's own exercise files, with the file that has it.
    let mut files_by_id: BTreeMap<String, PathBuf> = BTreeMap::new();
    let mut resolution = Resolution::default();
    for chapter in chapters {
        let mut ids = Vec::new();
        for d in &chapter.directives {
            let key = (chapter.dir.clone(), format!("{:?}", d.target));
            let outcome = resolved
                .entry(key)
                .or_insert_with(|| exercises::resolve(&d.target, &chapter.dir, root))
                .clone();
            let problem = match (outcome, &d.target) {
                (Ok(exercise), Target::File(path)) => {
                    let problem = admit(
                        &exercise,
                        &chapter.dir.join(path),
                        &mut files_by_id,
                        &mut resolution.own_files,
                    );
                    ids.push(exercise.id);
                    problem
                }
                (Ok(exercise), Target::Bundled(_)) => {
                    ids.push(exercise.id);
                    None
                }
                (Err(message), _) => Some(message),
            };
            if let Some(message) = problem {
                resolution.errors.push(BookError::Chapter {
                    chapter: chapter.shown.clone(),
                    line: d.line,
                    message,
                });
            }
        }
        resolution.ids.push(ids);
    }
    resolution
}

/// Takes an exercise file's text for the site, unless another file of the
/// book has its id; then says so.
fn admit(
    exercise: &Resolved,
    file: &Path,
    files_by_id: &mut BTreeMap<String, PathBuf>,
    own_files: &mut Vec<(String, String)>,
) -> Option<String> {
    let text = exercise.text.as_ref()?;
    let known = files_by_id
        .entry(exercise.id.clone())
        .or_insert_with(|| file.to_path_buf());
    let same =
        *known == file || std::fs::canonicalize(&*known).ok() == std::fs::canonicalize(file).ok();
    if !same {
        return Some(format!(
            "the exercise file's id `{}` is also another file's ({}); each exercise needs an id of its own",
            exercise.id,
            known.display()
        ));
    }
    let name = format!("{}.toml", exercise.id);
    if !own_files.iter().any(|(n, _)| *n == name) {
        own_files.push((name, text.clone()));
    }
    None
}

/// Sorts `errors` by chapter, in the book's order, then by line, whichever
/// step found each.
fn in_book_order(errors: &mut [BookError], chapters: &[Chapter]) {
    errors.sort_by_key(|error| match error {
        BookError::Chapter { chapter, line, .. } => (
            chapters
                .iter()
                .position(|c| c.shown == *chapter)
                .unwrap_or(usize::MAX),
            *line,
        ),
        _ => (usize::MAX, 0),
    });
}

/// `text` as an HTML attribute's value between double quotes.
fn attribute(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Calls `visit` on every chapter of mdBook's book, in order, nested ones
/// after their parent. The walk reads the shape of both mdBook 0.4
/// (`sections`) and 0.5 (`items`): any `{"Chapter": {...}}` anywhere.
fn for_each_chapter(
    value: &mut Value,
    visit: &mut impl FnMut(&mut serde_json::Map<String, Value>),
) {
    match value {
        Value::Object(map) => {
            if let Some(Value::Object(chapter)) = map.get_mut("Chapter") {
                visit(chapter);
            }
            for child in map.values_mut() {
                for_each_chapter(child, visit);
            }
        }
        Value::Array(items) => {
            for item in items {
                for_each_chapter(item, visit);
            }
        }
        _ => {}
    }
}

/// The chapter's text with each directive replaced by its element, the
/// scripts once before the first, and each escape's backslash dropped.
fn rewrite(content: &str, chapter: &Chapter, ids: &[String], config: &Config) -> String {
    // The chapter's page is at its source's place in the book, so the
    // folder is as many `../` away as the source is deep.
    let depth = chapter.source.components().count().saturating_sub(1);
    let to_root = "../".repeat(depth);
    let folder = format!("{to_root}{FOLDER}/");
    let site = match &config.site {
        Site::Copied(_) => folder.clone(),
        Site::Hosted(address) => address.clone(),
    };
    let hook = config
        .hook
        .as_ref()
        .map(|name| format!(" data-hook=\"{name}\""))
        .unwrap_or_default();
    let mut cuts: Vec<(std::ops::Range<usize>, String)> = chapter
        .escapes
        .iter()
        .map(|&at| (at..at + 1, String::new()))
        .collect();
    for (i, (d, id)) in chapter.directives.iter().zip(ids).enumerate() {
        let scripts = if i == 0 {
            format!(
                "<script type=\"module\" src=\"{site}embed.js\"></script>\n<script type=\"module\" src=\"{folder}book.js\"></script>\n"
            )
        } else {
            String::new()
        };
        // The addresses and the hook were checked to hold no character an
        // attribute would have to escape; an exercise file's id is its own.
        let element = format!(
            "\n\n{scripts}<fencelab-exercise exercise=\"{}\" site=\"{site}\"{hook}></fencelab-exercise>\n\n",
            attribute(id)
        );
        cuts.push((d.span.clone(), element));
    }
    cuts.sort_by_key(|(span, _)| span.start);
    let mut out = String::with_capacity(content.len() + cuts.len() * 200);
    let mut at = 0;
    for (span, replacement) in cuts {
        out.push_str(&content[at..span.start]);
        out.push_str(&replacement);
        at = span.end;
    }
    out.push_str(&content[at..]);
    out
}
