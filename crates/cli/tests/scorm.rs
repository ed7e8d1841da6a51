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
/// under another id and title, `My claim`) with the index that lists it.
fn site(dir: &Path) {
    let bundled = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../model/exercises/01-claim-compare-and-set.toml"
    );
    let text = std::fs::read_to_string(bundled)
        .unwrap()
        .replacen(
            "\nid = \"claim-compare-and-set\"\n",
            "\nid = \"my-claim\"\n",
            1,
        )
        .replacen(
            "\ntitle = \"The claim that reads, then writes\"\n",
            "\ntitle = \"My claim\"\n",
            1,
        );
    assert!(text.contains("id = \"my-claim\"") && text.contains("title = \"My claim\""));
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
/// It prints what the LMS would list, as JSON: the manifest's identifier,
/// the organization's title, each item's, and the entries' names.
const READ_BACK: &str = r#"
import json, sys, zipfile, xml.etree.ElementTree as ET
with zipfile.ZipFile(sys.argv[1]) as z:
    bad = z.testzip()
    assert bad is None, f"entry {bad} fails its CRC"
    names = z.namelist()
    assert len(names) == len(set(names)), "an entry is listed twice"
    root = ET.fromstring(z.read("imsmanifest.xml"))
    hrefs = [e.get("href") for e in root.iter() if e.get("href") is not None]
    missing = [h for h in hrefs if h not in names]
    assert not missing, f"hrefs with no entry: {missing}"
    local = lambda e: e.tag.rsplit("}", 1)[-1]
    [organization] = [e for e in root.iter() if local(e) == "organization"]
    title = next(e.text for e in organization if local(e) == "title")
    items = [next(t.text for t in e if local(t) == "title") for e in organization if local(e) == "item"]
    print(json.dumps({"identifier": root.get("identifier"), "title": title,
                      "items": items, "names": sorted(names)}))
"#;

/// What [`READ_BACK`] read from a package.
#[derive(Debug)]
struct Listed {
    identifier: String,
    title: String,
    items: Vec<String>,
    names: Vec<String>,
}

/// The package at `zip` as an LMS's importer reads it, failing the test
/// when it cannot.
fn read_back(zip: &Path) -> Listed {
    let python = Command::new("python3")
        .args(["-I", "-c", READ_BACK])
        .arg(zip)
        .output()
        .expect("python3 runs");
    let said = String::from_utf8_lossy(&python.stdout);
    assert!(
        python.status.success(),
        "{}: {said}{}",
        zip.display(),
        String::from_utf8_lossy(&python.stderr)
    );
    let json: serde_json::Value = serde_json::from_str(&said).expect("read_back prints JSON");
    let strings = |key: &str| -> Vec<String> {
        json[key]
            .as_array()
            .expect("a list")
            .iter()
            .map(|v| v.as_str().expect("a string").to_string())
            .collect()
    };
    Listed {
        identifier: json["identifier"].as_str().expect("an identifier").into(),
        title: json["title"].as_str().expect("a title").into(),
        items: strings("items"),
        names: strings("names"),
    }
}

/// `fencelab scorm SITE` with `args` after it.
fn scorm(site: &Path, args: &[&std::ffi::OsStr]) -> Output {
    let mut all: Vec<&std::ffi::OsStr> = vec!["scorm".as_ref(), site.as_os_str()];
    all.extend_from_slice(args);
    fencelab(&all)
}

#[test]
fn a_real_extractor_reads_the_package_and_finds_every_file_the_manifest_lists() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path().join("site");
    site(&dir);
    for version in ["1.2", "2004"] {
        let zip = scratch.path().join(format!("course-{version}.zip"));
        let output = scorm(
            &dir,
            &[
                "--version".as_ref(),
                version.as_ref(),
                "--out".as_ref(),
                zip.as_os_str(),
            ],
        );
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(0), "{stderr}");
        let listed = read_back(&zip);
        assert_eq!(
            listed.names,
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
        // Without --title and --identifier, the defaults of before.
        let number = version.replace('.', "");
        assert_eq!(
            (listed.identifier.as_str(), listed.title.as_str()),
            (
                format!("fencelab-fencelab-exercises-scorm{number}").as_str(),
                "fencelab exercises"
            )
        );
        assert_eq!(listed.items, ["My claim"]);
    }
}

#[test]
fn the_author_names_the_course_and_its_identifier() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path().join("site");
    site(&dir);
    let zip = scratch.path().join("week3.zip");
    let output = scorm(
        &dir,
        &[
            "--version".as_ref(),
            "2004".as_ref(),
            "--out".as_ref(),
            zip.as_os_str(),
            "--title".as_ref(),
            "Fencing & <week 3>".as_ref(),
            "--identifier".as_ref(),
            "fencing-week-3".as_ref(),
        ],
    );
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let listed = read_back(&zip);
    assert_eq!(
        listed.identifier, "fencing-week-3",
        "not made from a folder"
    );
    assert_eq!(
        listed.title, "Fencing & <week 3>",
        "escaped, read back whole"
    );
}

