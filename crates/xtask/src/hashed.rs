//! Content-hashed asset names: after trunk has written the site (its
//! `post_build` hook, Trunk.toml), every file the page and its worker fetch
//! is renamed `NAME-<16 hex of its SHA-256>.EXT`, and every reference to it
//! is rewritten. A name then always means the same bytes, so a browser may
//! keep it for a year without asking again (`cargo xtask serve` says so:
//! `Cache-Control: immutable`), and a new build is new names, never a
//! stale copy. Only the addresses people and browsers type keep their
//! names ([`STABLE`]): index.html, the service worker and embed.js (public
//! API for course pages), which are revalidated instead.
//!
//! The files name each other (boot.js names the page's module, wasm and
//! the worker's loader; the loader names the worker's module, which names
//! its wasm), so a file is hashed only after every file it names has its
//! final name, and its hash covers those names: a change anywhere below
//! renames everything above it. Trunk's output is deterministic, so the
//! names are too, build after build.
//!
//! What counts as a reference, and its rewriting, is `hashed/references.rs`.
//! The service worker's precache list is written here ([`write_precache`]),
//! with a cache named after this build's files.

mod references;

use crate::sha256;
use references::{drop_stale_integrity, references, rewrite};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The site's files whose names are addresses and never change; everything
/// else at the site's top level is an asset and is hashed.
pub const STABLE: &[&str] = &["index.html", "sw.js", "embed.js"];
/// Whether `name` keeps its name: a [`STABLE`] file, or a page (each
/// prerendered exercise's `ID.html` is an address too).
fn is_stable(name: &str) -> bool {
    STABLE.contains(&name) || name.ends_with(".html")
}

/// Hex digits of the SHA-256 kept in a name: 64 bits, plenty to tell one
/// build's file from another's.
const HASH_DIGITS: usize = 16;
/// The service worker, whose precache list and cache name the build writes.
pub const SERVICE_WORKER: &str = "sw.js";
/// The lines of sw.js this build writes (each a whole line, kept in sw.js
/// with a placeholder value).
const CACHE_LINE: &str = "const CACHE = ";
const ASSETS_LINE: &str = "const ASSETS = ";
const PAGES_LINE: &str = "const PAGES = ";
/// The folder of the bundled exercise files the authoring view's templates
/// fetch (web/index.html copies them): kept by name, as pages are, and
/// precached with them so a template opens offline.
const TEMPLATES: &str = "templates";
/// The service worker's cache names start with this; sw.js deletes every
/// other cache of this prefix when a new build activates.
const CACHE_PREFIX: &str = "fencelab-";

/// Hashes the assets of the site in `dir` in place, rewrites every
/// reference to them (in the assets themselves and in the [`STABLE`] files),
/// and writes the service worker's precache list. Returns the renames, old
/// name to new, for the report.
pub fn hash_site(dir: &Path) -> Result<BTreeMap<String, String>, String> {
    let files = read_top_level(dir)?;
    let already: Vec<&String> = files.keys().filter(|name| is_hashed(name)).collect();
    if !already.is_empty() {
        return Err(format!(
            "{} already holds hashed names ({}): hash a fresh build only",
            dir.display(),
            join(already)
        ));
    }
    let (assets, stable): (BTreeMap<String, Vec<u8>>, BTreeMap<String, Vec<u8>>) =
        files.into_iter().partition(|(name, _)| !is_stable(name));
    let hashed = hash_assets(assets)?;
    let pages = page_names(dir)?;
    let mut written: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    for (name, bytes) in stable {
        let bytes = point_at(&name, bytes, &hashed, &pages)?;
        written.insert(name, bytes);
    }
    for (name, bytes) in written.iter().chain(&hashed.files) {
        write(&dir.join(name), bytes)?;
    }
    for old in hashed.renames.keys() {
        let path = dir.join(old);
        std::fs::remove_file(&path)
            .map_err(|e| format!("cannot remove {}: {e}", path.display()))?;
    }
    Ok(hashed.renames)
}

