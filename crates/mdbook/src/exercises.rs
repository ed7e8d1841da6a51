//! What a directive names, loaded and checked as `fencelab check` loads and
//! checks it (`fencelab_core::exercise::load`, then `ExerciseExt::check`),
//! so a book never shows an exercise its author's CI would refuse.
//!
//! A bundled exercise is looked up by id only: it is compiled into fencelab
//! and checked by fencelab's own tests. An exercise file is read (at most
//! `EXERCISE_FILE_BYTES_MAX` bytes), loaded, and checked: its reference
//! must pass every scenario and every named broken variant must be caught.
//!
//! A chapter is untrusted text, and the book may be built on a machine with
//! files of its own (a CI runner's, an author's home). So a path names a
//! file inside the book's root folder, as written and as the file system
//! resolves it (links included), or nothing: an absolute path, or one that
//! leads out of the book, is refused before anything is opened, naming the
//! path and never what is at it.
//!
//! Must never: read a file outside the book's root.

use crate::directive::Target;
use fencelab_core::{EXERCISE_FILE_BYTES_MAX, ExerciseExt};
use std::path::{Path, PathBuf};

/// An exercise a directive may show.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resolved {
    pub id: String,
    /// For an exercise file: its text, which the book's copy of the site
    /// serves (the site's `exercises/ID.toml`).
    pub text: Option<String>,
}

/// Resolves `target`, written in a chapter whose file is in `chapter_dir`
/// (a folder inside `root`); file names in messages are shown relative to
/// the book's `root`.
pub fn resolve(target: &Target, chapter_dir: &Path, root: &Path) -> Result<Resolved, String> {
    match target {
        Target::Bundled(id) => bundled(id),
        Target::File(path) => {
            inside_book(path, chapter_dir, root)?;
            file(&chapter_dir.join(path), root)
        }
    }
}

/// Refuses a `path` written in a chapter in `chapter_dir` that is not a
/// file inside the book's `root`: absolute, climbing out of the book as
/// written, or leading out of it through a symbolic link. A path to
/// nothing inside the book is left to the read, which says so.
fn inside_book(path: &Path, chapter_dir: &Path, root: &Path) -> Result<(), String> {
    use std::path::Component;
    let written = fencelab_cli::files::shown(path);
    let refuse = |why: &str| {
        Err(format!(
            "`{written}` {why}; a directive names an exercise file inside the book (the folder \
             of book.toml), by its path from the chapter, or a bundled exercise by its id"
        ))
    };
    if path.has_root() {
        return refuse("is an absolute path");
    }
    // As written: the chapter's folder from the root, then the path, each
    // `..` taking one folder off; one with none left to take is outside.
    let from_root = chapter_dir.strip_prefix(root).unwrap_or(chapter_dir);
    let mut depth: usize = 0;
    for part in from_root.components().chain(path.components()) {
        match part {
            Component::Normal(_) => depth += 1,
            Component::CurDir => {}
            Component::ParentDir if depth > 0 => depth -= 1,
            Component::ParentDir | Component::RootDir | Component::Prefix(_) => {
                return refuse("is outside the book");
            }
        }
    }
    // As the file system resolves it: a link inside the book may lead out.
    let Ok(file) = std::fs::canonicalize(chapter_dir.join(path)) else {
        return Ok(());
    };
    let book = std::fs::canonicalize(root)
        .map_err(|e| format!("{}: cannot read the book's folder: {e}", root.display()))?;
    if !file.starts_with(&book) {
        return refuse("leads outside the book through a symbolic link");
    }
    Ok(())
}

fn bundled(id: &str) -> Result<Resolved, String> {
    let catalog = fencelab_core::bundled::catalog()
        .map_err(|e| format!("the bundled exercises do not load (a bug in fencelab): {e}"))?;
    if catalog.iter().any(|exercise| exercise.id == id) {
        return Ok(Resolved {
            id: id.to_string(),
            text: None,
        });
    }
    let ids: Vec<String> = catalog.iter().map(|e| format!("`{}`", e.id)).collect();
    Err(format!(
        "`{id}` is not a bundled exercise (they are {}); an exercise of your own is named by its file's path, ending in .toml",
        ids.join(", ")
    ))
}

fn file(path: &Path, root: &Path) -> Result<Resolved, String> {
    let shown = shown(path, root);
    // The reader's sentence names the path as the book names it, not as
    // given to the reader (absolute).
    let text = fencelab_cli::files::read_as(path, &shown, EXERCISE_FILE_BYTES_MAX)
        .map_err(|e| e.sentence)?;
    let exercise = fencelab_core::exercise::load(&shown, &text).map_err(|e| e.to_string())?;
    if fencelab_core::bundled::catalog().is_ok_and(|c| c.iter().any(|b| b.id == exercise.id)) {
        return Err(format!(
            "{shown}: its id `{}` is a bundled exercise's; give it an id of its own",
            exercise.id
        ));
    }
    let check = exercise.check();
    if !check.ok() {
        return Err(format!(
            "{shown}: the exercise does not pass its check (as `fencelab check {shown}` says):\n{}",
            fencelab_cli::render::check(&check).trim_end()
        ));
    }
    Ok(Resolved {
        id: exercise.id,
        text: Some(text),
    })
}

/// `path` as messages show it: relative to the book when it is inside, with
/// `dir/..` taken away (`src/../exercises/x.toml` is `exercises/x.toml`).
fn shown(path: &Path, root: &Path) -> String {
    use std::path::Component;
    let mut plain = PathBuf::new();
    for part in path.components() {
        match part {
            Component::ParentDir if plain.file_name().is_some() => {
                plain.pop();
            }
            Component::CurDir => {}
            other => plain.push(other),
        }
    }
    let root_plain: PathBuf = root
        .components()
        .filter(|c| *c != Component::CurDir)
        .collect();
    plain
        .strip_prefix(&root_plain)
        .unwrap_or(&plain)
        .display()
        .to_string()
}
