//! The `fencelab-prerender` command as trunk's post_build hook runs it: the
//! built site's folder from its argument or from `TRUNK_STAGING_DIR`, one
//! page written per bundled exercise, and a sentence and an exit code for a
//! folder it cannot use. (What a page holds is the library's tests'.)

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const PRERENDER: &str = env!("CARGO_BIN_EXE_fencelab-prerender");

/// A folder of this test's own under the system's temporary folder, made
/// empty.
fn scratch(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("fencelab-prerender-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    dir
}

/// A folder holding the page's template as trunk leaves it (trunk changes
/// only its head, which prerendering does not read).
fn built_site(name: &str) -> PathBuf {
    let dir = scratch(name);
    let template = Path::new(env!("CARGO_MANIFEST_DIR")).join("../index.html");
    std::fs::copy(&template, dir.join("index.html")).expect("the page's template copies");
    dir
}

/// The command, with no folder from this test's own environment.
fn prerender() -> Command {
    let mut command = Command::new(PRERENDER);
    command.env_remove("TRUNK_STAGING_DIR");
    command
}

fn run(command: &mut Command) -> (Output, String) {
    let output = command.output().expect("the prerenderer runs");
    let said = String::from_utf8_lossy(&output.stderr).into_owned();
    (output, said)
}

fn pages_in(dir: &Path) -> Vec<String> {
    let mut pages: Vec<String> = std::fs::read_dir(dir)
        .expect("the site's folder reads")
        .map(|entry| {
            entry
                .expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|name| name.ends_with(".html"))
        .collect();
    pages.sort();
    pages
}

#[test]
fn writes_a_page_per_bundled_exercise_in_the_folder_trunk_names() {
    let dir = built_site("staging");
    let (output, said) = run(prerender().env("TRUNK_STAGING_DIR", &dir));
    assert!(output.status.success(), "exit {}: {said}", output.status);
    let exercises = fencelab_web::catalog::bundled().expect("the bundled exercises load");
    assert!(
        said.contains(&format!("{} pages prerendered", exercises.len() + 1)),
        "{said}"
    );
    let mut expected: Vec<String> = exercises
        .iter()
        .map(|exercise| format!("{}.html", exercise.id))
        .collect();
    expected.push("index.html".into());
    expected.sort();
    assert_eq!(pages_in(&dir), expected);
    let read = |file: &str| std::fs::read_to_string(dir.join(file)).expect("a page reads");
    assert_eq!(
        read("index.html"),
        read(&format!("{}.html", exercises[0].id)),
        "the front page is the first exercise's"
    );
    assert_ne!(
        read(&format!("{}.html", exercises[0].id)),
        read(&format!("{}.html", exercises[1].id)),
        "each exercise has a page of its own"
    );
    assert_eq!(
        fencelab_model::bundled::from_loaded_json(read(fencelab_web::catalog::FILE)),
        Ok(exercises),
        "the catalogue the page and its worker fetch is the one the pages show"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_argument_names_the_folder() {
    let dir = built_site("argument");
    let (output, said) = run(prerender().arg(&dir));
    assert!(output.status.success(), "exit {}: {said}", output.status);
    assert!(pages_in(&dir).len() > 1, "{said}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn without_a_folder_it_says_what_to_give_and_exits_2() {
    let (output, said) = run(&mut prerender());
    assert_eq!(output.status.code(), Some(2), "{said}");
    assert!(said.contains("give the built site's directory"), "{said}");
}

#[test]
fn a_folder_without_the_page_is_named_and_fails() {
    let dir = scratch("empty");
    let (output, said) = run(prerender().arg(&dir));
    assert_eq!(output.status.code(), Some(1), "{said}");
    assert!(
        said.contains(&dir.join("index.html").display().to_string()),
        "the missing page is named: {said}"
    );
    assert!(pages_in(&dir).is_empty(), "nothing is written: {said}");
    let _ = std::fs::remove_dir_all(&dir);
}
