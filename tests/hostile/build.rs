//! Embeds every case file under cases/ into the library, so the corpus runs
//! the same way natively and in wasm (which has no file system).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let cases = root.join("cases");
    println!("cargo:rerun-if-changed={}", cases.display());
    let mut files = Vec::new();
    collect(&cases, &mut files);
    files.sort();
    let mut out = String::from(
        "/// Every case file: its path under cases/ and its text.\npub const CASES: &[(&str, &str)] = &[\n",
    );
    for file in &files {
        println!("cargo:rerun-if-changed={}", file.display());
        let name = file
            .strip_prefix(&cases)
            .expect("collected under cases/")
            .to_string_lossy()
            .replace('\\', "/");
        writeln!(
            out,
            "    ({name:?}, include_str!({:?})),",
            file.display().to_string()
        )
        .expect("writing to a string");
    }
    out.push_str("];\n");
    let dest = PathBuf::from(std::env::var("OUT_DIR").expect("set by cargo")).join("cases.rs");
    std::fs::write(dest, out).expect("OUT_DIR is writable");
}

fn collect(dir: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            println!("cargo:rerun-if-changed={}", path.display());
            collect(&path, files);
        } else if path.extension().is_some_and(|e| e == "toml") {
            files.push(path);
        }
    }
}
