//! `fencelab scorm SITE --version 1.2|2004 --out FILE.zip`: a built site and
//! its own exercises as one SCORM package, each exercise a SCO.
//!
//! An LMS runs a package from its own origin, and a SCORM runtime can only
//! be reached from a page of that origin, so the package carries the whole
//! site (as `cargo xtask dist` built it) at its root, with:
//!
//! - `imsmanifest.xml` (`manifest.rs`): one item per exercise of the site's
//!   `exercises/index.toml`, titled with the exercise's title;
//! - `scorm/ID.html` per exercise, the SCO's launch page
//!   (web/scorm/launch.html), and `scorm/bridge.js` (web/scorm/bridge.js),
//!   which finds the runtime and embeds the exercise with the site's
//!   embed.js.
//!
//! Left out: the service worker (an LMS's path is no place for one) and the
//! precompressed `.br`/`.gz` copies (an LMS serves the files as they are).
//! The exercises are loaded here for their ids and titles only: checking
//! them is `fencelab index`'s job, which `cargo xtask dist` runs before
//! writing the index this reads. The archive is written beside `--out` and
//! renamed into place, so a failure leaves no half-written package.

mod manifest;
mod zip;

pub use manifest::Version;

use crate::{BadInput, Ended};
use fencelab_cli::files;
use fencelab_core::EXERCISE_FILE_BYTES_MAX;
use fencelab_model::site::{INDEX_BYTES_MAX, INDEX_PATH, SiteIndex};
use manifest::Sco;
use std::path::{Path, PathBuf};

const LAUNCH_PAGE: &str = include_str!("../../../../web/scorm/launch.html");
const BRIDGE: &str = include_str!("../../../../web/scorm/bridge.js");
/// Where the launch pages and the bridge go inside the package.
const SCORM_DIR: &str = "scorm";
const MANIFEST: &str = "imsmanifest.xml";
/// Files of a built site a package leaves out, by name at the site's root.
const LEFT_OUT: &[&str] = &["sw.js", MANIFEST, SCORM_DIR];
/// Precompressed copies beside the site's files.
const COMPRESSED: &[&str] = &["br", "gz"];
/// Files walked in a site before it is refused as not one: a built site has
/// a few dozen.
const SITE_FILES_MAX: usize = 10_000;

/// What `fencelab scorm` was asked for.
pub struct Request<'a> {
    pub site: &'a Path,
    pub version: Version,
    pub out: &'a Path,
    /// The course's title, as the LMS shows the package.
    pub title: &'a str,
}

/// Writes the package, or says which input is wrong.
pub fn run(request: &Request) -> Result<Ended, BadInput> {
    let site = request.site;
    if !site.join("index.html").is_file() {
        return Err(BadInput(format!(
            "{}: not a built site (it has no index.html); build one with \
             `cargo xtask dist --exercises DIR`",
            files::shown(site)
        )));
    }
    let scos = exercises(site)?;
    let mut zip = zip::Zip::default();
    let mut listed = Vec::new();
    let mut add = |zip: &mut zip::Zip, name: String, bytes: &[u8]| {
        zip.add(&name, bytes).map_err(BadInput)?;
        listed.push(name);
        Ok::<(), BadInput>(())
    };
    let mut site_files = Vec::new();
    walk(site, site, &mut site_files)?;
    site_files.sort();
    let mut archive_files = Vec::new();
    for (name, path) in &site_files {
        let bytes = std::fs::read(path)
            .map_err(|e| BadInput(format!("{}: cannot read: {e}", files::shown(path))))?;
        archive_files.push((name.clone(), bytes));
    }
    add(
        &mut zip,
        format!("{SCORM_DIR}/bridge.js"),
        BRIDGE.as_bytes(),
    )?;
    for sco in &scos {
        let page = launch_page(sco, request.version);
        add(&mut zip, sco.href.clone(), page.as_bytes())?;
    }
    for (name, bytes) in &archive_files {
        add(&mut zip, name.clone(), bytes)?;
    }
    // The launch pages are listed by their own resources.
    listed.retain(|name| !scos.iter().any(|sco| &sco.href == name));
    let xml = manifest::write(request.version, request.title, &scos, &listed);
    zip.add(MANIFEST, xml.as_bytes()).map_err(BadInput)?;
    let bytes = zip.finish().map_err(BadInput)?;
    write_atomically(request.out, &bytes)?;
    crate::emit(&format!(
        "wrote {}: a SCORM {} package of {} ({}), {} files, {} bytes",
        files::shown(request.out),
        request.version.name(),
        match scos.len() {
            1 => "1 exercise".to_string(),
            n => format!("{n} exercises"),
        },
        scos.iter()
            .map(|sco| sco.title.as_str())
            .collect::<Vec<_>>()
            .join("; "),
        listed.len() + scos.len() + 1,
        bytes.len()
    ));
    crate::emit("\n");
    Ok(Ended::Passed)
}

