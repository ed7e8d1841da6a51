//! Where a built file names another, and renaming it there: the text half
//! of [`super`]. A reference is a whole file name of the site's top level in
//! a quoted string or a path (`"./boot.js"`, `'worker_bg.wasm'`,
//! `/style.css`, `url(a.png)`); any other occurrence of the same letters
//! (`n.style.cssText`, `web/editor/editor.js` in a comment) is left alone.

use std::collections::{BTreeMap, BTreeSet};

/// trunk puts an `integrity` hash of a file's bytes on the tag that loads it
/// (the stylesheet's `<link>`). A file whose references were rewritten has
/// other bytes, and the browser would refuse it: on a tag naming one of
/// `rewritten`, that attribute is dropped (the file's name now says what
/// its bytes are). Every other tag is kept as it is.
pub(super) fn drop_stale_integrity(html: &str, rewritten: &BTreeSet<String>) -> String {
    const ATTRIBUTE: &str = " integrity=\"";
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(start) = rest.find('<') {
        let end = rest[start..]
            .find('>')
            .map_or(rest.len(), |at| start + at + 1);
        let tag = &rest[start..end];
        out.push_str(&rest[..start]);
        let stale = rewritten.iter().any(|name| tag.contains(name.as_str()));
        match tag.find(ATTRIBUTE) {
            Some(at) if stale => {
                let value = at + ATTRIBUTE.len();
                let close = tag[value..].find('"').map_or(tag.len(), |q| value + q + 1);
                out.push_str(&tag[..at]);
                out.push_str(&tag[close..]);
            }
            _ => out.push_str(tag),
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// Files that are text but only data: the bundled exercises' loaded form
/// (web/src/catalog.rs) quotes lessons, whose prose may name a file as the
/// site does; it names none of the site's files and is never rewritten.
const DATA: &[&str] = &["catalog.json"];

/// The extensions of files that can name other files; anything else (wasm,
/// images, [`DATA`]) is bytes that are hashed as they are.
fn is_text(name: &str) -> bool {
    if DATA.contains(&name) {
        return false;
    }
    let extension = name.rsplit_once('.').map_or("", |(_, ext)| ext);
    matches!(
        extension,
        "js" | "mjs" | "css" | "html" | "json" | "webmanifest"
    )
}

/// The names among `names` (other than `name` itself) that `bytes` refers to.
pub(super) fn references(name: &str, bytes: &[u8], names: &BTreeSet<String>) -> BTreeSet<String> {
    if !is_text(name) {
        return BTreeSet::new();
    }
    names
        .iter()
        .filter(|other| *other != name && !occurrences(bytes, other.as_bytes()).is_empty())
        .cloned()
        .collect()
}

/// Where `needle` occurs in `haystack` as the name of a file at the site's
/// top: right after a quote or a `(`, or after `./` or `/` that itself
/// follows one of those; and before a quote, a `)`, a `?` or a `#`. A name
/// deeper in a path (`web/editor/editor.js)` in a comment) is not one.
fn occurrences(haystack: &[u8], needle: &[u8]) -> Vec<usize> {
    const OPEN: &[u8] = b"\"'`(";
    const AFTER: &[u8] = b"\"'`)?#";
    if needle.is_empty() || haystack.len() < needle.len() {
        return Vec::new();
    }
    let opens_here = |before: &[u8]| {
        let before = before
            .strip_suffix(b"/")
            .map(|rest| rest.strip_suffix(b".").unwrap_or(rest))
            .unwrap_or(before);
        before.last().is_some_and(|byte| OPEN.contains(byte))
    };
    (1..haystack.len() - needle.len())
        .filter(|&at| {
            haystack[at..].starts_with(needle)
                && opens_here(&haystack[..at])
                && AFTER.contains(&haystack[at + needle.len()])
        })
        .collect()
}

/// `bytes` of the file `name` with every reference to a renamed file
/// replaced by its new name (text files only).
pub(super) fn rewrite(name: &str, bytes: Vec<u8>, renames: &BTreeMap<String, String>) -> Vec<u8> {
    if !is_text(name) {
        return bytes;
    }
    let mut bytes = bytes;
    for (old, new) in renames {
        let at = occurrences(&bytes, old.as_bytes());
        if at.is_empty() {
            continue;
        }
        let grows = new.len().saturating_sub(old.len());
        let mut out = Vec::with_capacity(bytes.len() + at.len() * grows);
        let mut from = 0;
        for start in at {
            out.extend_from_slice(&bytes[from..start]);
            out.extend_from_slice(new.as_bytes());
            from = start + old.len();
        }
        out.extend_from_slice(&bytes[from..]);
        bytes = out;
    }
    bytes
}
