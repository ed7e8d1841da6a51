//! The folder the preprocessor writes into the book's source (`src/fencelab/`
//! by default; mdBook copies it into the built book): the site's copy when
//! the book carries one, the book's own exercise files with the site index
//! that lists them, and the results script (`book.js`). When the site has
//! brotli and gzip copies (`cargo xtask dist` wrote them), each file the
//! preprocessor writes of its own gets fresh ones (fencelab-precompress, the
//! helper `cargo xtask site-pages` runs too), and otherwise none.
//!
//! A file is written only when its content differs, so `mdbook serve`,
//! which rebuilds when the source changes, is not set off again by the
//! preprocessor's own writes. A folder that is not the preprocessor's (no
//! marker file in it, and not empty) is never written into.
//!
//! mdBook copies the folder into the published book, following links; a
//! link in it (committed by mistake or by someone else: a
//! `exercises/ID.toml` pointing at a file of the build machine) would be
//! written through, or publish what it points to. So a link in the folder,
//! or in a site copied into it, is refused by its path, and nothing is
//! written.
//!
//! Must never: write through a symbolic link, copy one, or write outside
//! the folder.

use fencelab_model::site::{EXERCISES_DIR, INDEX_PATH, SiteIndex};
use std::path::{Path, PathBuf};

/// The results script the chapters load (localStorage and the hook).
const BOOK_JS: &str = include_str!("../assets/book.js");
/// The file that marks the folder as the preprocessor's own.
const MARKER: &str = ".mdbook-fencelab";
const MARKER_TEXT: &str =
    "Written by mdbook-fencelab on every build; do not edit (add this folder to .gitignore).\n";
/// The deepest folder of a site copied, or of the folder looked through for
/// links: a built site's is two deep.
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
        copy_tree(dir, site, dir, 0)?;
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
        write_ours(dir, &dir.join(EXERCISES_DIR).join(name), text.as_bytes())?;
        if !names.contains(name) {
            names.push(name.clone());
        }
    }
    if site.is_some() || !exercises.is_empty() {
        let index = SiteIndex::new(names).map_err(|e| e.to_string())?;
        write_ours(dir, &dir.join(INDEX_PATH), index.to_toml().as_bytes())?;
    }
    write_ours(dir, &dir.join("book.js"), BOOK_JS.as_bytes())
}

/// Writes a file of the preprocessor's own (not the site's) as
/// [`write_if_changed`] does, and makes its brotli and gzip copies true to
/// it: fresh when the site copied in has copies, else none. The site's
/// copies of its own index would otherwise go on listing none of the book's
/// exercises to every host that sends them (`brotli_static`).
fn write_ours(dir: &Path, path: &Path, bytes: &[u8]) -> Result<(), String> {
    write_if_changed(dir, path, bytes)?;
    fencelab_precompress::refresh(dir, path)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// Makes `dir` the preprocessor's, refusing one that holds someone else's
/// files, or any link.
fn claim(dir: &Path) -> Result<(), String> {
    if is_link(dir) {
        return Err(link_refused(dir));
    }
    let marker = dir.join(MARKER);
    if marker.is_file() {
        return only_files_and_folders(dir, 0);
    }
    let foreign = std::fs::read_dir(dir).is_ok_and(|mut entries| entries.next().is_some());
    if foreign {
        return Err(format!(
            "{}: exists and is not mdbook-fencelab's (it has no {MARKER}); move it away, the preprocessor writes this folder on every build",
            dir.display()
        ));
    }
    write_if_changed(dir, &marker, MARKER_TEXT.as_bytes())
}

/// Whether `path` is a symbolic link itself (not what it points to).
fn is_link(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

fn link_refused(path: &Path) -> String {
    format!(
        "{}: is a symbolic link; mdbook-fencelab writes its folder's files itself and never \
         through a link, and mdBook would publish what it points to: remove it",
        fencelab_cli::files::shown(path)
    )
}

/// Refuses the first link, or anything but a file or a folder, in the
/// preprocessor's folder `dir`.
fn only_files_and_folders(dir: &Path, depth: usize) -> Result<(), String> {
    if depth > SITE_DEPTH_MAX {
        return Err(format!(
            "{}: its folders are nested more than {SITE_DEPTH_MAX} deep",
            dir.display()
        ));
    }
    let cannot = |e: std::io::Error| format!("{}: cannot read: {e}", dir.display());
    for entry in std::fs::read_dir(dir).map_err(cannot)? {
        let entry = entry.map_err(cannot)?;
        let kind = entry.file_type().map_err(cannot)?;
        if kind.is_symlink() {
            return Err(link_refused(&entry.path()));
        }
        if kind.is_dir() {
            only_files_and_folders(&entry.path(), depth + 1)?;
        } else if !kind.is_file() {
            return Err(format!(
                "{}: is neither a file nor a folder; remove it",
                fencelab_cli::files::shown(&entry.path())
            ));
        }
    }
    Ok(())
}

/// Copies the site's folder `from` into `to`, inside the preprocessor's
/// folder `dir`. Only files and folders: a link would carry whatever it
/// points to on the build machine into the published book, and reading a
/// FIFO or a device could wait or read for ever.
fn copy_tree(dir: &Path, from: &Path, to: &Path, depth: usize) -> Result<(), String> {
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
        let kind = entry
            .file_type()
            .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
        if kind.is_symlink() {
            return Err(format!(
                "{}: is a symbolic link; a site copied into a book holds only its own files \
                 and folders, since mdBook would publish whatever a link points to",
                fencelab_cli::files::shown(&path)
            ));
        } else if kind.is_dir() {
            copy_tree(dir, &path, &target, depth + 1)?;
        } else if kind.is_file() {
            let bytes = std::fs::read(&path)
                .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
            write_if_changed(dir, &target, &bytes)?;
        } else {
            return Err(format!(
                "{}: is neither a file nor a folder; a built site has only those",
                fencelab_cli::files::shown(&path)
            ));
        }
    }
    Ok(())
}

/// Writes `bytes` at `path`, inside the preprocessor's folder `dir`, unless
/// it holds them already; refuses when the path, or a folder on the way to
/// it from `dir`, is a link.
fn write_if_changed(dir: &Path, path: &Path, bytes: &[u8]) -> Result<(), String> {
    if let Some(link) = path
        .ancestors()
        .take_while(|on_the_way| on_the_way.starts_with(dir))
        .find(|on_the_way| is_link(on_the_way))
    {
        return Err(link_refused(link));
    }
    if std::fs::read(path).is_ok_and(|old| old == bytes) {
        return Ok(());
    }
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| format!("{}: cannot create: {e}", parent.display()))?;
    }
    std::fs::write(path, bytes).map_err(|e| format!("{}: cannot write: {e}", path.display()))
}
