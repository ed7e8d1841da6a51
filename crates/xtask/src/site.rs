//! `cargo xtask dist`: the static site an author hosts anywhere.
//!
//! The site is the page built by trunk (release), an `exercises/` folder
//! with the author's exercise files and the `index.toml` that lists them,
//! and a brotli and a gzip copy beside every asset. Everything is put
//! together in a folder beside the output and moved into place only when
//! complete, so a broken exercise (which `fencelab index` refuses, naming
//! file:line:column) or a failed build leaves the previous site as it was.
//!
//! The work this driver cannot do with std alone is done by the tools that
//! own it: trunk builds the page, the `fencelab` CLI checks the exercises and
//! writes the index (the same loader and check as `fencelab check`), and
//! node compresses the whole site (compress.mjs, with zlib's brotli), and
//! fencelab-precompress the files `site-pages` changes in a site already
//! compressed (the helper mdbook-fencelab shares). With `--scorm`, the
//! CLI's `fencelab scorm` packages the finished site for an LMS (one
//! package, or one per exercise with `--each-exercise`), under the title and
//! identifier `--title` and `--identifier` give.

use crate::cmd;
use crate::tools::Tools;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Where the site goes and which exercises it serves.
pub struct Options {
    /// The site's folder (absolute).
    pub out: PathBuf,
    /// The author's exercise files; `None` keeps those in `out/exercises`.
    pub exercises: Option<PathBuf>,
}

/// The folder's name for the site's exercises, as the page fetches them.
const EXERCISES: &str = "exercises";

/// Builds the site into `options.out`, replacing what was there.
pub fn build(root: &Path, tools: &Tools, options: &Options) -> Result<(), String> {
    let out = &options.out;
    refuse_foreign_folder(out)?;
    let source = options.exercises.clone().or_else(|| {
        let kept = out.join(EXERCISES);
        kept.is_dir().then_some(kept)
    });
    // Checked where the author keeps them, so every message names the
    // author's own file; then copied and indexed as checked.
    if let Some(source) = &source {
        println!(
            "xtask: checking the site's exercises in {}",
            source.display()
        );
        cmd::status(cmd::fencelab(&["index", "--check"]).arg(source))
            .map_err(|e| format!("{e}: the site was not written (the messages above say why)"))?;
    }
    let work = Work::new(out)?;
    let exercises = work.dir.join(EXERCISES);
    copy_exercises(source.as_deref(), &exercises)?;
    cmd::status(cmd::fencelab(&["index"]).arg(&exercises))?;

    let site = work.dir.join("site");
    println!("xtask: building the page (trunk, release)");
    cmd::status(
        Command::new("trunk")
            .args(["build", "--offline", "--release", "--dist"])
            .arg(&site)
            .env("PATH", tools.path_var())
            .current_dir(root),
    )?;
    // trunk's build carries an empty index (web/exercises); the site's own
    // exercises take its place.
    let shipped = site.join(EXERCISES);
    if shipped.exists() {
        std::fs::remove_dir_all(&shipped)
            .map_err(|e| format!("cannot remove {}: {e}", shipped.display()))?;
    }
    rename(&exercises, &shipped)?;
    // The post-build hook recorded the bundled exercises; the site's own
    // that have a dialect join them.
    if crate::postgres_named() {
        println!("xtask: recording the site's own exercises' PostgreSQL verdicts");
        let out = site.join("postgres");
        cmd::status(
            cmd::fencelab(&["record", "--postgres", "--out"])
                .arg(&out)
                .arg(&shipped),
        )?;
    }
    // Not yet compressed: every file gets its copies just below.
    write_pages(&site)?;
    println!("xtask: precompressing the site's files (brotli, gzip)");
    compress(root, &site)?;
    work.install(&site, out)?;
    println!("xtask: the site is in {}", out.display());
    Ok(())
}

/// `cargo xtask site-pages`: the pages of the exercises the built site in
/// `dir` serves of its own (its `exercises/index.toml`), prerendered by
/// web/prerender (which also removes those of exercises no longer listed),
/// and the service worker's list of pages written again. Every file that
/// changed gets fresh brotli and gzip copies when the site has copies (`dist`
/// made them), or loses its old ones (`fencelab-precompress`, the helper
/// mdbook-fencelab calls too), so that no host sends an old copy of a page
/// or of the service worker.
pub fn pages(dir: &Path) -> Result<(), String> {
    let changed = write_pages(dir)?;
    if !changed.is_empty() {
        println!(
            "xtask: writing the compressed copies of {} changed files",
            changed.len()
        );
        cmd::status(&mut cmd::precompress(dir, &changed))?;
    }
    Ok(())
}

