//! The folder the preprocessor writes into the book's source (`src/fencelab/`
//! by default; mdBook copies it into the built book): the site's copy when
//! the book carries one, the book's own exercise files with the site index
//! that lists them, and the results script (`book.js`).
//!
//! A file is written only when its content differs, so `mdbook serve`,
//! which rebuilds when the source changes, is not set off again by the
//! preprocessor's own writes. A folder that is not the preprocessor's (no
//! marker file in it, and not empty) is never written into.

use fencelab_model::site::{EXERCISES_DIR, INDEX_PATH, SiteIndex};
use std::path::{Path, PathBuf};

/// The results script the chapters load (localStorage and the hook).
const BOOK_JS: &str = include_str!("../assets/book.js");
/// The file that marks the folder as the preprocessor's own.
const MARKER: &str = ".mdbook-fencelab";
const MARKER_TEXT: &str =
    "Written by mdbook-fencelab on every build; do not edit (add this folder to .gitignore).\n";
/// The deepest folder of a site copied, a guard against a link cycle.
const SITE_DEPTH_MAX: usize = 8;

/// Writes the folder `dir`: `site` copied when given, then `exercises`
/// (file name, text) beside the site's own, with the index naming both.
pub fn write(
    dir: &Path,
    site: Option<&Path>,
    exercises: &[(String, String)],
) -> Result<(), String> {
    claim(dir)?;
    if let Some(site) = site {
        for wanted in ["index.html", "embed.js"] {
            if !site.join(wanted).is_file() {
                return Err(format!(
                    "{}: is not a built fencelab site (it has no {wanted}); build one with `cargo xtask dist --out DIR`",
                    site.display()
                ));
            }
        }
        copy_tree(site, dir, 0)?;
    }
    let mut names = match std::fs::read_to_string(dir.join(INDEX_PATH)) {
        Ok(text) => {
            SiteIndex::parse(&text)
                .map_err(|e| format!("{}: {e}", dir.display()))?
                .exercises
        }
        Err(_) => Vec::new(),
    };
    for (name, text) in exercises {
        write_if_changed(&dir.join(EXERCISES_DIR).join(name), text.as_bytes())?;
        if !names.contains(name) {
            names.push(name.clone());
        }
    }
    if site.is_some() || !exercises.is_empty() {
        let index = SiteIndex::new(names).map_err(|e| e.to_string())?;
        write_if_changed(&dir.join(INDEX_PATH), index.to_toml().as_bytes())?;
    }
    write_if_changed(&dir.join("book.js"), BOOK_JS.as_bytes())
}

/// Makes `dir` the preprocessor's, refusing one that holds someone else's files.
fn claim(dir: &Path) -> Result<(), String> {
    let marker = dir.join(MARKER);
    if marker.is_file() {
        return Ok(());
    }
    let foreign = std::fs::read_dir(dir).is_ok_and(|mut entries| entries.next().is_some());
    if foreign {
        return Err(format!(
            "{}: exists and is not mdbook-fencelab's (it has no {MARKER}); move it away, the preprocessor writes this folder on every build",
            dir.display()
        ));
    }
    write_if_changed(&marker, MARKER_TEXT.as_bytes())
}

fn copy_tree(from: &Path, to: &Path, depth: usize) -> Result<(), String> {
    if depth > SITE_DEPTH_MAX {
        return Err(format!(
            "{}: the site's folders are nested more than {SITE_DEPTH_MAX} deep",
            from.display()
        ));
    }
    let entries =
        std::fs::read_dir(from).map_err(|e| format!("{}: cannot read: {e}", from.display()))?;
    for entry in entries {
        let entry = entry.map_err(|e| format!("{}: cannot read: {e}", from.display()))?;
        let path = entry.path();
        let target: PathBuf = to.join(entry.file_name());
        if path.is_dir() {
            copy_tree(&path, &target, depth + 1)?;
        } else {
            let bytes = std::fs::read(&path)
                .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
            write_if_changed(&target, &bytes)?;
        }
    }
    Ok(())
}

fn write_if_changed(path: &Path, bytes: &[u8]) -> Result<(), String> {
    if std::fs::read(path).is_ok_and(|old| old == bytes) {
        return Ok(());
    }
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| format!("{}: cannot create: {e}", parent.display()))?;
    }
    std::fs::write(path, bytes).map_err(|e| format!("{}: cannot write: {e}", path.display()))
}
