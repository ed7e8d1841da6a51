//! `cargo xtask tidy`: the checks that keep the map and the walls true by
//! themselves, read from the tree as text (rust-analyzer's `tidy.rs` is the
//! model):
//!
//! - every path docs/ARCHITECTURE.md names exists, and every
//!   "Architecture invariant" in it names the test that holds it
//!   (`invariants.rs`);
//! - crates/model and crates/core name no wall clock, file system, process,
//!   thread, network, environment or browser API in their sources, and no
//!   public function of the core gives a `String` as its error
//!   (`api_errors.rs`);
//! - no test is marked to expect a panic or to be skipped;
//! - every crate takes the workspace's lints, which deny unsafe code, and
//!   only a module (never a crate root) allows it;
//! - every npm package a script imports is declared in package.json;
//! - no function in crates/ or web/ runs over 80 lines (100 in a test)
//!   without a `// long:` comment saying why it cannot be split
//!   (`long_functions.rs`).
//!
//! Each check is a function of texts, tested here on small inputs; `run`
//! only gathers the texts (the files git knows, tracked or new) and prints
//! one line per problem, `file:line: what`. It never changes a file.

mod api_errors;
mod invariants;
mod long_functions;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

/// One thing tidy found wrong, placed where a reader can open it.
#[derive(Debug, PartialEq, Eq)]
pub struct Problem {
    pub file: String,
    /// 1-based; 0 when the problem is the file as a whole.
    pub line: usize,
    pub what: String,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.line == 0 {
            write!(f, "{}: {}", self.file, self.what)
        } else {
            write!(f, "{}:{}: {}", self.file, self.line, self.what)
        }
    }
}

/// Runs every check on the tree at `root`; prints each problem and a
/// summary line, and says whether there were none.
pub fn run(root: &Path) -> Result<bool, String> {
    let files = tree_files(root)?;
    let read = |path: &str| std::fs::read_to_string(root.join(path)).unwrap_or_default();
    let mut problems = Vec::new();

    let architecture = "docs/ARCHITECTURE.md";
    problems.extend(architecture_paths(
        architecture,
        &read(architecture),
        &files,
    ));
    let mut tests = BTreeSet::new();
    for file in files.iter().filter(|f| f.ends_with(".rs")) {
        let text = read(file);
        tests.extend(invariants::test_functions(&text));
        if is_pure_source(file) {
            problems.extend(impure_names(file, &text));
        }
        if api_errors::is_core_source(file) {
            problems.extend(api_errors::string_errors(file, &text));
        }
        problems.extend(skipped_tests(file, &text));
        problems.extend(unsafe_allowed_at_root(file, &text));
        if long_functions::is_measured(file) {
            problems.extend(long_functions::long_functions(file, &text));
        }
    }
    problems.extend(invariants::unheld_invariants(
        architecture,
        &read(architecture),
        &files,
        &tests,
    ));
    let manifest = read("Cargo.toml");
    problems.extend(workspace_lints("Cargo.toml", &manifest));
    for member in workspace_members(&manifest) {
        let path = format!("{member}/Cargo.toml");
        problems.extend(crate_lints(&path, &read(&path)));
    }
    let declared = npm_declared(&read("package.json"));
    for file in files.iter().filter(|f| is_script(f)) {
        problems.extend(undeclared_imports(file, &read(file), &declared));
    }

    for problem in &problems {
        println!("{problem}");
    }
    println!(
        "xtask: tidy read {} files: {} problem{}",
        files.len(),
        problems.len(),
        if problems.len() == 1 { "" } else { "s" }
    );
    Ok(problems.is_empty())
}