/// The site's own exercises, in its index's order, as SCOs.
fn exercises(site: &Path) -> Result<Vec<Sco>, BadInput> {
    let index_path = site.join(INDEX_PATH);
    let text = files::read_text(&index_path, INDEX_BYTES_MAX).map_err(BadInput)?;
    let index =
        SiteIndex::parse(&text).map_err(|e| BadInput(format!("{}: {}", files::shown(site), e)))?;
    if index.exercises.is_empty() {
        return Err(BadInput(format!(
            "{}: the site has no exercises of its own, and a package lists those as its SCOs; \
             build it with `cargo xtask dist --exercises DIR`",
            files::shown(&index_path)
        )));
    }
    let mut scos = Vec::new();
    for path in index.paths() {
        let file = site.join(&path);
        let text = files::read_text(&file, EXERCISE_FILE_BYTES_MAX).map_err(BadInput)?;
        let exercise = fencelab_core::exercise::load(&files::shown(&file), &text)
            .map_err(|e| BadInput(e.to_string()))?;
        scos.push(Sco {
            href: format!("{SCORM_DIR}/{}.html", exercise.id),
            id: exercise.id,
            title: exercise.title,
        });
    }
    Ok(scos)
}

/// The launch page of `sco`: the template with its id, title and version.
fn launch_page(sco: &Sco, version: Version) -> String {
    LAUNCH_PAGE
        .replace("{{exercise}}", &sco.id)
        .replace("{{version}}", version.name())
        .replace("{{title}}", &manifest::escape(&sco.title))
}

/// Every regular file under `dir` (relative names with `/`), but those a
/// package leaves out. Links and other kinds of file are passed over: a
/// built site has none.
fn walk(root: &Path, dir: &Path, found: &mut Vec<(String, PathBuf)>) -> Result<(), BadInput> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| BadInput(format!("{}: cannot read: {e}", files::shown(dir))))?;
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        let Ok(relative) = path.strip_prefix(root) else {
            continue;
        };
        let name = relative
            .components()
            .map(|part| part.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/");
        let at_root = relative.components().count() == 1;
        let compressed = path
            .extension()
            .is_some_and(|ext| COMPRESSED.iter().any(|c| ext == *c));
        if name.starts_with('.') || compressed || (at_root && LEFT_OUT.contains(&name.as_str())) {
            continue;
        }
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            walk(root, &path, found)?;
        } else if kind.is_file() {
            if found.len() == SITE_FILES_MAX {
                return Err(BadInput(format!(
                    "{}: more than {SITE_FILES_MAX} files; is this a built site?",
                    files::shown(root)
                )));
            }
            found.push((name, path));
        }
    }
    Ok(())
}

/// Writes `bytes` to `out` through a temporary file beside it.
fn write_atomically(out: &Path, bytes: &[u8]) -> Result<(), BadInput> {
    let mut partial = out.as_os_str().to_owned();
    partial.push(".partial");
    let partial = PathBuf::from(partial);
    std::fs::write(&partial, bytes)
        .and_then(|()| std::fs::rename(&partial, out))
        .map_err(|e| {
            let _ = std::fs::remove_file(&partial);
            BadInput(format!("{}: cannot write: {e}", files::shown(out)))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_launch_page_names_its_exercise_and_version() {
        let sco = Sco {
            id: "my-claim".into(),
            title: "The <claim>".into(),
            href: "scorm/my-claim.html".into(),
        };
        let page = launch_page(&sco, Version::Scorm2004);
        assert!(page.contains(r#"data-exercise="my-claim" data-scorm="2004""#));
        assert!(page.contains("<title>The &lt;claim&gt;</title>"));
        assert!(!page.contains("{{"), "every placeholder is filled");
    }
}
