//! `fencelab scorm SITE --version 1.2|2004 --out FILE.zip`: a built site and
//! its own exercises as one SCORM package, each exercise a SCO; with
//! `--each-exercise`, a package per exercise in the folder `--out` names
//! (for an LMS that grades one activity per package), each its own course
//! to the LMS. `--title` and `--identifier` name the course as the LMS
//! lists and keys it.
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
//! The site's files are read and deflated once, whatever the number of
//! packages (`zip::Entry`). The exercises are loaded here for their ids
//! and titles only: checking
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

pub use manifest::{Identifier, Version};

use crate::{BadInput, Ended};
use fencelab_cli::{files, output};
use fencelab_core::EXERCISE_FILE_BYTES_MAX;
use fencelab_model::site::{INDEX_BYTES_MAX, INDEX_PATH, SiteIndex};
use manifest::{Course, Sco};
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

/// How many packages `fencelab scorm` writes for a site.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Packaging {
    /// One package, its exercises one SCO each: `--out` is the zip.
    Course,
    /// One package per exercise (`--each-exercise`), for an LMS that
    /// grades one activity per package (Canvas): `--out` is a folder,
    /// which gets `ID-scorm-VERSION.zip` for each exercise.
    EachExercise,
}

/// What `fencelab scorm` was asked for.
pub struct Request<'a> {
    pub site: &'a Path,
    pub version: Version,
    pub out: &'a Path,
    /// The course's title, as the LMS shows the package.
    pub title: &'a str,
    /// The manifest's identifier the author chose (`--identifier`);
    /// without one it is made from the title.
    pub identifier: Option<&'a Identifier>,
    pub packaging: Packaging,
    /// Whether a file already at `out` is replaced (`--force`) or refused.
    pub existing: output::Existing,
}

/// Writes the package (or the packages), or says which input is wrong.
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
    let identifier = match request.identifier {
        Some(identifier) => identifier.clone(),
        None => Identifier::of_course(request.title, request.version),
    };
    match request.packaging {
        Packaging::Course => {
            let shared = Shared::read(site)?;
            let course = Course {
                identifier: &identifier,
                title: request.title,
                title_field: "--title",
            };
            let xml = manifest::write(request.version, &course, &scos, &shared.names)
                .map_err(|e| BadInput(e.to_string()))?;
            let bytes = package(site, &shared, request.version, &scos, &xml)?;
            // An older package at `--out` is replaced only with --force, never
            // through a link, and through a temporary file created afresh.
            output::write_file(request.out, &bytes, request.existing).map_err(BadInput)?;
            wrote(request, request.out, &scos, &shared, bytes.len());
        }
        Packaging::EachExercise => each_exercise(request, &identifier, &scos)?,
    }
    Ok(Ended::Passed)
}

/// A package per exercise in the folder `request.out`, each its own
/// course to the LMS: titled with the exercise's title, its identifier
/// `identifier` with the exercise's id. Every manifest and every target is
/// checked before the first package is written, so a title XML cannot hold
/// or a file `--force` was not given for leaves the folder as it was.
fn each_exercise(request: &Request, identifier: &Identifier, scos: &[Sco]) -> Result<(), BadInput> {
    let (site, folder) = (request.site, request.out);
    // The folder itself, when it is there already, must not be the site
    // or inside it either.
    out_of_the_site(site, &folder.join(MANIFEST))?;
    let not_a_folder = |why: String| {
        BadInput(format!(
            "{}: {why}; with --each-exercise, --out names a folder, new or one that exists",
            files::shown(folder)
        ))
    };
    if folder.exists() && !folder.is_dir() {
        return Err(not_a_folder("is not a folder".into()));
    }
    let shared = Shared::read(site)?;
    let mut planned = Vec::new();
    for sco in scos {
        let title_field = sco.title_field();
        let course = Course {
            identifier: &identifier.with_exercise(&sco.id),
            title: &sco.title,
            title_field: &title_field,
        };
        let xml = manifest::write(
            request.version,
            &course,
            std::slice::from_ref(sco),
            &shared.names,
        )
        .map_err(|e| BadInput(e.to_string()))?;
        let zip = folder.join(format!("{}-scorm-{}.zip", sco.id, request.version.name()));
        output::check_target(&zip, request.existing).map_err(BadInput)?;
        planned.push((sco, xml, zip));
    }
    match std::fs::create_dir(folder) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && folder.is_dir() => {}
        Err(e) => return Err(not_a_folder(format!("cannot make the folder: {e}"))),
    }
    for (sco, xml, zip) in planned {
        let one = std::slice::from_ref(sco);
        let bytes = package(site, &shared, request.version, one, &xml)?;
        output::write_file(&zip, &bytes, request.existing).map_err(BadInput)?;
        wrote(request, &zip, one, &shared, bytes.len());
    }
    Ok(())
}

/// What every package of a site holds, whatever its exercises: the bridge
/// and the site's own files, each deflated once.
struct Shared {
    entries: Vec<zip::Entry>,
    /// The entries' names, as the manifest's shared resource lists them.
    names: Vec<String>,
}

impl Shared {
    fn read(site: &Path) -> Result<Shared, BadInput> {
        let in_site = |e: String| BadInput(format!("{}: {e}", files::shown(site)));
        let mut site_files = Vec::new();
        walk(site, "", &mut site_files)?;
        site_files.sort();
        let bridge = format!("{SCORM_DIR}/bridge.js");
        let mut entries = vec![zip::Entry::new(&bridge, BRIDGE.as_bytes()).map_err(in_site)?];
        let mut names = vec![bridge];
        for (name, path) in site_files {
            let bytes = std::fs::read(&path)
                .map_err(|e| BadInput(format!("{}: cannot read: {e}", files::shown(&path))))?;
            entries.push(zip::Entry::new(&name, &bytes).map_err(in_site)?);
            names.push(name);
        }
        Ok(Shared { entries, names })
    }
}

/// The zip of one package: the launch pages of `scos`, the shared files
/// and `manifest`, which lists them.
fn package(
    site: &Path,
    shared: &Shared,
    version: Version,
    scos: &[Sco],
    manifest: &str,
) -> Result<Vec<u8>, BadInput> {
    let in_site = |e: String| BadInput(format!("{}: {e}", files::shown(site)));
    let mut zip = zip::Zip::default();
    for sco in scos {
        let page = launch_page(sco, version)?;
        zip.add(&sco.href, page.as_bytes()).map_err(in_site)?;
    }
    for entry in &shared.entries {
        zip.push(entry).map_err(in_site)?;
    }
    zip.add(MANIFEST, manifest.as_bytes()).map_err(BadInput)?;
    zip.finish().map_err(BadInput)
}

/// Says what was written to `zip`: its version, exercises, files and size.
fn wrote(request: &Request, zip: &Path, scos: &[Sco], shared: &Shared, bytes: usize) {
    crate::emit(&format!(
        "wrote {}: a SCORM {} package of {} ({}), {} files, {bytes} bytes\n",
        files::shown(zip),
        request.version.name(),
        match scos.len() {
            1 => "1 exercise".to_string(),
            n => format!("{n} exercises"),
        },
        scos.iter()
            .map(|sco| sco.title.as_str())
            .collect::<Vec<_>>()
            .join("; "),
        shared.names.len() + scos.len() + 1,
    ));
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
    let title =
        manifest::escape(&sco.title, &sco.title_field()).map_err(|e| BadInput(e.to_string()))?;
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