/// The files git knows below `root`: tracked, and new ones it does not
/// ignore, so a file added but not yet committed is checked too.
fn tree_files(root: &Path) -> Result<Vec<String>, String> {
    let output = Command::new("git")
        .args(["ls-files", "--cached", "--others", "--exclude-standard"])
        .current_dir(root)
        .output()
        .map_err(|e| format!("tidy needs git to list the tree: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "`git ls-files` failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    let text = String::from_utf8_lossy(&output.stdout);
    // A file deleted from the work tree but still in the index is gone.
    Ok(text
        .lines()
        .filter(|path| root.join(path).exists())
        .map(str::to_string)
        .collect())
}

// ---------------------------------------------------------------------------
// The map: every path docs/ARCHITECTURE.md names exists.

/// Path-like names the map uses for what is not a file of this repository:
/// a build's output or a hosted site's files. Each is matched as a prefix.
const NOT_IN_THE_TREE: &[(&str, &str)] = &[
    ("target/", "a build's output"),
    ("dist/", "the built site"),
    ("node_modules/", "npm's install"),
    (
        "exercises/",
        "a hosted site's own exercises and their index",
    ),
    ("index.toml", "a hosted site's index of its own exercises"),
    (
        "templates/",
        "the built site's copies of the bundled exercise files",
    ),
    ("worker_loader.js", "the loader trunk writes for the worker"),
    (
        "reader_loader.js",
        "the loader trunk writes for the exercise reader",
    ),
    ("worker.js", "the worker's module as trunk writes it"),
    (
        "catalog.json",
        "the built site's bundled exercises, which web/prerender writes",
    ),
    ("tests/artifacts/", "screenshots a test run writes"),
    (
        "src/fencelab/",
        "what mdbook-fencelab writes into a book's source on each build",
    ),
    (
        "fuzz/regressions/",
        "where a crash a fuzz target found is kept, replayed by `cargo test`",
    ),
];

/// Endings that make a backticked name a file's.
const FILE_ENDINGS: &[&str] = &[
    ".rs", ".md", ".mjs", ".js", ".toml", ".css", ".html", ".json", ".txt", ".py", ".sh", ".xml",
];

/// Every path the map names in backticks that no file or folder of the tree
/// answers to. A name is matched against whole trailing segments of the
/// tree's paths (`world/step.rs` is `crates/core/src/world/step.rs`, and a
/// bare `step.rs` some file of that name); `*` in a name stands for any
/// part of a path (`cases/**/*.toml`).
pub fn architecture_paths(doc: &str, text: &str, files: &[String]) -> Vec<Problem> {
    let known = known_paths(files);
    let mut problems = Vec::new();
    for (index, line) in text.lines().enumerate() {
        for name in backticked(line).filter(|name| is_path_like(name)) {
            if NOT_IN_THE_TREE
                .iter()
                .any(|(prefix, _)| name.starts_with(prefix))
            {
                continue;
            }
            if !answers(name, &known) {
                problems.push(Problem {
                    file: doc.to_string(),
                    line: index + 1,
                    what: format!("names `{name}`, which is not in the tree"),
                });
            }
        }
    }
    problems
}

/// Every file of the tree and every folder above one.
fn known_paths(files: &[String]) -> BTreeSet<String> {
    let mut known = BTreeSet::new();
    for file in files {
        let mut path = file.as_str();
        known.insert(path.to_string());
        while let Some((parent, _)) = path.rsplit_once('/') {
            known.insert(parent.to_string());
            path = parent;
        }
    }
    known
}

/// The texts between pairs of backticks on one line.
fn backticked(line: &str) -> impl Iterator<Item = &str> {
    line.split('`').skip(1).step_by(2)
}

fn is_path_like(name: &str) -> bool {
    let plain = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '.' | '_' | '-' | '*'));
    let filed = FILE_ENDINGS.iter().any(|ending| name.ends_with(ending));
    plain
        && !name.starts_with('-')
        && !name.starts_with('.')
        && (filed || (name.contains('/') && !name.contains('*')))
        && !name.contains("//")
}

fn answers(name: &str, known: &BTreeSet<String>) -> bool {
    let name = name.trim_end_matches('/');
    if let (Some(first), Some(last)) = (name.find('*'), name.rfind('*')) {
        // A pattern: some path with what comes before its first `*` as whole
        // segments and what comes after its last at its end.
        let (before, after) = (&name[..first], &name[last + 1..]);
        return known.iter().any(|path| {
            (path.starts_with(before) || path.contains(&format!("/{before}")))
                && path.ends_with(after)
        });
    }
    let tail = format!("/{name}");
    known.contains(name) || known.iter().any(|path| path.ends_with(&tail))
}

// ---------------------------------------------------------------------------
// The walls: the model and the core name no I/O.

/// What the model and the core must never call: the world outside a check.
const IMPURE_NAMES: &[(&str, &str)] = &[
    ("Instant::now", "the wall clock"),
    ("SystemTime", "the wall clock"),
    ("std::fs", "the file system"),
    ("File::open", "the file system"),
    ("std::net", "the network"),
    ("std::process", "other processes"),
    ("std::env::var", "the environment"),
    ("web_sys", "a browser API"),
    ("js_sys", "a browser API"),
    ("getrandom", "real randomness"),
    ("thread_rng", "real randomness"),
    (
        "std::thread",
        "threads (a caller shares work out: `mutation::Spread`)",
    ),
];

