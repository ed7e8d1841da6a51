//! The preprocessor over whole books, as mdBook hands them over: the
//! fixture books of tests/book (copied to a scratch folder, since the
//! preprocessor writes `src/fencelab/`), with the site named by address so
//! no built site is needed. tests/e2e/book.mjs runs the same books through
//! the real mdBook and a browser.

use fencelab_mdbook::{BookError, preprocess};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

const SITE: &str = "https://fencelab.example/";

/// A scratch copy of a fixture book, removed when the test ends, passed or
/// failed (a drop guard).
struct Scratch(PathBuf);

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A scratch copy of tests/book/NAME, unique to this test.
fn scratch(name: &str, test: &str) -> Scratch {
    let from = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/book")
        .join(name);
    let to = std::env::temp_dir().join(format!("fencelab-mdbook-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&to);
    copy(&from, &to);
    Scratch(to)
}

fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// mdBook's `[context, book]` for `chapters` (source path, text) of the
/// book at `root`, its site hosted at [`SITE`].
fn input(root: &Path, chapters: &[(String, String)]) -> String {
    input_with(
        root,
        chapters,
        json!({ "site": SITE, "hook": "telemetry.log" }),
    )
}

/// As [`input`], with `table` as `[preprocessor.fencelab]`.
fn input_with(root: &Path, chapters: &[(String, String)], table: Value) -> String {
    let items: Vec<Value> = chapters
        .iter()
        .map(|(source, content)| {
            json!({ "Chapter": {
                "name": source, "content": content, "number": null, "sub_items": [],
                "path": source, "source_path": source, "parent_names": [],
            }})
        })
        .collect();
    let context = json!({
        "root": root, "renderer": "html", "mdbook_version": "0.5.4",
        "config": {
            "book": { "src": "src", "title": "t" },
            "preprocessor": { "fencelab": table },
        },
    });
    json!([context, { "items": items, "__non_exhaustive": null }]).to_string()
}

/// A chapter of the book at `root`, as written.
fn chapter(root: &Path, source: &str) -> (String, String) {
    let text = std::fs::read_to_string(root.join("src").join(source)).unwrap();
    (source.to_string(), text)
}

fn contents(book: &str) -> Vec<String> {
    let book: Value = serde_json::from_str(book).unwrap();
    book["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item["Chapter"]["content"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn the_fixture_book_gets_its_elements_and_its_folder() {
    let root = scratch("good", "good");
    let chapters = [chapter(&root, "claims.md"), chapter(&root, "own-claim.md")];
    let book = preprocess(&input(&root, &chapters)).unwrap();
    let [claims, own] = contents(&book).try_into().unwrap();
    assert!(claims.contains(&format!(
        "<script type=\"module\" src=\"{SITE}embed.js\"></script>\n<script type=\"module\" src=\"fencelab/book.js\"></script>\n<fencelab-exercise exercise=\"claim-compare-and-set\" site=\"{SITE}\" data-hook=\"telemetry.log\"></fencelab-exercise>"
    )), "{claims}");
    assert!(
        claims.contains("Write `{{#fencelab ID}}` to embed"),
        "the escape's backslash is dropped: {claims}"
    );
    assert!(
        own.contains("<fencelab-exercise exercise=\"book-claim\""),
        "{own}"
    );
    let folder = root.join("src/fencelab");
    assert!(folder.join("book.js").is_file());
    assert!(
        !folder.join("exercises").exists(),
        "a hosted site serves the book's exercises itself"
    );
}

#[test]
fn a_copied_site_gets_the_books_exercises_and_their_index() {
    let root = scratch("good", "copied");
    // The least a built site has (the preprocessor asks for both files).
    std::fs::create_dir_all(root.join("site/exercises")).unwrap();
    std::fs::write(root.join("site/index.html"), "<!doctype html>").unwrap();
    std::fs::write(root.join("site/embed.js"), "export {};").unwrap();
    let chapters = [chapter(&root, "own-claim.md")];
    let table = json!({ "site-dir": "site" });
    let book = preprocess(&input_with(&root, &chapters, table.clone())).unwrap();
    assert!(
        contents(&book)[0].contains("<script type=\"module\" src=\"fencelab/embed.js\"></script>")
    );
    let folder = root.join("src/fencelab");
    assert_eq!(
        std::fs::read_to_string(folder.join("embed.js")).unwrap(),
        "export {};"
    );
    assert!(folder.join("exercises/book-claim.toml").is_file());
    let index = std::fs::read_to_string(folder.join("exercises/index.toml")).unwrap();
    assert!(index.contains("\"book-claim.toml\""), "{index}");
    // A second build finds its own folder and writes it again.
    preprocess(&input_with(&root, &chapters, table)).unwrap();
}

/// `bytes` as the copy a host sends for `encoding` ("br" or "gz").
fn compressed(encoding: &str, bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    match encoding {
        "br" => {
            let mut out = Vec::new();
            let params = brotli::enc::BrotliEncoderParams::default();
            brotli::BrotliCompress(&mut &bytes[..], &mut out, &params).unwrap();
            out
        }
        _ => {
            let mut encoder =
                flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
            encoder.write_all(bytes).unwrap();
            encoder.finish().unwrap()
        }
    }
}

/// The copy at `path` decoded as a browser decodes its `Content-Encoding`.
fn decoded(path: &Path) -> Vec<u8> {
    fencelab_precompress::decoded(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A built site as `cargo xtask dist` leaves it, with brotli and gzip copies
/// beside its files (of its own index too, which lists none of the book's).
fn precompressed_site(root: &Path) {
    let index =
        "format = 1\nexercises = []\n# the site's own index, long enough to be worth compressing\n";
    let files = [
        (
            "index.html",
            "<!doctype html><title>fencelab</title>".repeat(4),
        ),
        ("embed.js", "export {};".to_string()),
        ("exercises/index.toml", index.to_string()),
    ];
    std::fs::create_dir_all(root.join("site/exercises")).unwrap();
    for (name, text) in files {
        std::fs::write(root.join("site").join(name), &text).unwrap();
        for encoding in ["br", "gz"] {
            let copy = root.join("site").join(format!("{name}.{encoding}"));
            std::fs::write(copy, compressed(encoding, text.as_bytes())).unwrap();
        }
    }
}

#[test]
fn a_precompressed_sites_copies_are_written_fresh_for_every_file_the_preprocessor_changes() {
    let root = scratch("good", "precompressed");
    precompressed_site(&root);
    let chapters = [chapter(&root, "own-claim.md")];
    let table = json!({ "site-dir": "site" });
    preprocess(&input_with(&root, &chapters, table.clone())).unwrap();
    let folder = root.join("src/fencelab");
    for name in [
        "exercises/index.toml",
        "exercises/book-claim.toml",
        "book.js",
    ] {
        let file = std::fs::read(folder.join(name)).unwrap();
        for encoding in ["br", "gz"] {
            let copy = folder.join(format!("{name}.{encoding}"));
            assert!(
                decoded(&copy) == file,
                "{}: decodes to other bytes than {name}",
                copy.display()
            );
        }
    }
    // A second build leaves the copies as they are (`mdbook serve` watches
    // the folder), and they still decode to the index.
    preprocess(&input_with(&root, &chapters, table)).unwrap();
    let index = std::fs::read(folder.join("exercises/index.toml")).unwrap();
    assert_eq!(decoded(&folder.join("exercises/index.toml.br")), index);
}

#[test]
fn a_site_without_copies_gets_none_from_the_preprocessor() {
    let root = scratch("good", "plain");
    std::fs::create_dir_all(root.join("site/exercises")).unwrap();
    std::fs::write(root.join("site/index.html"), "<!doctype html>").unwrap();
    std::fs::write(root.join("site/embed.js"), "export {};").unwrap();
    let chapters = [chapter(&root, "own-claim.md")];
    preprocess(&input_with(&root, &chapters, json!({ "site-dir": "site" }))).unwrap();
    let folder = root.join("src/fencelab");
    for name in [
        "exercises/index.toml",
        "exercises/book-claim.toml",
        "book.js",
    ] {
        for encoding in ["br", "gz"] {
            let copy = folder.join(format!("{name}.{encoding}"));
            assert!(!copy.exists(), "{}: written", copy.display());
        }
    }
}

#[test]
fn a_broken_exercise_names_the_chapter_line_and_the_file_line() {
    let root = scratch("broken", "broken");
    let errors = preprocess(&input(&root, &[chapter(&root, "broken.md")])).unwrap_err();
    let [
        BookError::Chapter {
            chapter,
            line,
            message,
        },
    ] = errors.as_slice()
    else {
        panic!("one chapter error: {errors:?}");
    };
    assert_eq!((chapter.as_str(), *line), ("src/broken.md", 5));
    assert!(
        message.starts_with("exercises/broken.toml:5:1: colour: unknown field `colour`"),
        "{message}"
    );
    assert!(
        !root.join("src/fencelab").exists(),
        "nothing is written for a broken book"
    );
}

#[test]
fn every_unusable_directive_is_reported_with_its_place() {
    let root = scratch("good", "unusable");
    let text =
        "# x\n{{#fencelab no-such-exercise}}\n\n{{#fencelab ../missing.toml}}\n{{#fencelab a b}}\n";
    let errors =
        preprocess(&input(&root, &[("bad.md".to_string(), text.to_string())])).unwrap_err();
    let places: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
    assert_eq!(places.len(), 3, "{places:#?}");
    // In the chapter's order, whichever step found each.
    let expected = [
        "src/bad.md:2: `no-such-exercise` is not a bundled exercise",
        "src/bad.md:4: missing.toml: cannot read: ",
        "src/bad.md:5: `{{#fencelab` takes one",
    ];
    for (place, expected) in places.iter().zip(expected) {
        assert!(place.starts_with(expected), "{places:#?}");
    }
}

#[test]
fn a_nested_chapter_finds_the_folder_above_it() {
    let root = scratch("good", "nested");
    let text = "{{#fencelab claim-compare-and-set}}\n".to_string();
    let book = preprocess(&input(&root, &[("part/deep.md".to_string(), text)])).unwrap();
    assert!(contents(&book)[0].contains("src=\"../fencelab/book.js\""));
}

#[test]
fn a_folder_of_the_authors_is_never_written_into() {
    let root = scratch("good", "foreign");
    std::fs::create_dir_all(root.join("src/fencelab")).unwrap();
    std::fs::write(root.join("src/fencelab/notes.md"), "mine").unwrap();
    let errors = preprocess(&input(&root, &[chapter(&root, "claims.md")])).unwrap_err();
    assert!(
        matches!(&errors[..], [BookError::Site(m)] if m.contains("is not mdbook-fencelab's")),
        "{errors:?}"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("src/fencelab/notes.md")).unwrap(),
        "mine"
    );
}

#[test]
fn two_files_with_one_id_are_refused_at_the_second() {
    let root = scratch("good", "clash");
    std::fs::copy(
        root.join("exercises/book-claim.toml"),
        root.join("exercises/copy.toml"),
    )
    .unwrap();
    let text =
        "{{#fencelab ../exercises/book-claim.toml}}\n\n{{#fencelab ../exercises/copy.toml}}\n";
    let table = json!({ "site-dir": "site" });
    let errors = preprocess(&input_with(
        &root,
        &[("a.md".to_string(), text.to_string())],
        table,
    ))
    .unwrap_err();
    let [BookError::Chapter { line, message, .. }] = errors.as_slice() else {
        panic!("one chapter error: {errors:?}");
    };
    assert_eq!(*line, 3);
    assert!(
        message.contains("id `book-claim` is also another file's"),
        "{message}"
    );
}

/// A directive names a file inside the book or nothing: an absolute path,
/// one that climbs out, and one that leads out through a link are refused
/// by the path as written, before the file is read (its keys never show).
#[test]
fn a_directive_never_reads_a_file_outside_the_book() {
    let root = scratch("good", "outside");
    let outside = root.with_file_name(format!(
        "{}-outside.toml",
        root.file_name().unwrap().to_string_lossy()
    ));
    std::fs::write(&outside, "secret_key = \"hunter2\"\n").unwrap();
    std::os::unix::fs::symlink(&outside, root.join("exercises/link.toml")).unwrap();
    let outside_name = outside.file_name().unwrap().to_string_lossy().into_owned();
    let text = format!(
        "{{{{#fencelab {}}}}}\n\n{{{{#fencelab ../../{outside_name}}}}}\n\n{{{{#fencelab ../exercises/link.toml}}}}\n",
        outside.display()
    );
    let errors = preprocess(&input(&root, &[("a.md".to_string(), text)])).unwrap_err();
    let places: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
    let expected = [
        format!("src/a.md:1: `{}` is an absolute path", outside.display()),
        format!("src/a.md:3: `../../{outside_name}` is outside the book"),
        "src/a.md:5: `../exercises/link.toml` leads outside the book through a symbolic link"
            .to_string(),
    ];
    assert_eq!(places.len(), expected.len(), "{places:#?}");
    for (place, expected) in places.iter().zip(&expected) {
        assert!(place.starts_with(expected.as_str()), "{places:#?}");
        assert!(!place.contains("secret_key"), "{place}");
    }
    let _ = std::fs::remove_file(&outside);
}

/// `[book] src` outside the book's folder would have the preprocessor write
/// there: refused, and nothing is written.
#[test]
fn a_source_folder_outside_the_book_is_refused() {
    let root = scratch("good", "src-outside");
    let chapters = [chapter(&root, "claims.md")];
    for src in ["../elsewhere", "/tmp"] {
        let input =
            input(&root, &chapters).replacen("\"src\":\"src\"", &format!("\"src\":{src:?}"), 1);
        assert!(input.contains(&format!("\"src\":{src:?}")), "{input}");
        let errors = preprocess(&input).unwrap_err();
        assert!(
            matches!(&errors[..], [BookError::Config(m)] if m.contains("is not a folder inside the book's")),
            "{errors:?}"
        );
    }
    assert!(!root.with_file_name("elsewhere").exists());
}

/// A link in the preprocessor's folder (a committed `exercises/ID.toml`
/// pointing elsewhere) is never written through, and a site with a link in
/// it is never copied: each is refused by its path, its target untouched.
#[test]
fn links_in_the_folder_or_the_site_are_refused() {
    let root = scratch("good", "links");
    std::fs::create_dir_all(root.join("site/exercises")).unwrap();
    std::fs::write(root.join("site/index.html"), "<!doctype html>").unwrap();
    std::fs::write(root.join("site/embed.js"), "export {};").unwrap();
    let chapters = [chapter(&root, "own-claim.md")];
    let table = json!({ "site-dir": "site" });
    preprocess(&input_with(&root, &chapters, table.clone())).unwrap();

    let victim = root.join("victim.txt");
    std::fs::write(&victim, "someone's file").unwrap();
    let written = root.join("src/fencelab/exercises/book-claim.toml");
    std::fs::remove_file(&written).unwrap();
    std::os::unix::fs::symlink(&victim, &written).unwrap();
    let errors = preprocess(&input_with(&root, &chapters, table.clone())).unwrap_err();
    assert!(
        matches!(&errors[..], [BookError::Site(m)] if m.contains("book-claim.toml: is a symbolic link")),
        "{errors:?}"
    );
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "someone's file");
    std::fs::remove_file(&written).unwrap();

    std::os::unix::fs::symlink(&victim, root.join("site/secret.txt")).unwrap();
    let errors = preprocess(&input_with(&root, &chapters, table)).unwrap_err();
    assert!(
        matches!(&errors[..], [BookError::Site(m)] if m.contains("secret.txt: is a symbolic link")),
        "{errors:?}"
    );
    assert!(!root.join("src/fencelab/secret.txt").exists());
}
