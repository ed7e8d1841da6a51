//! What the first load of the built playground weighs, and the layering
//! check on it: the page's own wasm must not contain SQLite (only the
//! worker runs the engine). Reads `dist/`, which the trunk stage writes.

use std::path::Path;
use std::process::{Command, Stdio};

/// Strings that only SQLite's own code carries. Finding one in the page's
/// wasm means the main thread linked the engine again.
const SQLITE_MARKERS: &[&str] = &["sqlite_schema", "SQLite format 3"];

/// The files a first visit downloads before its first verdict.
const FIRST_LOAD: &[&str] = &[
    "index.html",
    "fencelab-web.js",
    "fencelab-web_bg.wasm",
    "worker_loader.js",
    "worker.js",
    "worker_bg.wasm",
    "editor.js",
    "boot.js",
    "style.css",
];

/// Prints each first-load file's raw and gzip -9 size, and fails if the
/// page's wasm contains SQLite.
pub fn report(root: &Path) -> Result<(), String> {
    let dist = root.join("dist");
    let mut total_raw = 0u64;
    let mut total_gzip = 0u64;
    println!("xtask: first load, from {}", dist.display());
    println!("  {:<24} {:>10} {:>10}", "file", "raw bytes", "gzip -9");
    for name in FIRST_LOAD {
        let path = dist.join(name);
        let Ok(bytes) = std::fs::read(&path) else {
            println!("  {name:<24} {:>10}", "missing");
            continue;
        };
        let gzip = gzip_len(&path)?;
        total_raw += bytes.len() as u64;
        total_gzip += gzip;
        println!("  {name:<24} {:>10} {gzip:>10}", bytes.len());
    }
    println!("  {:<24} {total_raw:>10} {total_gzip:>10}", "total");
    let page = dist.join("fencelab-web_bg.wasm");
    let wasm = std::fs::read(&page)
        .map_err(|e| format!("cannot read {} (build the site first): {e}", page.display()))?;
    let found: Vec<&str> = SQLITE_MARKERS
        .iter()
        .copied()
        .filter(|marker| contains(&wasm, marker.as_bytes()))
        .collect();
    if found.is_empty() {
        println!("xtask: the page's wasm contains no SQLite");
        Ok(())
    } else {
        Err(format!(
            "the page's wasm ({}) contains SQLite ({}): the main thread must link \
             fencelab-model only, and leave the engine to the worker",
            page.display(),
            found.join(", ")
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