/// The pages [`pages`] writes, and the service worker; answers the names of
/// the files at the site's top level this changed, wrote or removed.
fn write_pages(dir: &Path) -> Result<Vec<String>, String> {
    println!(
        "xtask: prerendering the pages of {}'s own exercises",
        dir.display()
    );
    let before = top_level_pages(dir)?;
    cmd::status(&mut cmd::prerender_site_exercises(dir))?;
    crate::hashed::list_pages(dir)?;
    Ok(changed(&before, &top_level_pages(dir)?))
}

/// The files at the site's top level that site-pages writes (its pages,
/// `*.html`, and the service worker), with their bytes.
fn top_level_pages(dir: &Path) -> Result<BTreeMap<String, Vec<u8>>, String> {
    let cannot = |e: std::io::Error| format!("cannot read {}: {e}", dir.display());
    let mut pages = BTreeMap::new();
    for entry in std::fs::read_dir(dir).map_err(cannot)? {
        let entry = entry.map_err(cannot)?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let is_page = name.ends_with(".html") || name == crate::hashed::SERVICE_WORKER;
        if is_page && entry.file_type().map_err(cannot)?.is_file() {
            let bytes = std::fs::read(entry.path())
                .map_err(|e| format!("cannot read {}: {e}", entry.path().display()))?;
            pages.insert(name, bytes);
        }
    }
    Ok(pages)
}

/// The names whose bytes differ between `before` and `after`, or that only
/// one of them has.
fn changed(before: &BTreeMap<String, Vec<u8>>, after: &BTreeMap<String, Vec<u8>>) -> Vec<String> {
    let names: BTreeSet<&String> = before.keys().chain(after.keys()).collect();
    names
        .into_iter()
        .filter(|name| before.get(*name) != after.get(*name))
        .cloned()
        .collect()
}

/// `compress.mjs` on the site in `dir`: a brotli and a gzip copy beside
/// every file they make smaller.
fn compress(root: &Path, dir: &Path) -> Result<(), String> {
    cmd::status(
        Command::new("node")
            .arg(root.join("crates/xtask/compress.mjs"))
            .arg(dir),
    )
}

/// The SCORM versions `--scorm` takes (the CLI's `fencelab scorm` owns
/// what they mean; this only names one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScormVersion {
    Scorm12,
    Scorm2004,
}

impl ScormVersion {
    pub fn parse(text: &str) -> Result<ScormVersion, String> {
        match text {
            "1.2" => Ok(ScormVersion::Scorm12),
            "2004" => Ok(ScormVersion::Scorm2004),
            other => Err(format!(
                "--scorm takes a SCORM version, not `{other}`: give 1.2 or 2004"
            )),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            ScormVersion::Scorm12 => "1.2",
            ScormVersion::Scorm2004 => "2004",
        }
    }
}

/// What `dist --scorm` packages, and how the LMS names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scorm {
    pub version: ScormVersion,
    /// `--title`: the course's title; without it, the exercise folder's name.
    pub title: Option<String>,
    /// `--identifier`: the manifest's identifier (`fencelab scorm` checks
    /// it); without it, one made from the title.
    pub identifier: Option<String>,
    /// `--each-exercise`: a package per exercise.
    pub each_exercise: bool,
}

impl Scorm {
    /// The package dist's flags ask for: none without `--scorm`, when no
    /// other SCORM flag is given either.
    pub fn from_flags(
        version: Option<ScormVersion>,
        title: Option<String>,
        identifier: Option<String>,
        each_exercise: bool,
    ) -> Result<Option<Scorm>, String> {
        match version {
            Some(version) => Ok(Some(Scorm {
                version,
                title,
                identifier,
                each_exercise,
            })),
            None if title.is_some() || identifier.is_some() || each_exercise => Err(
                "--title, --identifier and --each-exercise name the SCORM package: \
                 give --scorm 1.2|2004 too"
                    .into(),
            ),
            None => Ok(None),
        }
    }
}

