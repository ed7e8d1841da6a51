//! fencelab-precompress run as `cargo xtask site-pages` runs it (the site's
//! folder, then the names of the files that changed), its copies decoded as
//! a browser decodes a `Content-Encoding`.

use std::path::{Path, PathBuf};
use std::process::Command;

/// A scratch site, removed when the test ends (a drop guard).
struct Site(PathBuf);

impl Drop for Site {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn site(test: &str) -> Site {
    let dir = std::env::temp_dir().join(format!(
        "fencelab-precompress-{}-{test}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    Site(dir)
}

fn run(site: &Path, files: &[&str]) {
    let status = Command::new(env!("CARGO_BIN_EXE_fencelab-precompress"))
        .arg(site)
        .args(files)
        .status()
        .unwrap();
    assert!(status.success(), "{status}");
}

/// The copy at `path` decoded as a browser decodes its `Content-Encoding`.
fn decoded(path: &Path) -> Vec<u8> {
    fencelab_precompress::decoded(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A page long enough to be worth compressing.
fn page(words: &str) -> String {
    format!("<!doctype html><main>{}</main>", words.repeat(40))
}

#[test]
fn a_changed_page_and_service_worker_get_copies_that_decode_to_their_new_bytes() {
    let site = site("changed");
    let dir = &site.0;
    std::fs::write(dir.join("index.html"), page("front ")).unwrap();
    // dist's copies, of the old texts.
    for name in [
        "index.html.br",
        "index.html.gz",
        "sw.js.br",
        "sw.js.gz",
        "mine.html.br",
        "mine.html.gz",
    ] {
        std::fs::write(dir.join(name), "an old copy").unwrap();
    }
    std::fs::write(dir.join("mine.html"), page("the new exercise ")).unwrap();
    std::fs::write(
        dir.join("sw.js"),
        format!("const PAGES = [{}];", "\"./mine.html\", ".repeat(20)),
    )
    .unwrap();
    run(dir, &["mine.html", "sw.js"]);
    for name in ["mine.html", "sw.js"] {
        let file = std::fs::read(dir.join(name)).unwrap();
        for suffix in [".br", ".gz"] {
            assert!(
                decoded(&dir.join(format!("{name}{suffix}"))) == file,
                "{name}{suffix} decodes to other bytes than {name}"
            );
        }
    }
    assert_eq!(
        std::fs::read_to_string(dir.join("index.html.br")).unwrap(),
        "an old copy",
        "a file not named is left alone"
    );
}

#[test]
fn a_removed_page_or_one_that_does_not_shrink_keeps_no_copy() {
    let site = site("stale");
    let dir = &site.0;
    for name in [
        "index.html.gz",
        "gone.html.br",
        "gone.html.gz",
        "tiny.html.br",
        "tiny.html.gz",
    ] {
        std::fs::write(dir.join(name), "an old copy").unwrap();
    }
    // Two bytes: no compressed copy is smaller.
    std::fs::write(dir.join("tiny.html"), "hi").unwrap();
    run(dir, &["gone.html", "tiny.html"]);
    for name in [
        "gone.html.br",
        "gone.html.gz",
        "tiny.html.br",
        "tiny.html.gz",
    ] {
        assert!(!dir.join(name).exists(), "{name} is stale and was kept");
    }
}

#[test]
fn a_site_without_copies_gets_none() {
    let site = site("plain");
    let dir = &site.0;
    std::fs::write(dir.join("index.html"), page("front ")).unwrap();
    std::fs::write(dir.join("mine.html"), page("the new exercise ")).unwrap();
    run(dir, &["mine.html"]);
    assert!(!dir.join("mine.html.br").exists() && !dir.join("mine.html.gz").exists());
}

#[test]
fn an_old_copy_that_is_a_link_is_replaced_never_written_through() {
    let site = site("link");
    let dir = &site.0;
    std::fs::write(dir.join("index.html.br"), "an old copy").unwrap();
    std::fs::write(dir.join("mine.html"), page("the new exercise ")).unwrap();
    let victim = dir.join("victim.txt");
    std::fs::write(&victim, "not the site's").unwrap();
    std::os::unix::fs::symlink(&victim, dir.join("mine.html.gz")).unwrap();
    run(dir, &["mine.html"]);
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "not the site's");
    assert_eq!(
        decoded(&dir.join("mine.html.gz")),
        std::fs::read(dir.join("mine.html")).unwrap()
    );
}