fn is_pure_source(file: &str) -> bool {
    ["crates/model/src/", "crates/core/src/"]
        .iter()
        .any(|dir| file.starts_with(dir))
}

/// Lines of `text` (a model or core source) that name the outside world,
/// comments aside.
pub fn impure_names(file: &str, text: &str) -> Vec<Problem> {
    code_lines(text)
        .flat_map(|(number, code)| {
            IMPURE_NAMES
                .iter()
                .filter(move |(name, _)| code.contains(name))
                .map(move |(name, what)| Problem {
                    file: file.to_string(),
                    line: number,
                    what: format!(
                        "names `{name}` ({what}), which the model and the core never use"
                    ),
                })
        })
        .collect()
}

/// Each line's number and its code before any `//` comment (a `//` inside
/// a string is rare enough in this code to be read as a comment).
fn code_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines().enumerate().map(|(index, line)| {
        let code = line.split_once("//").map_or(line, |(code, _)| code);
        (index + 1, code)
    })
}

// ---------------------------------------------------------------------------
// Tests that assert what they expect: no expected panics, no skipped tests.

/// The attributes rust-analyzer's style (and ours) rules out, spelled in two
/// halves so this file does not match itself.
fn banned_attributes() -> [String; 2] {
    [format!("#[{}", "should_panic"), format!("#[{}", "ignore")]
}

/// Tests marked to expect a panic or to be skipped: assert the `Err` you
/// expect instead, and run every test.
pub fn skipped_tests(file: &str, text: &str) -> Vec<Problem> {
    let banned = banned_attributes();
    code_lines(text)
        .filter_map(|(number, code)| {
            let found = banned
                .iter()
                .find(|attribute| code.contains(attribute.as_str()))?;
            Some(Problem {
                file: file.to_string(),
                line: number,
                what: format!("`{found}]`: assert the result you expect, and run every test"),
            })
        })
        .collect()
}

// ---------------------------------------------------------------------------
// The lints: unsafe code is denied but where a module must use it.

fn unsafe_allowance() -> String {
    format!("allow({})", "unsafe_code")
}

/// A crate root that allows unsafe code would allow it everywhere in the
/// crate; only a module that calls a C API may.
pub fn unsafe_allowed_at_root(file: &str, text: &str) -> Vec<Problem> {
    let root = ["/lib.rs", "/main.rs"]
        .iter()
        .any(|name| file.ends_with(name))
        || file.ends_with("build.rs");
    if !root {
        return Vec::new();
    }
    let allowance = unsafe_allowance();
    code_lines(text)
        .filter(|(_, code)| code.contains(&allowance))
        .map(|(number, _)| Problem {
            file: file.to_string(),
            line: number,
            what: format!(
                "a crate root may not `{allowance}`: allow it in the one module that needs it"
            ),
        })
        .collect()
}

/// The workspace's lints deny unsafe code.
pub fn workspace_lints(file: &str, manifest: &str) -> Vec<Problem> {
    let denied = section(manifest, "[workspace.lints.rust]").is_some_and(|body| {
        body.lines()
            .any(|l| is_setting(l, "unsafe_code", "\"deny\""))
    });
    if denied {
        Vec::new()
    } else {
        vec![Problem {
            file: file.to_string(),
            line: 0,
            what: "[workspace.lints.rust] must set unsafe_code = \"deny\"".into(),
        }]
    }
}

/// A member crate takes the workspace's lints.
pub fn crate_lints(file: &str, manifest: &str) -> Vec<Problem> {
    let taken = section(manifest, "[lints]")
        .is_some_and(|body| body.lines().any(|l| is_setting(l, "workspace", "true")));
    if taken {
        Vec::new()
    } else {
        vec![Problem {
            file: file.to_string(),
            line: 0,
            what: "has no `[lints]` with `workspace = true`".into(),
        }]
    }
}

/// The body of a TOML table `header` (up to the next table), if present.
fn section<'a>(manifest: &'a str, header: &str) -> Option<&'a str> {
    let start = manifest
        .match_indices(header)
        .find(|(at, _)| *at == 0 || manifest[..*at].ends_with('\n'))?
        .0
        + header.len();
    let rest = &manifest[start..];
    let end = rest.find("\n[").map_or(rest.len(), |at| at + 1);
    Some(&rest[..end])
}

fn is_setting(line: &str, key: &str, value: &str) -> bool {
    line.split_once('=')
        .is_some_and(|(k, v)| k.trim() == key && v.trim() == value)
}