/// Packages the site just built in `options.out` for an LMS beside it,
/// named after the course's exercise folder (or the site's, without one):
/// one zip, `COURSE-scorm-VERSION.zip`, one SCO per exercise; or with
/// `--each-exercise` the folder `COURSE-scorm-VERSION/`, a zip per
/// exercise (`fencelab scorm`, which loads the exercises for their titles).
pub fn package(options: &Options, scorm: &Scorm) -> Result<(), String> {
    let version = scorm.version.name();
    let named_by = options.exercises.as_deref().unwrap_or(&options.out);
    let course = named_by
        .file_name()
        .map_or("fencelab".into(), |n| n.to_string_lossy().into_owned());
    let title = scorm.title.as_deref().unwrap_or(&course);
    let mut command = cmd::fencelab(&["scorm"]);
    command
        .arg(&options.out)
        .args(["--version", version, "--title", title]);
    if let Some(identifier) = &scorm.identifier {
        command.args(["--identifier", identifier]);
    }
    println!("xtask: packaging the site for SCORM {version}");
    if !scorm.each_exercise {
        let zip = options
            .out
            .with_file_name(format!("{course}-scorm-{version}.zip"));
        // The package beside the site is dist's own output, built again
        // on every run like the site itself.
        return cmd::status(command.args(["--force", "--out"]).arg(&zip));
    }
    // The packages are written into a fresh folder that then replaces the
    // earlier one whole, as the site does: an exercise taken out of the
    // course leaves no package behind, and a refusal leaves the earlier
    // packages as they were.
    let folder = options
        .out
        .with_file_name(format!("{course}-scorm-{version}"));
    refuse_foreign_packages(&folder, version)?;
    let fresh = options
        .out
        .with_file_name(format!(".{course}-scorm-{version}.new"));
    let earlier = options
        .out
        .with_file_name(format!(".{course}-scorm-{version}.old"));
    for leftover in [&fresh, &earlier] {
        remove_dir_if_there(leftover)?;
    }
    command.arg("--each-exercise").arg("--out").arg(&fresh);
    if let Err(error) = cmd::status(&mut command) {
        remove_dir_if_there(&fresh)?;
        return Err(error);
    }
    let rename = |from: &Path, to: &Path| {
        std::fs::rename(from, to)
            .map_err(|e| format!("cannot move {} to {}: {e}", from.display(), to.display()))
    };
    if folder.exists() {
        rename(&folder, &earlier)?;
    }
    rename(&fresh, &folder)?;
    remove_dir_if_there(&earlier)?;
    println!("xtask: the packages are in {}", folder.display());
    Ok(())
}

/// Replacing a folder of packages that holds anything but the packages of
/// a `dist --each-exercise` (`*-scorm-VERSION.zip` files) would lose it.
fn refuse_foreign_packages(folder: &Path, version: &str) -> Result<(), String> {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return Ok(());
    };
    let suffix = format!("-scorm-{version}.zip");
    for entry in entries {
        let entry = entry.map_err(|e| format!("cannot read {}: {e}", folder.display()))?;
        let is_file = entry.file_type().is_ok_and(|kind| kind.is_file());
        if !is_file || !entry.file_name().to_string_lossy().ends_with(&suffix) {
            return Err(format!(
                "{} holds {}, which is not a package dist wrote; dist replaces the folder \
                 whole, so move it out first",
                folder.display(),
                entry.path().display()
            ));
        }
    }
    Ok(())
}

fn remove_dir_if_there(dir: &Path) -> Result<(), String> {
    match std::fs::remove_dir_all(dir) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(format!("cannot remove {}: {e}", dir.display()))
        }
        _ => Ok(()),
    }
}

/// Replacing a folder that holds something else than a site would lose it.
fn refuse_foreign_folder(out: &Path) -> Result<(), String> {
    let Ok(mut entries) = std::fs::read_dir(out) else {
        return Ok(());
    };
    let empty = entries.next().is_none();
    if empty || out.join("index.html").is_file() {
        Ok(())
    } else {
        Err(format!(
            "{} holds files but no index.html, so it is not a built site; \
             give --out an empty or new folder, or a site's folder",
            out.display()
        ))
    }
}