#[test]
fn an_identifier_that_is_no_xml_id_is_refused_before_anything_is_written() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path().join("site");
    site(&dir);
    let zip = scratch.path().join("week3.zip");
    for (bad, why) in [
        ("3rd week", "must start with an ASCII letter or `_`"),
        ("week 3", "it holds ` `"),
        ("site", "an XML document may hold an identifier once"),
    ] {
        let output = scorm(
            &dir,
            &[
                "--version".as_ref(),
                "1.2".as_ref(),
                "--out".as_ref(),
                zip.as_os_str(),
                "--identifier".as_ref(),
                bad.as_ref(),
            ],
        );
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains("--identifier") && stderr.contains(why),
            "{bad}: {stderr}"
        );
        assert!(!zip.exists(), "nothing is written");
    }
}

#[test]
fn each_exercise_is_a_package_of_its_own_named_and_titled_after_it() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path().join("site");
    site(&dir);
    second_exercise(&dir);
    let folder = scratch.path().join("packages");
    for (version, identifier) in [("1.2", Some("week3")), ("2004", None)] {
        let mut args: Vec<&std::ffi::OsStr> = vec![
            "--version".as_ref(),
            version.as_ref(),
            "--each-exercise".as_ref(),
            "--title".as_ref(),
            "Week 3".as_ref(),
            "--out".as_ref(),
            folder.as_os_str(),
        ];
        if let Some(identifier) = identifier {
            args.extend::<[&std::ffi::OsStr; 2]>(["--identifier".as_ref(), identifier.as_ref()]);
        }
        let output = scorm(&dir, &args);
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert_eq!(stdout.lines().count(), 2, "a line per package: {stdout}");
        let number = version.replace('.', "");
        for (id, title) in [
            ("my-claim", "My claim"),
            ("my-other-claim", "My other claim"),
        ] {
            let zip = folder.join(format!("{id}-scorm-{version}.zip"));
            let listed = read_back(&zip);
            let expected = match identifier {
                Some(given) => format!("{given}-{id}"),
                None => format!("fencelab-Week-3-scorm{number}-{id}"),
            };
            assert_eq!(listed.identifier, expected, "SCORM {version}");
            assert_eq!(
                (listed.title.as_str(), &listed.items[..]),
                (title, &[title.to_string()][..])
            );
            let pages: Vec<&String> = listed
                .names
                .iter()
                .filter(|n| n.starts_with("scorm/") && n.ends_with(".html"))
                .collect();
            assert_eq!(pages, [&format!("scorm/{id}.html")], "only its own SCO");
            assert!(listed.names.contains(&"assets/app & co.js".to_string()));
        }
    }
    let mut written: Vec<String> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    written.sort();
    assert_eq!(
        written,
        [
            "my-claim-scorm-1.2.zip",
            "my-claim-scorm-2004.zip",
            "my-other-claim-scorm-1.2.zip",
            "my-other-claim-scorm-2004.zip",
        ]
    );
}

#[test]
fn each_exercise_refuses_before_writing_any_package() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path().join("site");
    site(&dir);
    second_exercise(&dir);
    let each = |out: &Path, force: bool| {
        let mut args: Vec<&std::ffi::OsStr> = vec![
            "--version".as_ref(),
            "1.2".as_ref(),
            "--each-exercise".as_ref(),
            "--out".as_ref(),
            out.as_os_str(),
        ];
        if force {
            args.push("--force".as_ref());
        }
        let output = scorm(&dir, &args);
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    };
    // A folder inside the site, new or there already.
    for inside in [dir.join("packages"), dir.join("exercises")] {
        let (code, stderr) = each(&inside, false);
        assert_eq!(code, Some(2), "{stderr}");
        assert!(stderr.contains("the site it packs"), "{stderr}");
    }
    assert!(!dir.join("packages").exists(), "no folder is made");
    // The second exercise's package is there: the first is not written
    // either, and the one there is kept.
    let folder = scratch.path().join("packages");
    std::fs::create_dir(&folder).unwrap();
    std::fs::write(folder.join("my-other-claim-scorm-1.2.zip"), "older").unwrap();
    let (code, stderr) = each(&folder, false);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("my-other-claim-scorm-1.2.zip: already exists"),
        "{stderr}"
    );
    assert!(!folder.join("my-claim-scorm-1.2.zip").exists());
    assert_eq!(
        std::fs::read(folder.join("my-other-claim-scorm-1.2.zip")).unwrap(),
        b"older"
    );
    let (code, stderr) = each(&folder, true);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(
        read_back(&folder.join("my-other-claim-scorm-1.2.zip")).items,
        ["My other claim"]
    );
    // A file where the folder should be.
    let file = scratch.path().join("week3.zip");
    std::fs::write(&file, "a zip").unwrap();
    let (code, stderr) = each(&file, false);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("--out names a folder"), "{stderr}");
}

/// A second exercise in the site of [`site`], listed after the first.
fn second_exercise(dir: &Path) {
    let first = std::fs::read_to_string(dir.join("exercises/my-claim.toml")).unwrap();
    let second = first
        .replacen("\nid = \"my-claim\"\n", "\nid = \"my-other-claim\"\n", 1)
        .replacen(
            "\ntitle = \"My claim\"\n",
            "\ntitle = \"My other claim\"\n",
            1,
        );
    assert!(second.contains("My other claim") && second.contains("my-other-claim"));
    std::fs::write(dir.join("exercises/my-other-claim.toml"), second).unwrap();
    std::fs::write(
        dir.join("exercises/index.toml"),
        "format = 1\nexercises = [\"my-claim.toml\", \"my-other-claim.toml\"]\n",
    )
    .unwrap();
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