/// A [`STABLE`] file's bytes naming this build's assets: references
/// rewritten, trunk's integrity dropped where the bytes it hashed changed
/// (a page), the precache lists written (the service worker).
fn point_at(
    name: &str,
    bytes: Vec<u8>,
    hashed: &Hashed,
    pages: &[String],
) -> Result<Vec<u8>, String> {
    let mut bytes = rewrite(name, bytes, &hashed.renames);
    let text =
        |bytes: Vec<u8>| String::from_utf8(bytes).map_err(|_| format!("{name} is not UTF-8 text"));
    if name.ends_with(".html") {
        bytes = drop_stale_integrity(&text(bytes)?, &hashed.rewritten).into_bytes();
    }
    if name == SERVICE_WORKER {
        let assets: Vec<&String> = hashed.renames.values().collect();
        let pages: Vec<&String> = pages.iter().collect();
        bytes = write_precache(&text(bytes)?, &assets, &pages)?.into_bytes();
    }
    Ok(bytes)
}

/// Assets with their final names and contents.
#[derive(Debug)]
struct Hashed {
    /// Old name to new name.
    renames: BTreeMap<String, String>,
    /// New name to final content.
    files: BTreeMap<String, Vec<u8>>,
    /// The new names of the assets whose bytes changed (a reference in them
    /// was rewritten).
    rewritten: BTreeSet<String>,
}

/// Renames every asset after its content, each once every asset it names
/// has its final name. Assets that name each other in a cycle cannot be
/// ordered: that is an error naming them.
fn hash_assets(mut pending: BTreeMap<String, Vec<u8>>) -> Result<Hashed, String> {
    let names: BTreeSet<String> = pending.keys().cloned().collect();
    let named: BTreeMap<String, BTreeSet<String>> = pending
        .iter()
        .map(|(name, bytes)| (name.clone(), references(name, bytes, &names)))
        .collect();
    let mut done = Hashed {
        renames: BTreeMap::new(),
        files: BTreeMap::new(),
        rewritten: BTreeSet::new(),
    };
    while !pending.is_empty() {
        let ready: Vec<String> = pending
            .keys()
            .filter(|name| named[*name].iter().all(|n| done.renames.contains_key(n)))
            .cloned()
            .collect();
        if ready.is_empty() {
            return Err(format!(
                "these files name each other, so none can be hashed before the others: {}",
                join(pending.keys())
            ));
        }
        for name in ready {
            let before = pending.remove(&name).unwrap_or_default();
            let bytes = rewrite(&name, before.clone(), &done.renames);
            let new = hashed_name(&name, &bytes);
            if bytes != before {
                done.rewritten.insert(new.clone());
            }
            done.renames.insert(name, new.clone());
            done.files.insert(new, bytes);
        }
    }
    Ok(done)
}

/// `NAME-<hash>.EXT` for `name` (`NAME.EXT`) holding `bytes`. A name
/// without an extension gets the hash at its end.
pub fn hashed_name(name: &str, bytes: &[u8]) -> String {
    let hash = &sha256::hex(bytes)[..HASH_DIGITS];
    match name.rsplit_once('.') {
        Some((stem, extension)) if !stem.is_empty() => format!("{stem}-{hash}.{extension}"),
        _ => format!("{name}-{hash}"),
    }
}

/// Whether a file name carries a content hash as [`hashed_name`] writes it
/// (`NAME-<16 hex digits>` before the extension, or before `_` as trunk's
/// own `filehash` writes `NAME-<hash>_bg.wasm`): such a file never changes
/// under its name.
pub fn is_hashed(name: &str) -> bool {
    // Bytes, not text: a name may have any characters around the hash.
    let bytes = name.as_bytes();
    bytes.iter().enumerate().any(|(at, &byte)| {
        let rest = &bytes[at + 1..];
        byte == b'-'
            && rest.len() >= HASH_DIGITS
            && is_hash(&rest[..HASH_DIGITS])
            && (rest.len() == HASH_DIGITS || matches!(rest[HASH_DIGITS], b'.' | b'_'))
    })
}

/// Whether `text` is a hash as a name carries it: [`HASH_DIGITS`] hex digits.
fn is_hash(text: &[u8]) -> bool {
    text.len() == HASH_DIGITS && text.iter().all(u8::is_ascii_hexdigit)
}

