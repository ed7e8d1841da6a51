//! `fencelab index DIR`: checks every exercise file of a site's
//! `exercises/` folder and writes the `index.toml` the page loads them by.
//!
//! The index is the site's promise that each file it names works on the
//! page, so it is written only when every file loads, passes its check
//! (the reference passes, every named broken variant is caught), and has an
//! id of its own, unused by the other files and by the bundled exercises.
//! Otherwise nothing is written and the old index, if any, stays as it was.
//! `cargo xtask dist` runs this on the site it builds; an author with a
//! built site drops a file into `exercises/` and runs it alone.

use crate::check::{self, Checked};
use crate::{BadInput, Ended, bundled_exercises, emit};
use fencelab_cli::{output, render};
use fencelab_model::site::{SiteIndex, check_file_name};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The index's own file name inside the folder.
pub(crate) const INDEX_FILE: &str = "index.toml";
/// Precompressed copies a static host may serve instead of a file.
const COMPRESSED: &[&str] = &["br", "gz"];

/// Checks the exercise files in `dir` and, unless `check_only`, writes
/// their index.
pub fn run(dir: &Path, check_only: bool) -> Result<Ended, BadInput> {
    let names = exercise_names(dir)?;
    let files: Vec<PathBuf> = names.iter().map(|name| dir.join(name)).collect();
    let mut ids: Vec<(String, String)> = Vec::new();
    let (mut failing, mut unreadable) = (Vec::new(), 0);
    check::files_in_parallel(&files, |index, checked| match checked {
        Checked::Checked(judged) => {
            let check = &judged.check;
            emit(&render::check(check));
            if !check.ok() {
                failing.push(files[index].display().to_string());
            }
            ids.push((check.reference.exercise.clone(), names[index].clone()));
        }
        Checked::Unreadable(problem) => {
            unreadable += 1;
            problem.report();
        }
    });
    let clashes = id_clashes(dir, &ids)?;
    for clash in &clashes {
        eprintln!("fencelab: {}", fencelab_cli::shown(clash));
    }
    let reasons = not_indexed_because(unreadable, files.len(), clashes.len(), &failing);
    if !reasons.is_empty() {
        let consequence = if check_only {
            format!("{} cannot be indexed", dir.display())
        } else {
            format!("{} was not written", dir.join(INDEX_FILE).display())
        };
        emit(&format!(
            "{} (see above); {consequence}\n",
            reasons.join(", ")
        ));
        // Bad input outranks a failing check, as in `fencelab check`.
        return Ok(if unreadable > 0 || !clashes.is_empty() {
            Ended::BadInput
        } else {
            Ended::Failed
        });
    }
    let index = SiteIndex::new(names).map_err(|e| BadInput(format!("{}: {e}", dir.display())))?;
    let count = index.exercises.len();
    let checked = format!(
        "checked {count} exercise{}: all ok",
        if count == 1 { "" } else { "s" }
    );
    if check_only {
        emit(&format!("{checked}\n"));
    } else {
        publish(dir, &index)?;
        emit(&format!(
            "{checked}; wrote {} listing {count}\n",
            dir.join(INDEX_FILE).display()
        ));
    }
    Ok(Ended::Passed)
}

/// Why the folder cannot be indexed, one phrase a reason: files that
/// cannot be loaded (`unreadable` of `files`), ids that clash, and the
/// files whose check fails; empty when it can be.
fn not_indexed_because(
    unreadable: usize,
    files: usize,
    clashes: usize,
    failing: &[String],
) -> Vec<String> {
    let mut reasons = Vec::new();
    if unreadable > 0 {
        reasons.push(format!("{unreadable} of {files} files cannot be loaded"));
    }
    if clashes > 0 {
        let plural = if clashes == 1 { "" } else { "s" };
        reasons.push(format!("{clashes} clashing id{plural}"));
    }
    if !failing.is_empty() {
        reasons.push(format!("{} does not pass its check", failing.join(", ")));
    }
    reasons
}