/// The workspace's `members = [...]`, as written.
fn workspace_members(manifest: &str) -> Vec<String> {
    let Some(start) = manifest.find("members") else {
        return Vec::new();
    };
    let rest = &manifest[start..];
    let (Some(open), Some(close)) = (rest.find('['), rest.find(']')) else {
        return Vec::new();
    };
    rest[open + 1..close]
        .split(',')
        .map(|member| member.trim().trim_matches('"').to_string())
        .filter(|member| !member.is_empty())
        .collect()
}

// ---------------------------------------------------------------------------
// npm: every package a script imports is one package.json declares.

/// Node's own modules, imported with or without `node:`.
const NODE_BUILTINS: &[&str] = &[
    "assert",
    "buffer",
    "child_process",
    "crypto",
    "events",
    "fs",
    "http",
    "https",
    "net",
    "os",
    "path",
    "process",
    "readline",
    "stream",
    "timers",
    "url",
    "util",
    "worker_threads",
    "zlib",
];

fn is_script(file: &str) -> bool {
    (file.ends_with(".js") || file.ends_with(".mjs")) && !file.contains("node_modules/")
}

/// The package names under `dependencies` and `devDependencies`.
pub fn npm_declared(package_json: &str) -> BTreeSet<String> {
    let mut declared = BTreeSet::new();
    for block in ["\"dependencies\"", "\"devDependencies\""] {
        let Some(start) = package_json.find(block) else {
            continue;
        };
        let rest = &package_json[start + block.len()..];
        let (Some(open), Some(close)) = (rest.find('{'), rest.find('}')) else {
            continue;
        };
        for entry in rest[open + 1..close].split(',') {
            if let Some((name, _)) = entry.split_once(':') {
                declared.insert(name.trim().trim_matches('"').to_string());
            }
        }
    }
    declared
}

/// The module names `text` imports: `from "x"`, `import "x"`, `import("x")`
/// and `require("x")`, with either quote.
fn imported_modules(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (number, code) in code_lines(text) {
        for opener in ["from ", "import ", "import(", "require("] {
            for (at, _) in code.match_indices(opener) {
                let rest = code[at + opener.len()..].trim_start();
                let Some(quote) = rest.chars().next().filter(|c| *c == '"' || *c == '\'') else {
                    continue;
                };
                if let Some(end) = rest[1..].find(quote) {
                    found.push((number, rest[1..1 + end].to_string()));
                }
            }
        }
    }
    found
}

/// The npm package a module name comes from (`@scope/name/sub` is
/// `@scope/name`), or `None` for a relative path or one of Node's own.
fn npm_package(module: &str) -> Option<String> {
    // Relative paths, Node's own modules, and names built at run time
    // (`${site}embed.js`) or given as an address are no npm package.
    if module.starts_with('.')
        || module.starts_with('/')
        || module.starts_with("node:")
        || module.contains('$')
        || module.contains("://")
    {
        return None;
    }
    let mut parts = module.split('/');
    let first = parts.next()?;
    let package = if first.starts_with('@') {
        format!("{first}/{}", parts.next()?)
    } else {
        first.to_string()
    };
    (!NODE_BUILTINS.contains(&package.as_str())).then_some(package)
}