/// The file in the built site `dir` that was `name` before hashing: `name`
/// itself in a site built without hashing, or its one hashed version.
pub fn find(dir: &Path, name: &str) -> Result<PathBuf, String> {
    let plain = dir.join(name);
    if plain.is_file() {
        return Ok(plain);
    }
    let (stem, extension) = name.rsplit_once('.').unwrap_or((name, ""));
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    let found: Vec<String> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|candidate| {
            candidate
                .strip_prefix(stem)
                .and_then(|rest| rest.strip_prefix('-'))
                .and_then(|rest| rest.strip_suffix(extension))
                .is_some_and(|hash| is_hash(hash.strip_suffix('.').unwrap_or(hash).as_bytes()))
        })
        .collect();
    match found.as_slice() {
        [one] => Ok(dir.join(one)),
        [] => Err(format!("{} has no {name}, hashed or not", dir.display())),
        many => Err(format!(
            "{} has several versions of {name}: {}",
            dir.display(),
            join(many)
        )),
    }
}

/// Writes the service worker's list of pages of the built (hashed) site in
/// `dir` again, as [`hash_site`] makes it: every page at its top level and
/// every file in [`TEMPLATES`]; its assets stay as they were. For pages
/// written after the build (a site's own exercises', `cargo xtask
/// site-pages`), and those removed since.
pub fn list_pages(dir: &Path) -> Result<(), String> {
    let path = dir.join(SERVICE_WORKER);
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let assets = listed(&text, ASSETS_LINE)?;
    let pages = page_names(dir)?;
    let assets: Vec<&String> = assets.iter().collect();
    let pages: Vec<&String> = pages.iter().collect();
    write(&path, write_precache(&text, &assets, &pages)?.as_bytes())
}

/// The names of a precache list line of sw.js as [`write_precache`] wrote
/// it (`const ASSETS = ["./a", "./b"];`).
fn listed(service_worker: &str, start: &str) -> Result<Vec<String>, String> {
    let line = service_worker
        .lines()
        .find(|line| line.starts_with(start))
        .ok_or_else(|| format!("{SERVICE_WORKER} has no line starting `{start}`"))?;
    let inside = line
        .strip_prefix(start)
        .and_then(|rest| rest.strip_suffix("];"))
        .and_then(|rest| rest.strip_prefix('['))
        .ok_or_else(|| format!("{SERVICE_WORKER}'s `{start}` line is not a list"))?;
    inside
        .split(", ")
        .filter(|item| !item.is_empty())
        .map(|item| {
            item.strip_prefix("\"./")
                .and_then(|name| name.strip_suffix('"'))
                .map(str::to_string)
                .ok_or_else(|| format!("{SERVICE_WORKER} lists `{item}`, not a name of this site"))
        })
        .collect()
}

/// Writes this build's cache name and precache lists into the service
/// worker's text: the `const CACHE = ...;`, `const ASSETS = ...;` and
/// `const PAGES = ...;` lines are replaced whole. ASSETS are the hashed
/// files, PAGES the addresses that keep their names (index.html, each
/// prerendered exercise's page, the bundled files in [`TEMPLATES`]), so
/// every exercise's own address and every template opens offline once the
/// site was visited.
/// The cache is named after both lists, so a new build (new names) is a new
/// cache, and sw.js drops the old one.
pub fn write_precache(
    service_worker: &str,
    assets: &[&String],
    pages: &[&String],
) -> Result<String, String> {
    let quoted = |names: &[&String]| -> Vec<String> {
        names.iter().map(|name| format!("\"./{name}\"")).collect()
    };
    let (assets, pages) = (quoted(assets), quoted(pages));
    let digest = sha256::hex(
        [assets.join("\n"), pages.join("\n")]
            .join("\n\n")
            .as_bytes(),
    );
    let written = [
        (
            CACHE_LINE,
            format!("{CACHE_LINE}\"{CACHE_PREFIX}{}\";", &digest[..HASH_DIGITS]),
        ),
        (
            ASSETS_LINE,
            format!("{ASSETS_LINE}[{}];", assets.join(", ")),
        ),
        (PAGES_LINE, format!("{PAGES_LINE}[{}];", pages.join(", "))),
    ];
    let mut found = [false; 3];
    let lines: Vec<&str> = service_worker
        .lines()
        .map(|line| {
            let hit = written
                .iter()
                .position(|(start, _)| line.starts_with(start) && line.ends_with(';'));
            match hit {
                Some(i) if !found[i] => {
                    found[i] = true;
                    written[i].1.as_str()
                }
                _ => line,
            }
        })
        .collect();
    if found != [true; 3] {
        return Err(format!(
            "{SERVICE_WORKER} must have a line starting `{CACHE_LINE}`, one starting \
             `{ASSETS_LINE}` and one starting `{PAGES_LINE}`, each ending in `;`: \
             the build writes them"
        ));
    }
    Ok(lines.join("\n") + "\n")
}