/// Writes `index` into `dir`, removes the compressed copies it made stale,
/// and says what a built site's pages still show.
fn publish(dir: &Path, index: &SiteIndex) -> Result<(), BadInput> {
    write_index(dir, index)?;
    for stale in remove_stale_copies(dir)? {
        emit(&format!(
            "removed {stale}, older than the file it compresses\n"
        ));
    }
    // In a built site, each of these exercises has a page of its own,
    // written at build time from its file as it was then.
    if let Some(site) = dir
        .parent()
        .filter(|site| site.join("index.html").is_file())
    {
        emit(&format!(
            "the site's pages of its own exercises show them as they were built: \
             `cargo xtask site-pages {}` writes them again\n",
            site.display()
        ));
    }
    Ok(())
}

/// The folder's exercise files by name, in name order: every `.toml` but
/// the index, each with a name the index may carry.
fn exercise_names(dir: &Path) -> Result<Vec<String>, BadInput> {
    let cannot = |e: std::io::Error| BadInput(format!("{}: cannot read: {e}", dir.display()));
    let mut names = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(cannot)? {
        let entry = entry.map_err(cannot)?;
        let name = entry.file_name().to_string_lossy().into_owned();
        // Every `.toml` is the site's, whatever it is: one that is not a
        // readable file (a link to nothing, a directory, a device) is named
        // when it is read, never skipped without a word.
        if !name.ends_with(".toml") || name == INDEX_FILE {
            continue;
        }
        check_file_name(&name)
            .map_err(|why| BadInput(format!("{}: {why}; rename it", dir.join(&name).display())))?;
        names.push(name);
    }
    names.sort();
    Ok(names)
}

/// Every id two files share, or that a file shares with a bundled exercise,
/// as a sentence naming the files.
fn id_clashes(dir: &Path, ids: &[(String, String)]) -> Result<Vec<String>, BadInput> {
    let bundled: Vec<String> = bundled_exercises()?.into_iter().map(|e| e.id).collect();
    let mut by_id: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (id, file) in ids {
        by_id.entry(id).or_default().push(file);
    }
    let mut clashes = Vec::new();
    for (id, files) in by_id {
        let shown: Vec<String> = files
            .iter()
            .map(|file| dir.join(file).display().to_string())
            .collect();
        if bundled.iter().any(|b| b == id) {
            clashes.push(format!(
                "{}: the id `{id}` is a bundled exercise's; give it an id of its own",
                shown.join(", ")
            ));
        } else if files.len() > 1 {
            clashes.push(format!(
                "{} all have the id `{id}`; each exercise needs an id of its own",
                shown.join(", ")
            ));
        }
    }
    Ok(clashes)
}

/// Writes the index beside a temporary name first, so a reader never sees
/// half of it: the index is the command's own to keep up to date, so an
/// older one is replaced, but never through a link, and the temporary file
/// is created afresh under a name no one can plant a link at.
fn write_index(dir: &Path, index: &SiteIndex) -> Result<(), BadInput> {
    output::write_file(
        &dir.join(INDEX_FILE),
        index.to_toml().as_bytes(),
        output::Existing::Replace,
    )
    .map_err(BadInput)
}

/// Removes every `.br`/`.gz` copy older than the file it compresses (the
/// index just written, or an exercise edited since the site was built), so
/// no host serves an old copy in place of the file.
fn remove_stale_copies(dir: &Path) -> Result<Vec<String>, BadInput> {
    let modified = |path: &Path| std::fs::metadata(path).and_then(|m| m.modified()).ok();
    let mut removed = Vec::new();
    let entries = std::fs::read_dir(dir)
        .map_err(|e| BadInput(format!("{}: cannot read: {e}", dir.display())))?;
    for entry in entries.filter_map(Result::ok) {
        let copy = entry.path();
        let is_copy = copy
            .extension()
            .is_some_and(|ext| COMPRESSED.iter().any(|c| ext == *c));
        let original = copy.with_extension("");
        if !is_copy || !original.is_file() {
            continue;
        }
        if modified(&copy) < modified(&original) {
            std::fs::remove_file(&copy)
                .map_err(|e| BadInput(format!("{}: cannot remove: {e}", copy.display())))?;
            removed.push(copy.display().to_string());
        }
    }
    removed.sort();
    Ok(removed)
}
