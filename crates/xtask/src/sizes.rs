//! What the first load of the built playground weighs, and the layering
//! checks on it: the page's own wasm must not contain SQLite (only the
//! worker runs the engine), and neither the page's nor the checking
//! worker's a TOML parser (the exercise reader, web/reader, reads every
//! text, fetched only when one needs it: checked on the dependency graphs
//! the two are built with, and on the built files) or a Markdown parser
//! (the loader renders an exercise's prose: checked on the graphs); and the
//! editor's split: what an editor can do without for its first moment
//! (web/editor/extras.js) is in none of the files a first edit waits for.
//! Reads `dist/`, which the trunk stage writes.
//! Sizes are raw, gzip -9 and brotli (quality 11, through Node's zlib:
//! xtask has no dependencies), the two encodings a server may send.

use crate::bench::Figure;
use crate::hashed;
use std::path::Path;
use std::process::{Command, Stdio};

/// Strings that only SQLite's own code carries. Finding one in the page's
/// wasm means the main thread linked the engine again.
const SQLITE_MARKERS: &[&str] = &["sqlite_schema", "SQLite format 3"];

/// Strings that only the toml crate's parser carries (its own error
/// sentences: the reader's wasm, which links it, must hold every one, or
/// the list is stale). Finding one in the page's or the checking worker's
/// wasm means it links a TOML parser again.
const TOML_MARKERS: &[&str] = &[
    "missing assignment between key-value pairs",
    "carriage return must be followed by newline",
    "integers with a radix cannot be signed",
];

/// The page's two apps' wasm files in `dist`, one package's two binaries:
/// the playground and the authoring view (`?author=1`), one of which
/// web/boot.js starts by the address. What runs on the main thread.
const PAGE_WASMS: &[&str] = &["fencelab-web_bg.wasm", "fencelab-author_bg.wasm"];

/// The packages that must link no TOML or Markdown parser (the page and
/// the checking worker), with the names of their wasm files in `dist`, and
/// the target trunk builds them for.
const WITHOUT_PARSERS: &[(&str, &[&str])] = &[
    ("fencelab-web", PAGE_WASMS),
    ("fencelab-worker", &["worker_bg.wasm"]),
];
const WASM_TARGET: &str = "wasm32-unknown-unknown";
/// The exercise reader's wasm, which links the TOML parser.
const READER_WASM: &str = "reader_bg.wasm";

/// When a file is fetched, in that order.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Needed {
    /// Before the first view: a prerendered page shows its verdicts with
    /// the page, its stylesheet and its two head scripts (first-paint.js,
    /// and start-worker.js, which the parser waits for too).
    FirstView,
    /// Before the first edit is checked.
    FirstEdit,
    /// On every first visit, but asked for only once the page is idle after
    /// its first editor exists (the editor's extras, web/editor/extras.js):
    /// in the third total only.
    AfterEditor,
    /// Only when asked for: the exercise reader when a text needs the TOML
    /// loader (a site's own exercises, an exercise link, the authoring
    /// view), the authoring view's own app at `?author=1`: in no total.
    OnDemand,
}

/// The files the playground fetches, by their names before hashing (the
/// table keeps them from build to build), and when.
const FILES: &[(&str, Needed)] = &[
    ("index.html", Needed::FirstView),
    ("style.css", Needed::FirstView),
    ("first-paint.js", Needed::FirstView),
    ("start-worker.js", Needed::FirstView),
    ("boot.js", Needed::FirstEdit),
    ("fencelab-web.js", Needed::FirstEdit),
    ("fencelab-web_bg.wasm", Needed::FirstEdit),
    ("worker_loader.js", Needed::FirstEdit),
    ("worker.js", Needed::FirstEdit),
    ("worker_bg.wasm", Needed::FirstEdit),
    ("editor.js", Needed::FirstEdit),
    ("editor-chunk.js", Needed::FirstEdit),
    ("editor-extras.js", Needed::AfterEditor),
    ("catalog.json", Needed::FirstEdit),
    ("reader_loader.js", Needed::OnDemand),
    ("reader.js", Needed::OnDemand),
    ("reader_bg.wasm", Needed::OnDemand),
    ("fencelab-author.js", Needed::OnDemand),
    ("fencelab-author_bg.wasm", Needed::OnDemand),
];
/// The three totals' rows.
const VIEW_TOTAL: &str = "total before the first verdicts are shown";
const EDIT_TOTAL: &str = "total before the first edit is checked";
const VISIT_TOTAL: &str = "total of a first visit to a bundled exercise";