/// Imports of npm packages that package.json does not declare: they work
/// only while another package happens to pull them in.
pub fn undeclared_imports(file: &str, text: &str, declared: &BTreeSet<String>) -> Vec<Problem> {
    imported_modules(text)
        .into_iter()
        .filter_map(|(number, module)| {
            let package = npm_package(&module)?;
            (!declared.contains(&package)).then(|| Problem {
                file: file.to_string(),
                line: number,
                what: format!("imports `{package}`, which package.json does not declare"),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(paths: &[&str]) -> Vec<String> {
        paths.iter().map(|p| p.to_string()).collect()
    }

    #[test]
    fn the_map_names_only_what_is_there() {
        let files = tree(&[
            "crates/core/src/world/step.rs",
            "crates/core/src/lib.rs",
            "tests/hostile/cases/sql/huge.toml",
            "docs/EXERCISES.md",
        ]);
        let doc = "intro `docs/EXERCISES.md` and `target/editor/editor.js`\n\
                   ### `crates/core` (fencelab-core)\n\
                   - `world/step.rs` runs; `lib.rs` re-exports; `gone.rs` was removed\n\
                   - `world/` and `fencelab_core::Exercise` and `--json` and `cases/**/*.toml`\n\
                   ## Invariants\n\
                   - `docs/STALE.md` and `cases/**/*.json` and `orld/step.rs`\n";
        let problems = architecture_paths("docs/ARCHITECTURE.md", doc, &files);
        let named: Vec<(usize, &str)> =
            problems.iter().map(|p| (p.line, p.what.as_str())).collect();
        assert_eq!(
            named,
            vec![
                (3, "names `gone.rs`, which is not in the tree"),
                (6, "names `docs/STALE.md`, which is not in the tree"),
                (6, "names `cases/**/*.json`, which is not in the tree"),
                (6, "names `orld/step.rs`, which is not in the tree"),
            ]
        );
    }

    #[test]
    fn the_core_names_no_clock_and_no_file_system() {
        let text = "use std::time::Duration;\n\
                    // Instant::now() is only ever named in comments\n\
                    let started = std::time::Instant::now();\n\
                    let text = std::fs::read_to_string(path);\n\
                    std::thread::scope(|scope| scope.spawn(judge));\n";
        let problems = impure_names("crates/core/src/x.rs", text);
        let lines: Vec<usize> = problems.iter().map(|p| p.line).collect();
        assert_eq!(lines, vec![3, 4, 5]);
        assert!(problems[0].what.contains("the wall clock"));
        assert!(problems[1].what.contains("the file system"));
        assert!(is_pure_source("crates/model/src/random.rs"));
        assert!(!is_pure_source("crates/cli/src/main.rs"));
    }

    #[test]
    fn expected_panics_and_skipped_tests_are_found() {
        let [panics, ignored] = banned_attributes();
        let text =
            format!("#[test]\n{panics}]\nfn a() {{}}\n{ignored}]\nfn b() {{}}\n// {ignored}]\n");
        let lines: Vec<usize> = skipped_tests("t.rs", &text)
            .iter()
            .map(|p| p.line)
            .collect();
        assert_eq!(lines, vec![2, 4]);
    }

    #[test]
    fn unsafe_code_is_denied_for_the_workspace_and_taken_by_each_crate() {
        let workspace = "[workspace]\nmembers = [\"a\", \"web/b\"]\n\n[workspace.lints.rust]\nunsafe_code = \"deny\"\n";
        assert_eq!(workspace_lints("Cargo.toml", workspace), vec![]);
        assert_eq!(workspace_members(workspace), vec!["a", "web/b"]);
        let lenient = "[workspace.lints.rust]\nunsafe_code = \"warn\"\n";
        assert_eq!(workspace_lints("Cargo.toml", lenient).len(), 1);

        let member = "[package]\nname = \"a\"\n\n[lints]\nworkspace = true\n\n[dependencies]\n";
        assert_eq!(crate_lints("a/Cargo.toml", member), vec![]);
        let without = "[package]\nname = \"a\"\n\n[dependencies]\nlints = \"1\"\n";
        assert_eq!(crate_lints("a/Cargo.toml", without).len(), 1);

        let allowance = format!("#![{}]\n", unsafe_allowance());
        assert_eq!(
            unsafe_allowed_at_root("crates/core/src/lib.rs", &allowance).len(),
            1
        );
        assert_eq!(
            unsafe_allowed_at_root("crates/core/src/sqlite.rs", &allowance),
            vec![]
        );
    }

    #[test]
    fn every_npm_import_is_declared() {
        let declared = npm_declared(
            "{\n  \"devDependencies\": {\n    \"codemirror\": \"6.0.2\",\n    \"@codemirror/view\": \"6.43.15\"\n  }\n}",
        );
        let script = "import { basicSetup } from \"codemirror\";\n\
                      import { EditorView } from '@codemirror/view/dist/index.js';\n\
                      import { lintGutter } from \"@codemirror/lint\";\n\
                      import { readFile } from \"node:fs/promises\";\n\
                      import assert from \"assert\";\n\
                      import { serveDir } from \"./harness.mjs\";\n\
                      import { embed } from \"${site}embed.js\";\n\
                      const sql = await import(\"sql.js\");\n";
        let problems = undeclared_imports("web/editor/editor.js", script, &declared);
        let named: Vec<(usize, &str)> =
            problems.iter().map(|p| (p.line, p.what.as_str())).collect();
        assert_eq!(
            named,
            vec![
                (
                    3,
                    "imports `@codemirror/lint`, which package.json does not declare"
                ),
                (8, "imports `sql.js`, which package.json does not declare"),
            ]
        );
    }
}