/// The author's `.toml` files (the index aside: `fencelab index` writes a
/// fresh one) copied into `to`.
fn copy_exercises(from: Option<&Path>, to: &Path) -> Result<(), String> {
    std::fs::create_dir_all(to).map_err(|e| format!("cannot create {}: {e}", to.display()))?;
    let Some(from) = from else { return Ok(()) };
    let entries =
        std::fs::read_dir(from).map_err(|e| format!("cannot read {}: {e}", from.display()))?;
    for entry in entries.filter_map(Result::ok) {
        let name = entry.file_name();
        let is_exercise = name.to_string_lossy().ends_with(".toml") && name != "index.toml";
        if is_exercise && entry.path().is_file() {
            std::fs::copy(entry.path(), to.join(&name))
                .map_err(|e| format!("cannot copy {}: {e}", entry.path().display()))?;
        }
    }
    Ok(())
}

fn rename(from: &Path, to: &Path) -> Result<(), String> {
    std::fs::rename(from, to)
        .map_err(|e| format!("cannot move {} to {}: {e}", from.display(), to.display()))
}

/// The folder a site is put together in, beside the output so the final
/// move is a rename on one file system; removed however the build ends.
struct Work {
    dir: PathBuf,
}

impl Work {
    fn new(out: &Path) -> Result<Work, String> {
        let name = out
            .file_name()
            .map_or("site".into(), |n| n.to_string_lossy().into_owned());
        let dir = out.with_file_name(format!(".{name}.partial"));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        Ok(Work { dir })
    }

    /// Moves the finished `site` to `out`, the old site out of the way first.
    /// If the new site cannot be moved in, the old one is put back.
    fn install(&self, site: &Path, out: &Path) -> Result<(), String> {
        let previous = self.dir.join("previous");
        let had_one = out.exists();
        if had_one {
            rename(out, &previous)?;
        }
        rename(site, out).inspect_err(|_| {
            if had_one {
                let _ = std::fs::rename(&previous, out);
            }
        })
    }
}

impl Drop for Work {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_of_packages_is_replaced_only_when_it_holds_packages_alone() {
        let scratch = std::env::temp_dir().join(format!("xtask-packages-{}", std::process::id()));
        let folder = scratch.join("course-scorm-1.2");
        std::fs::create_dir_all(&folder).unwrap();
        assert_eq!(
            refuse_foreign_packages(&scratch.join("none"), "1.2"),
            Ok(())
        );
        std::fs::write(folder.join("a-scorm-1.2.zip"), "a package").unwrap();
        assert_eq!(refuse_foreign_packages(&folder, "1.2"), Ok(()));
        for (foreign, dir) in [
            ("notes.txt", false),
            ("a-scorm-2004.zip", false),
            ("x-scorm-1.2.zip", true),
        ] {
            let path = folder.join(foreign);
            if dir {
                std::fs::create_dir(&path).unwrap();
            } else {
                std::fs::write(&path, "mine").unwrap();
            }
            let error = refuse_foreign_packages(&folder, "1.2").unwrap_err();
            assert!(
                error.contains(foreign) && error.contains("not a package dist wrote"),
                "{error}"
            );
            remove_dir_if_there(&path)
                .or_else(|_| std::fs::remove_file(&path).map_err(|e| e.to_string()))
                .unwrap();
        }
        remove_dir_if_there(&scratch).unwrap();
        assert!(!scratch.exists());
        assert_eq!(
            remove_dir_if_there(&scratch),
            Ok(()),
            "nothing there is no error"
        );
    }

    #[test]
    fn changed_names_every_page_rewritten_written_or_removed_and_no_other() {
        let files = |list: &[(&str, &str)]| -> BTreeMap<String, Vec<u8>> {
            list.iter()
                .map(|(name, text)| (name.to_string(), text.as_bytes().to_vec()))
                .collect()
        };
        let before = files(&[
            ("index.html", "front"),
            ("sw.js", "old list"),
            ("gone.html", "a removed exercise"),
            ("mine.html", "old page"),
        ]);
        let after = files(&[
            ("index.html", "front"),
            ("sw.js", "new list"),
            ("mine.html", "new page"),
            ("new.html", "a new exercise"),
        ]);
        assert_eq!(
            changed(&before, &after),
            ["gone.html", "mine.html", "new.html", "sw.js"]
        );
    }
}