/// Strings only the editor's extras carry (completion's, search's and
/// lint's class names and phrases, the SQLite grammar's keyword list): the
/// parts of the editor a first edit waits for must hold none, and the
/// extras every one (else the markers are stale).
const EXTRAS_MARKERS: &[&str] = &[
    "cm-completionMatchedText",
    "replace all",
    "cm-lintRange",
    "autoincrement conflict database detach",
];
/// The editor's parts a first edit waits for, and its extras.
const EDITOR_FIRST: &[&str] = &["editor.js", "editor-chunk.js"];
const EDITOR_EXTRAS: &str = "editor-extras.js";

/// What one first-load file weighs, in bytes.
struct Weight {
    name: &'static str,
    needed: Needed,
    raw: u64,
    gzip: u64,
    brotli: u64,
}

/// The weight of every first-load file present in `dist`.
fn weigh(dist: &Path) -> Result<Vec<Weight>, String> {
    let mut weights = Vec::new();
    for &(name, needed) in FILES {
        // The name before hashing: the file is whichever version is there.
        let Ok(path) = hashed::find(dist, name) else {
            println!("  {name:<42} missing");
            continue;
        };
        let meta =
            std::fs::metadata(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        weights.push(Weight {
            name,
            needed,
            raw: meta.len(),
            gzip: gzip_len(&path)?,
            brotli: brotli_len(&path)?,
        });
    }
    Ok(weights)
}

/// Prints each first-load file's raw, gzip -9 and brotli size, and fails if
/// the page's wasm contains SQLite.
pub fn report(root: &Path) -> Result<(), String> {
    let dist = root.join("dist");
    println!("xtask: first load, from {}", dist.display());
    println!(
        "  {:<42} {:>10} {:>10} {:>10}",
        "file", "raw bytes", "gzip -9", "brotli"
    );
    let weights = weigh(&dist)?;
    for w in &weights {
        println!(
            "  {:<42} {:>10} {:>10} {:>10}",
            w.name, w.raw, w.gzip, w.brotli
        );
    }
    for (row, (raw, gzip, brotli)) in totals(&weights) {
        println!("  {row:<42} {raw:>10} {gzip:>10} {brotli:>10}");
    }
    let failures: Vec<String> = [
        no_sqlite_in_page(&dist),
        no_parser_in_graphs(root),
        toml_only_in_reader(&dist),
        no_bundled_files_in_page(root, &dist),
        no_catalogue_in_wasm(&dist),
        extras_only_in_extras(&dist),
    ]
    .into_iter()
    .filter_map(Result::err)
    .collect();
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("\n"))
    }
}

/// The `first load` section of `cargo xtask bench`: a row per file and the
/// three totals, in columns raw / gzip -9 / brotli.
pub fn figures(root: &Path) -> Result<Vec<Figure>, String> {
    let weights = weigh(&root.join("dist"))?;
    let rows = weights
        .iter()
        .map(|w| (w.name, (w.raw, w.gzip, w.brotli)))
        .chain(totals(&weights));
    let mut figures = Vec::new();
    for (name, (raw, gzip, brotli)) in rows {
        for (column, bytes) in [("raw", raw), ("gzip -9", gzip), ("brotli", brotli)] {
            figures.push(Figure::new(
                "first load",
                name,
                column,
                bytes.to_string(),
                "B",
            ));
        }
    }
    Ok(figures)
}