/// Every regular file at the top of `dir` (folders such as `exercises/`
/// are the site's data, not assets), by name.
fn read_top_level(dir: &Path) -> Result<BTreeMap<String, Vec<u8>>, String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    let mut files = BTreeMap::new();
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        if !path.is_file() {
            continue;
        }
        let name = entry.file_name().to_string_lossy().into_owned();
        let bytes =
            std::fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        files.insert(name, bytes);
    }
    Ok(files)
}

/// The addresses of the site in `dir` that keep their names and the
/// service worker precaches with its assets: every page at its top level
/// (index.html, each exercise's), then every file in [`TEMPLATES`].
fn page_names(dir: &Path) -> Result<Vec<String>, String> {
    let mut pages: Vec<String> = file_names(dir)?
        .into_iter()
        .filter(|name| name.ends_with(".html"))
        .collect();
    pages.extend(
        file_names(&dir.join(TEMPLATES))?
            .into_iter()
            .map(|name| format!("{TEMPLATES}/{name}")),
    );
    Ok(pages)
}

/// The name of every regular file in `folder`, sorted; none when there is
/// no such folder.
fn file_names(folder: &Path) -> Result<Vec<String>, String> {
    if !folder.is_dir() {
        return Ok(Vec::new());
    }
    let entries =
        std::fs::read_dir(folder).map_err(|e| format!("cannot read {}: {e}", folder.display()))?;
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .filter(|entry| entry.path().is_file())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    Ok(names)
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), String> {
    std::fs::write(path, bytes).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

fn join<T: AsRef<str>>(names: impl IntoIterator<Item = T>) -> String {
    names
        .into_iter()
        .map(|n| n.as_ref().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scratch site shaped like trunk's output.
    fn site(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("xtask-hashed-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("exercises")).unwrap();
        std::fs::create_dir_all(dir.join(TEMPLATES)).unwrap();
        let files: &[(&str, &str)] = &[
            (
                "index.html",
                "<link rel=\"stylesheet\" href=\"/style.css\" integrity=\"sha384-old\"/>\
                 <link rel=\"modulepreload\" href=\"./app.js\" />\
                 <script type=\"module\" src=\"./boot.js\"></script>\
                 <script defer src=\"./editor.js\" integrity=\"sha384-same\"></script>",
            ),
            (
                "claim.html",
                "<script type=\"module\" src=\"./boot.js\"></script>",
            ),
            (
                "boot.js",
                "import init from \"./app.js\";\nfetch(\"./app_bg.wasm\");\n\
                 new Worker(\"./worker_loader.js\", { name: \"./catalog.json\" });\n\
                 n.style.cssText = 1;\n",
            ),
            // Lesson prose may quote a file's name: data, never rewritten.
            ("catalog.json", "[{\"story\": \"(./boot.js)\"}]"),
            (
                "app.js",
                "new URL('app_bg.wasm', import.meta.url); // not my-app.js\n",
            ),
            ("app_bg.wasm", "\0asm app"),
            (
                "worker_loader.js",
                "import init from './worker.js';await init();",
            ),
            ("worker.js", "new URL('worker_bg.wasm', import.meta.url);"),
            ("worker_bg.wasm", "\0asm worker"),
            (
                "style.css",
                "/* colours as in web/editor/editor.js) */ body { background: url(\"bg.png\"); }",
            ),
            ("editor.js", "window.editor = 1;"),
            ("bg.png", "PNG"),
            (
                "sw.js",
                "// the build writes:\nconst CACHE = \"fencelab-dev\";\nconst ASSETS = [];\nconst PAGES = [];\n\
                 fetch(\"./index.html\");\n",
            ),
            ("embed.js", "new URL(\"./\", import.meta.url);"),
            ("exercises/index.toml", "format = 1\n"),
            ("templates/01-claim.toml", "id = \"claim\"\n"),
        ];
        for (name, text) in files {
            std::fs::write(dir.join(name), text).unwrap();
        }
        dir
    }

    fn read(dir: &Path, name: &str) -> String {
        std::fs::read_to_string(dir.join(name)).unwrap()
    }

    #[test]
    fn every_asset_is_renamed_after_its_content_and_every_reference_follows() {
        let dir = site("rename");
        let renames = hash_site(&dir).unwrap();
        let old: Vec<&str> = renames.keys().map(String::as_str).collect();
        assert_eq!(
            old,
            [
                "app.js",
                "app_bg.wasm",
                "bg.png",
                "boot.js",
                "catalog.json",
                "editor.js",
                "style.css",
                "worker.js",
                "worker_bg.wasm",
                "worker_loader.js"
            ]
        );
        for (old, new) in &renames {
            assert!(is_hashed(new), "{new}");
            assert!(!dir.join(old).exists(), "{old} is gone");
            let bytes = std::fs::read(dir.join(new)).unwrap();
            assert_eq!(new, &hashed_name(old, &bytes), "named after what it holds");
        }
        assert_eq!(
            renames["app_bg.wasm"],
            format!("app_bg-{}.wasm", &sha256::hex(b"\0asm app")[..16])
        );
        let boot = read(&dir, &renames["boot.js"]);
        for name in ["app.js", "app_bg.wasm", "worker_loader.js", "catalog.json"] {
            assert!(boot.contains(&format!("\"./{}\"", renames[name])), "{boot}");
        }
        assert_eq!(
            read(&dir, &renames["catalog.json"]),
            "[{\"story\": \"(./boot.js)\"}]",
            "the catalogue's prose is data, not references"
        );
        assert!(boot.contains("n.style.cssText"), "not a reference: {boot}");
        let app = read(&dir, &renames["app.js"]);
        assert!(
            app.contains(&format!("'{}'", renames["app_bg.wasm"])),
            "{app}"
        );
        assert!(app.contains("not my-app.js"), "{app}");
        let loader = read(&dir, &renames["worker_loader.js"]);
        assert!(loader.contains(&format!("'./{}'", renames["worker.js"])));
        let worker = read(&dir, &renames["worker.js"]);
        assert!(worker.contains(&format!("'{}'", renames["worker_bg.wasm"])));
        let css = read(&dir, &renames["style.css"]);
        assert!(css.contains(&format!("url(\"{}\")", renames["bg.png"])));
        assert!(
            css.contains("web/editor/editor.js)"),
            "a path, not a reference: {css}"
        );

        let page = read(&dir, "index.html");
        for name in ["style.css", "app.js", "boot.js", "editor.js"] {
            assert!(page.contains(&renames[name]), "{page}");
        }
        // style.css's bytes changed (bg.png's name), so trunk's integrity
        // for it would refuse it; editor.js's did not, and it keeps its.
        assert!(
            page.contains(&format!("href=\"/{}\"/>", renames["style.css"])),
            "{page}"
        );
        assert!(!page.contains("sha384-old"), "{page}");
        assert!(page.contains("integrity=\"sha384-same\""), "{page}");
        assert_eq!(read(&dir, "embed.js"), "new URL(\"./\", import.meta.url);");
        assert_eq!(read(&dir, "exercises/index.toml"), "format = 1\n");
        assert_eq!(read(&dir, "templates/01-claim.toml"), "id = \"claim\"\n");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_service_worker_precaches_this_builds_names_in_a_cache_of_its_own() {
        let dir = site("sw");
        let renames = hash_site(&dir).unwrap();
        let sw = read(&dir, "sw.js");
        let line = sw.lines().find(|l| l.starts_with(ASSETS_LINE)).unwrap();
        for new in renames.values() {
            assert!(line.contains(&format!("\"./{new}\"")), "{line}");
        }
        assert!(sw.contains("fetch(\"./index.html\")"), "{sw}");
        let pages = sw.lines().find(|l| l.starts_with(PAGES_LINE)).unwrap();
        assert_eq!(
            pages,
            "const PAGES = [\"./claim.html\", \"./index.html\", \"./templates/01-claim.toml\"];"
        );
        let cache = sw.lines().find(|l| l.starts_with(CACHE_LINE)).unwrap();
        assert!(cache.starts_with("const CACHE = \"fencelab-"), "{cache}");
        assert_ne!(cache, "const CACHE = \"fencelab-dev\";");

        // A change anywhere below boot.js renames boot.js and the cache.
        let again = site("sw-changed");
        std::fs::write(again.join("worker_bg.wasm"), "\0asm worker, changed").unwrap();
        let changed = hash_site(&again).unwrap();
        assert_eq!(renames["app.js"], changed["app.js"], "unchanged, same name");
        for name in ["worker_bg.wasm", "worker.js", "worker_loader.js", "boot.js"] {
            assert_ne!(renames[name], changed[name], "{name}");
        }
        let other = read(&again, "sw.js");
        let other_cache = other.lines().find(|l| l.starts_with(CACHE_LINE)).unwrap();
        assert_ne!(cache, other_cache);
        let _ = std::fs::remove_dir_all(&dir);
        let _ = std::fs::remove_dir_all(&again);
    }

    #[test]
    fn pages_written_after_the_build_are_precached_and_removed_ones_are_not() {
        let dir = site("pages-later");
        hash_site(&dir).unwrap();
        let before = read(&dir, "sw.js");
        let line = |sw: &str, start: &str| {
            sw.lines()
                .find(|l| l.starts_with(start))
                .unwrap()
                .to_string()
        };
        std::fs::write(dir.join("my-course-claim.html"), "<p>mine</p>").unwrap();
        list_pages(&dir).unwrap();
        let after = read(&dir, "sw.js");
        assert_eq!(
            line(&after, ASSETS_LINE),
            line(&before, ASSETS_LINE),
            "the assets are as built"
        );
        assert_eq!(
            line(&after, PAGES_LINE),
            "const PAGES = [\"./claim.html\", \"./index.html\", \"./my-course-claim.html\", \
             \"./templates/01-claim.toml\"];"
        );
        assert_ne!(
            line(&after, CACHE_LINE),
            line(&before, CACHE_LINE),
            "a cache of its own"
        );
        std::fs::remove_file(dir.join("my-course-claim.html")).unwrap();
        list_pages(&dir).unwrap();
        assert_eq!(read(&dir, "sw.js"), before, "as the build wrote it");
        std::fs::write(dir.join("sw.js"), "const ASSETS = 3;\nconst PAGES = [];\n").unwrap();
        let error = list_pages(&dir).unwrap_err();
        assert!(error.contains("not a list"), "{error}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_same_build_gets_the_same_names() {
        let (one, two) = (site("same-1"), site("same-2"));
        assert_eq!(hash_site(&one).unwrap(), hash_site(&two).unwrap());
        assert_eq!(read(&one, "sw.js"), read(&two, "sw.js"));
        let _ = std::fs::remove_dir_all(&one);
        let _ = std::fs::remove_dir_all(&two);
    }

    #[test]
    fn what_cannot_be_hashed_is_a_sentence() {
        let dir = site("cycle");
        std::fs::write(dir.join("worker.js"), "import './worker_loader.js';").unwrap();
        let error = hash_site(&dir).unwrap_err();
        assert!(
            error.contains("name each other") && error.contains("worker.js, worker_loader.js"),
            "{error}"
        );
        assert!(dir.join("worker.js").exists(), "nothing was renamed");

        let dir = site("twice");
        hash_site(&dir).unwrap();
        assert!(
            hash_site(&dir)
                .unwrap_err()
                .contains("already holds hashed names")
        );

        let dir = site("no-lines");
        std::fs::write(dir.join("sw.js"), "const APP = [];\n").unwrap();
        assert!(hash_site(&dir).unwrap_err().contains("const ASSETS = "));
        assert!(dir.join("boot.js").exists(), "nothing was renamed");
    }

    #[test]
    fn hashed_names_are_recognised_and_found_again() {
        let dir = site("find");
        let renames = hash_site(&dir).unwrap();
        for (old, new) in &renames {
            assert_eq!(find(&dir, old).unwrap(), dir.join(new), "{old}");
        }
        assert_eq!(find(&dir, "index.html").unwrap(), dir.join("index.html"));
        assert!(
            find(&dir, "nothing.js")
                .unwrap_err()
                .contains("no nothing.js")
        );
        // app.js is not app_bg.wasm's or anything else's prefix match.
        assert!(!renames["app.js"].contains("_bg"));

        assert!(is_hashed("fencelab-web-0123456789abcdef_bg.wasm"));
        assert!(is_hashed("worker_bg-0123456789abcdef.wasm"));
        assert!(is_hashed("LICENSE-0123456789abcdef"));
        for plain in [
            "sw.js",
            "fencelab-web_bg.wasm",
            "my-course-claim.toml",
            "a-0123456789abcde.js",
            "a-0123456789abcdefg.js",
            "a-ééééééééé.js",
            "é-",
        ] {
            assert!(!is_hashed(plain), "{plain}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
