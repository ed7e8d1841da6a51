//! `fencelab scorm` as an LMS's importer meets its package: a zip that a
//! real extractor (Python's `zipfile`, which checks every entry's CRC)
//! reads entry for entry, with a manifest that is XML and lists every file
//! the zip holds; and a site whose file names an extractor would read
//! otherwise, refused by name. (tests/e2e/scorm.mjs unpacks a whole built
//! site's package with `unzip` and runs it under an LMS's runtime; the
//! hostile corpus's `scorm-*` command cases hold the other refusals.)

use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::process::{Command, Output};

fn fencelab(args: &[&std::ffi::OsStr]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fencelab"))
        .args(args)
        .output()
        .expect("the fencelab binary runs")
}

/// The least a built site has for `fencelab scorm`: its front page, an
/// asset in a folder, and one exercise of its own (bundled exercise 1
/// under another id and title) with the index that lists it.
fn site(dir: &Path) {
    let bundled = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../model/exercises/01-claim-compare-and-set.toml"
    );
    let text = std::fs::read_to_string(bundled).unwrap().replacen(
        "\nid = \"claim-compare-and-set\"\n",
        "\nid = \"my-claim\"\n",
        1,
    );
    assert!(text.contains("id = \"my-claim\""));
    std::fs::create_dir_all(dir.join("exercises")).unwrap();
    std::fs::create_dir_all(dir.join("assets")).unwrap();
    std::fs::write(dir.join("index.html"), "<!doctype html><title>site</title>").unwrap();
    std::fs::write(dir.join("assets/app & co.js"), "export {};\n".repeat(100)).unwrap();
    std::fs::write(dir.join("exercises/my-claim.toml"), text).unwrap();
    std::fs::write(
        dir.join("exercises/index.toml"),
        "format = 1\nexercises = [\"my-claim.toml\"]\n",
    )
    .unwrap();
}

/// Python reads the archive as an LMS's importer would: every entry's CRC
/// (`testzip`), the manifest as XML, and each `href` against the entries.
const READ_BACK: &str = r#"
import sys, zipfile, xml.etree.ElementTree as ET
with zipfile.ZipFile(sys.argv[1]) as z:
    bad = z.testzip()
    assert bad is None, f"entry {bad} fails its CRC"
    names = z.namelist()
    assert len(names) == len(set(names)), "an entry is listed twice"
    root = ET.fromstring(z.read("imsmanifest.xml"))
    hrefs = [e.get("href") for e in root.iter() if e.get("href") is not None]
    missing = [h for h in hrefs if h not in names]
    assert not missing, f"hrefs with no entry: {missing}"
    print("\n".join(sorted(names)))
"#;

#[test]
fn a_real_extractor_reads_the_package_and_finds_every_file_the_manifest_lists() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path().join("site");
    site(&dir);
    for version in ["1.2", "2004"] {
        let zip = scratch.path().join(format!("course-{version}.zip"));
        let output = fencelab(&[
            "scorm".as_ref(),
            dir.as_os_str(),
            "--version".as_ref(),
            version.as_ref(),
            "--out".as_ref(),
            zip.as_os_str(),
        ]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(0), "{stderr}");
        let python = Command::new("python3")
            .args(["-I", "-c", READ_BACK])
            .arg(&zip)
            .output()
            .expect("python3 runs");
        let said = String::from_utf8_lossy(&python.stdout);
        assert!(
            python.status.success(),
            "{said}{}",
            String::from_utf8_lossy(&python.stderr)
        );
        let names: Vec<&str> = said.lines().collect();
        assert_eq!(
            names,
            [
                "assets/app & co.js",
                "exercises/index.toml",
                "exercises/my-claim.toml",
                "imsmanifest.xml",
                "index.html",
                "scorm/bridge.js",
                "scorm/my-claim.html",
            ],
            "SCORM {version}"
        );
    }
}

#[test]
fn a_site_file_whose_name_is_not_utf8_is_refused_by_name() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path().join("site");
    site(&dir);
    // Read lossily, two such names were one entry (U+FFFD) in the zip.
    let name = std::ffi::OsStr::from_bytes(b"assets/caf\xe9.js");
    std::fs::write(dir.join(name), "1").unwrap();
    let zip = scratch.path().join("course.zip");
    let output = fencelab(&[
        "scorm".as_ref(),
        dir.as_os_str(),
        "--version".as_ref(),
        "1.2".as_ref(),
        "--out".as_ref(),
        zip.as_os_str(),
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("caf\u{fffd}.js: its name is not UTF-8"),
        "{stderr}"
    );
    assert!(!zip.exists(), "nothing is written");
}