/// The bytes before the first view, before the first edit, and of the
/// whole first visit: raw, gzip and brotli.
fn totals(weights: &[Weight]) -> [(&'static str, (u64, u64, u64)); 3] {
    let sum = |upto: Needed| {
        weights
            .iter()
            .filter(|w| w.needed != Needed::OnDemand && w.needed <= upto)
            .fold((0, 0, 0), |(r, g, b), w| {
                (r + w.raw, g + w.gzip, b + w.brotli)
            })
    };
    [
        (VIEW_TOTAL, sum(Needed::FirstView)),
        (EDIT_TOTAL, sum(Needed::FirstEdit)),
        (VISIT_TOTAL, sum(Needed::AfterEditor)),
    ]
}

/// The built file trunk calls `name` in `dist` (its path), and which of
/// `markers` its bytes hold.
fn markers_found(
    dist: &Path,
    name: &str,
    markers: &[&'static str],
) -> Result<(std::path::PathBuf, Vec<&'static str>), String> {
    let (path, bytes) = built(dist, name)?;
    let found = markers
        .iter()
        .copied()
        .filter(|marker| contains(&bytes, marker.as_bytes()))
        .collect();
    Ok((path, found))
}

/// The built file trunk calls `name` in `dist`: its path and its bytes.
fn built(dist: &Path, name: &str) -> Result<(std::path::PathBuf, Vec<u8>), String> {
    let path = hashed::find(dist, name).map_err(|e| format!("{e} (build the site first)"))?;
    let bytes = std::fs::read(&path)
        .map_err(|e| format!("cannot read {} (build the site first): {e}", path.display()))?;
    Ok((path, bytes))
}

/// Fails if either of the page's wasm files in `dist` contains SQLite's
/// own strings.
fn no_sqlite_in_page(dist: &Path) -> Result<(), String> {
    let mut failures = Vec::new();
    for name in PAGE_WASMS {
        let (page, found) = markers_found(dist, name, SQLITE_MARKERS)?;
        if !found.is_empty() {
            failures.push(format!(
                "the page's wasm ({}) contains SQLite ({}): the main thread must link \
                 fencelab-model only, and leave the engine to the worker",
                page.display(),
                found.join(", ")
            ));
        }
    }
    if failures.is_empty() {
        println!("xtask: neither of the page's wasm files contains SQLite");
        Ok(())
    } else {
        Err(failures.join("\n"))
    }
}

/// What a package is, if it is one the page and the worker must not link:
/// a TOML parser (`toml` and its parts, `toml_parser`, `toml_edit`...;
/// another crate named after the format, `basic-toml`, `taplo`), a Markdown
/// parser (`pulldown-cmark` and its parts, `comrak`, `markdown`), or the
/// PostgreSQL engine and its client (`fencelab-postgres`, `postgres`,
/// `tokio-postgres`, `postgres-protocol`, `postgres-types`): native only.
fn unwanted_in_page(name: &str) -> Option<&'static str> {
    if name == "fencelab-postgres"
        || name == "postgres"
        || name.starts_with("postgres-")
        || name == "tokio-postgres"
    {
        return Some("PostgreSQL engine");
    }
    let toml = name == "toml"
        || name.starts_with("toml_")
        || name.starts_with("toml-")
        || name.ends_with("-toml")
        || name.ends_with("_toml")
        || name == "taplo";
    let markdown = name.starts_with("pulldown-cmark") || name == "comrak" || name == "markdown";
    if toml {
        Some("TOML")
    } else if markdown {
        Some("Markdown")
    } else {
        None
    }
}

/// Fails if the dependency graph the page or the checking worker is built
/// with holds a TOML or Markdown parser, or the PostgreSQL engine.
fn no_parser_in_graphs(root: &Path) -> Result<(), String> {
    let failures: Vec<String> = WITHOUT_PARSERS
        .iter()
        .filter_map(|(package, _)| no_parser_in_graph(root, package).err())
        .collect();
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("\n"))
    }
}

/// Fails if the dependency graph `package` is built with (its normal
/// dependencies for wasm32, with its default features, as trunk builds it,
/// but not what its proc-macros use at build time) holds a TOML or Markdown
/// parser: the model's `toml` or `markdown` feature, or the core's
/// `loader`, switched on again by a crate it links.
fn no_parser_in_graph(root: &Path, package: &str) -> Result<(), String> {
    let output = Command::new("cargo")
        .args([
            "tree",
            "--locked",
            "-p",
            package,
            "--target",
            WASM_TARGET,
            // A proc-macro's own dependencies run on the host at build
            // time and link nothing into the wasm (yew's macros pull in
            // toml_edit through proc-macro-crate).
            "-e",
            "normal,no-proc-macro",
            "--prefix",
            "none",
            "--format",
            "{p}",
        ])
        .current_dir(root)
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot run cargo tree: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "cargo tree of {package} failed ({})",
            output.status
        ));
    }
    let tree = String::from_utf8_lossy(&output.stdout);
    let mut found: Vec<String> = tree
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .filter_map(|name| unwanted_in_page(name).map(|what| format!("{name} ({what})")))
        .collect();
    found.sort_unstable();
    found.dedup();
    if found.is_empty() {
        println!(
            "xtask: {package}'s dependency graph (wasm32) holds no TOML or Markdown parser \
             and no PostgreSQL client"
        );
        Ok(())
    } else {
        Err(format!(
            "{package} (built for {WASM_TARGET}) depends on {}: it must build fencelab-model \
             without its `toml` and `markdown` features, and fencelab-core without its \
             `loader`, and leave reading texts to the exercise reader, web/reader, and \
             PostgreSQL to the CLI (crates/postgres is native only) \
             (`cargo tree -p {package} --target {WASM_TARGET} -e normal -i PACKAGE` shows \
             who pulls it in)",
            found.join(", ")
        ))
    }
}

