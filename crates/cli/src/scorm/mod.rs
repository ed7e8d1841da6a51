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
//! writing the index this reads. The archive is written to a temporary
//! file created afresh beside `--out` and renamed into place
//! (`fencelab_cli::output`), so a failure leaves no half-written package
//! and nothing is written through a link planted there.
//!
//! Must never write a package an extractor reads otherwise than it was
//! meant: a site's file whose name is not portable (not UTF-8, a backslash,
//! a control character) is refused by name, as are two exercise files of
//! one id (two SCOs, entries and identifiers of one name); nor write into
//! the site it packs (`--out` inside it would pack the previous package
//! into the next).

mod manifest;
mod zip;

pub use manifest::Version;

use crate::{BadInput, Ended};
use fencelab_cli::{files, output};
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
    /// Whether a file already at `out` is replaced (`--force`) or refused.
    pub existing: output::Existing,
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
    out_of_the_site(site, request.out)?;
    let scos = exercises(site)?;
    let mut zip = zip::Zip::default();
    let mut listed = Vec::new();
    let mut add = |zip: &mut zip::Zip, name: String, bytes: &[u8]| {
        zip.add(&name, bytes)
            .map_err(|e| BadInput(format!("{}: {e}", files::shown(site))))?;
        listed.push(name);
        Ok::<(), BadInput>(())
    };
    let mut site_files = Vec::new();
    walk(site, "", &mut site_files)?;
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
        let page = launch_page(sco, request.version)?;
        add(&mut zip, sco.href.clone(), page.as_bytes())?;
    }
    for (name, bytes) in &archive_files {
        add(&mut zip, name.clone(), bytes)?;
    }
    // The launch pages are listed by their own resources.
    listed.retain(|name| !scos.iter().any(|sco| &sco.href == name));
    let xml = manifest::write(request.version, request.title, &scos, &listed).map_err(BadInput)?;
    zip.add(MANIFEST, xml.as_bytes()).map_err(BadInput)?;
    let bytes = zip.finish().map_err(BadInput)?;
    // An older package at `--out` is replaced only with --force, never
    // through a link, and through a temporary file created afresh.
    output::write_file(request.out, &bytes, request.existing).map_err(BadInput)?;
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
    let mut scos: Vec<Sco> = Vec::new();
    for path in index.paths() {
        let file = site.join(&path);
        let text = files::read_text(&file, EXERCISE_FILE_BYTES_MAX).map_err(BadInput)?;
        let exercise = fencelab_core::exercise::load(&files::shown(&file), &text)
            .map_err(|e| BadInput(e.to_string()))?;
        // One id is one SCO: two would be two resources and items of one
        // identifier and one launch page twice in the zip.
        if let Some(earlier) = scos.iter().find(|sco| sco.id == exercise.id) {
            return Err(BadInput(format!(
                "{}, {}: both have the id `{}`; each exercise needs an id of its own \
                 (`fencelab index` refuses the site)",
                earlier.file,
                files::shown(&file),
                exercise.id
            )));
        }
        scos.push(Sco {
            href: format!("{SCORM_DIR}/{}.html", exercise.id),
            id: exercise.id,
            title: exercise.title,
            file: files::shown(&file),
        });
    }
    Ok(scos)
}

/// Refuses an `out` inside `site`, where the next package would carry this
/// one. Both are compared as the file system resolves them (links, `..`);
/// an `out` whose folder does not exist is left to the write to refuse.
fn out_of_the_site(site: &Path, out: &Path) -> Result<(), BadInput> {
    let site_real = std::fs::canonicalize(site)
        .map_err(|e| BadInput(format!("{}: cannot read: {e}", files::shown(site))))?;
    let folder = match out.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    match std::fs::canonicalize(folder) {
        Ok(folder_real) if folder_real.starts_with(&site_real) => Err(BadInput(format!(
            "{}: is inside {}, the site it packs, so the next package would carry this \
             one; write it outside the site",
            files::shown(out),
            files::shown(site)
        ))),
        _ => Ok(()),
    }
}

/// The launch page of `sco`: the template with its id, title and version.
fn launch_page(sco: &Sco, version: Version) -> Result<String, BadInput> {
    let title = manifest::escape(&sco.title, &sco.title_field()).map_err(BadInput)?;
    Ok(LAUNCH_PAGE
        .replace("{{exercise}}", &sco.id)
        .replace("{{version}}", version.name())
        .replace("{{title}}", &title))
}

/// Every regular file under the site's folder `root`, from its subfolder
/// `prefix` down (names relative to the site, with `/`), but those a
/// package leaves out. Links and other kinds of file are passed over: a
/// built site has none. A name that is not portable is refused by path.
fn walk(root: &Path, prefix: &str, found: &mut Vec<(String, PathBuf)>) -> Result<(), BadInput> {
    let dir = root.join(prefix);
    let cannot = |e: std::io::Error| BadInput(format!("{}: cannot read: {e}", files::shown(&dir)));
    for entry in std::fs::read_dir(&dir).map_err(cannot)? {
        let entry = entry.map_err(cannot)?;
        let path = entry.path();
        let file_name = entry.file_name();
        let compressed = path
            .extension()
            .is_some_and(|ext| COMPRESSED.iter().any(|c| ext == *c));
        let left_out = prefix.is_empty() && LEFT_OUT.iter().any(|left| file_name == *left);
        if file_name.as_encoded_bytes().starts_with(b".") || compressed || left_out {
            continue;
        }
        let part = portable_name(&path, &file_name)?;
        let name = match prefix {
            "" => part.to_string(),
            prefix => format!("{prefix}/{part}"),
        };
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            walk(root, &name, found)?;
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

/// `name`, the last part of `path`, when every extractor reads it as one
/// name: UTF-8 (a zip's names are flagged so), no backslash (a separator
/// to some extractors, so a way out of the folder), no control character
/// and nothing XML cannot hold (the manifest lists it). Otherwise the
/// sentence that names the file.
fn portable_name<'a>(path: &Path, name: &'a std::ffi::OsStr) -> Result<&'a str, BadInput> {
    let refuse = |why: String| {
        Err(BadInput(format!(
            "{}: its name {why}; a package carries only names every extractor reads alike: \
             rename it or take it out of the site",
            files::shown(path)
        )))
    };
    let Some(name) = name.to_str() else {
        return refuse("is not UTF-8".into());
    };
    if name.contains('\\') {
        return refuse("holds a backslash, which some extractors take for a folder".into());
    }
    if let Some(c) = name
        .chars()
        .find(|&c| c.is_control() || matches!(c, '\u{fffe}' | '\u{ffff}'))
    {
        return refuse(format!("holds U+{:04X}", u32::from(c)));
    }
    Ok(name)
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
            file: "site/exercises/my-claim.toml".into(),
        };
        let page = launch_page(&sco, Version::Scorm2004).unwrap_or_else(|e| panic!("{}", e.0));
        assert!(page.contains(r#"data-exercise="my-claim" data-scorm="2004""#));
        assert!(page.contains("<title>The &lt;claim&gt;</title>"));
        assert!(!page.contains("{{"), "every placeholder is filled");
    }
}