/// Fails if the page's or the checking worker's wasm in `dist` contains
/// the toml crate's own strings, or if the reader's lacks one (the markers
/// would no longer be the parser's).
fn toml_only_in_reader(dist: &Path) -> Result<(), String> {
    let markers_in = |name: &str| markers_found(dist, name, TOML_MARKERS);
    let mut failures = Vec::new();
    for (package, wasms) in WITHOUT_PARSERS {
        for wasm in *wasms {
            let (path, found) = markers_in(wasm)?;
            if found.is_empty() {
                println!("xtask: {package}'s {wasm} contains no TOML parser");
            } else {
                failures.push(format!(
                    "{package}'s wasm ({}) contains the toml crate's strings ({}): it must \
                     not link a TOML parser; the exercise reader reads every text",
                    path.display(),
                    found.join(", ")
                ));
            }
        }
    }
    let (path, found) = markers_in(READER_WASM)?;
    if found.len() == TOML_MARKERS.len() {
        println!("xtask: the exercise reader's wasm holds every string taken as toml's");
    } else {
        failures.push(format!(
            "the exercise reader's wasm ({}) holds {} of the {} strings taken as the toml \
             parser's: update TOML_MARKERS in crates/xtask/src/sizes.rs",
            path.display(),
            found.len(),
            TOML_MARKERS.len()
        ));
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("\n"))
    }
}

/// Fails if a part of the editor a first edit waits for holds one of the
/// extras' strings, or if the extras lack one (the markers would be stale).
fn extras_only_in_extras(dist: &Path) -> Result<(), String> {
    let markers_in = |name: &str| markers_found(dist, name, EXTRAS_MARKERS);
    let mut failures = Vec::new();
    for name in EDITOR_FIRST {
        let (path, found) = markers_in(name)?;
        if !found.is_empty() {
            failures.push(format!(
                "{} carries the editor's extras ({}): a first edit would wait for them; \
                 they belong in web/editor/extras.js, which editor.js imports later",
                path.display(),
                found.join(", ")
            ));
        }
    }
    let (path, found) = markers_in(EDITOR_EXTRAS)?;
    if found.len() != EXTRAS_MARKERS.len() {
        failures.push(format!(
            "the editor's extras ({}) hold {} of the {} strings taken as theirs: update \
             EXTRAS_MARKERS in crates/xtask/src/sizes.rs",
            path.display(),
            found.len(),
            EXTRAS_MARKERS.len()
        ));
    }
    if failures.is_empty() {
        println!("xtask: the editor a first edit waits for carries none of its extras");
        Ok(())
    } else {
        Err(failures.join("\n"))
    }
}

/// The folder of the bundled exercise files.
const BUNDLED: &str = "crates/model/exercises";
/// Lines of a bundled file's head looked for: its format, id and title
/// lines as TOML, which the loaded form the page carries never holds.
const HEAD_LINES: usize = 4;

/// Fails if either of the page's wasm files in `dist` carries a bundled
/// exercise file's text: the authoring view's templates fetch them from
/// `templates/`.
fn no_bundled_files_in_page(root: &Path, dist: &Path) -> Result<(), String> {
    let folder = root.join(BUNDLED);
    let entries =
        std::fs::read_dir(&folder).map_err(|e| format!("cannot read {}: {e}", folder.display()))?;
    let mut heads = Vec::new();
    for path in entries.filter_map(Result::ok).map(|entry| entry.path()) {
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let head: String = text.split_inclusive('\n').take(HEAD_LINES).collect();
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        heads.push((name.into_owned(), head));
    }
    let mut failures = Vec::new();
    for name in PAGE_WASMS {
        let (page, wasm) = built(dist, name)?;
        let mut found: Vec<&str> = heads
            .iter()
            .filter(|(_, head)| contains(&wasm, head.as_bytes()))
            .map(|(file, _)| file.as_str())
            .collect();
        if !found.is_empty() {
            found.sort_unstable();
            failures.push(format!(
                "the page's wasm ({}) carries bundled exercise files ({}): the authoring \
                 view fetches them from templates/ (web/src/author/templates.rs)",
                page.display(),
                found.join(", ")
            ));
        }
    }
    if failures.is_empty() {
        println!("xtask: neither of the page's wasm files carries a bundled exercise file");
        Ok(())
    } else {
        Err(failures.join("\n"))
    }
}

/// Bytes of the catalogue's start looked for in the wasm files.
const CATALOGUE_HEAD: usize = 512;

/// Fails if any wasm file of the page or its worker carries the bundled
/// exercises' loaded form, which the site serves once as catalog.json for
/// both to fetch (web/src/catalog.rs).
fn no_catalogue_in_wasm(dist: &Path) -> Result<(), String> {
    let catalogue = hashed::find(dist, "catalog.json")
        .and_then(|path| {
            std::fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))
        })
        .map_err(|e| format!("{e} (build the site first)"))?;
    let head = &catalogue[..catalogue.len().min(CATALOGUE_HEAD)];
    let mut found = Vec::new();
    for name in PAGE_WASMS.iter().chain(&["worker_bg.wasm"]) {
        let path = hashed::find(dist, name).map_err(|e| format!("{e} (build the site first)"))?;
        let wasm =
            std::fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        if contains(&wasm, head) {
            found.push(path.display().to_string());
        }
    }
    if found.is_empty() {
        println!("xtask: no wasm file of the page or its worker carries the catalogue");
        Ok(())
    } else {
        Err(format!(
            "{} {} the bundled exercises' loaded form, which the site serves once as \
             catalog.json for the page and its worker to fetch (web/src/catalog.rs)",
            found.join(" and "),
            if found.len() == 1 { "carries" } else { "carry" }
        ))
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

fn gzip_len(path: &Path) -> Result<u64, String> {
    let output = Command::new("gzip")
        .args(["-9", "-c"])
        .arg(path)
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot run gzip: {e}"))?;
    if !output.status.success() {
        return Err(format!("gzip failed on {}", path.display()));
    }
    Ok(output.stdout.len() as u64)
}

/// Brotli at quality 11 through Node's zlib (Node is installed for the
/// browser tests; xtask itself has no dependencies).
fn brotli_len(path: &Path) -> Result<u64, String> {
    const SCRIPT: &str = "const z = require('zlib'); \
        const data = require('fs').readFileSync(process.argv[1]); \
        const out = z.brotliCompressSync(data, { params: { \
          [z.constants.BROTLI_PARAM_QUALITY]: 11, \
          [z.constants.BROTLI_PARAM_SIZE_HINT]: data.length } }); \
        process.stdout.write(String(out.length));";
    let output = Command::new("node")
        .args(["-e", SCRIPT])
        .arg(path)
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot run node for brotli: {e}"))?;
    String::from_utf8_lossy(&output.stdout)
        .trim()
        .parse()
        .map_err(|_| format!("node could not brotli-compress {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::unwanted_in_page;

    #[test]
    fn the_crates_the_page_must_not_link_are_named_by_what_they_are() {
        for name in ["toml", "toml_edit", "toml-span", "basic-toml", "taplo"] {
            assert_eq!(unwanted_in_page(name), Some("TOML"), "{name}");
        }
        for name in ["pulldown-cmark", "pulldown-cmark-escape", "comrak"] {
            assert_eq!(unwanted_in_page(name), Some("Markdown"), "{name}");
        }
        for name in [
            "fencelab-postgres",
            "postgres",
            "tokio-postgres",
            "postgres-types",
        ] {
            assert_eq!(unwanted_in_page(name), Some("PostgreSQL engine"), "{name}");
        }
        for name in [
            "serde_json",
            "yew",
            "fencelab-model",
            "tomlish-not",
            "postgresql-ish",
        ] {
            assert_eq!(unwanted_in_page(name), None, "{name}");
        }
    }
}
