//! What `cargo xtask serve` answers to a request, decided from the request
//! and the files alone (no socket): which file, which precompressed copy,
//! and every header that says how to cache and read it.

use super::{Body, Request, Response};
use std::path::{Component, Path, PathBuf};
use std::time::UNIX_EPOCH;

const IMMUTABLE: &str = "public, max-age=31536000, immutable";
pub(super) const REVALIDATE: &str = "no-cache";
/// The one file other origins may read: the embedding script.
const EMBED_SCRIPT: &str = "embed.js";

/// The answer to `request` from the site at `root` (canonical).
pub fn respond(root: &Path, request: &Request) -> Response {
    if request.method != "GET" && request.method != "HEAD" {
        let mut response = Response::error(405);
        response.headers.push(("Allow", "GET, HEAD".into()));
        return response;
    }
    let file = match resolve(root, &request.target) {
        Ok(file) => file,
        Err(status) => return Response::error(status),
    };
    let encoding = choose_encoding(request.header("accept-encoding").unwrap_or(""), |coding| {
        fresh_copy(&file, coding)
    });
    let sent = match encoding {
        Some(coding) => copy_path(&file, coding),
        None => file.clone(),
    };
    let Ok(metadata) = std::fs::metadata(&sent) else {
        return Response::error(404);
    };
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut headers = vec![
        ("Cache-Control", cache_control(&name).to_string()),
        ("ETag", etag(&metadata, encoding)),
        ("Vary", "Accept-Encoding".to_string()),
    ];
    if none_match(request.header("if-none-match"), &headers[1].1) {
        return Response {
            status: 304,
            headers,
            body: Body::Empty,
        };
    }
    headers.push(("Content-Type", content_type(&name).to_string()));
    headers.push(("X-Content-Type-Options", "nosniff".to_string()));
    // A course page on another origin imports embed.js as a module, which
    // the browser fetches with CORS (docs/EMBEDDING.md).
    if name == EMBED_SCRIPT {
        headers.push(("Access-Control-Allow-Origin", "*".to_string()));
    }
    if let Some(coding) = encoding {
        headers.push(("Content-Encoding", coding.to_string()));
    }
    Response {
        status: 200,
        headers,
        body: Body::File(sent),
    }
}

/// The file a request target names inside `root`: the query dropped,
/// percent-escapes decoded, a folder standing for its index.html. A `..`
/// segment, a backslash or NUL, or a path leaving `root` through a link is
/// refused (403); a missing file is 404.
fn resolve(root: &Path, target: &str) -> Result<PathBuf, u16> {
    let path = target.split(['?', '#']).next().unwrap_or("");
    if !path.starts_with('/') {
        return Err(400);
    }
    let decoded = percent_decode(path).ok_or(400u16)?;
    if decoded.contains(['\\', '\0']) {
        return Err(403);
    }
    let mut file = root.to_path_buf();
    for segment in decoded.split('/') {
        match segment {
            "" | "." => {}
            ".." => return Err(403),
            _ => file.push(segment),
        }
    }
    // Nothing but plain names can have been pushed.
    if file
        .components()
        .any(|c| matches!(c, Component::ParentDir | Component::Prefix(_)))
    {
        return Err(403);
    }
    if file.is_dir() {
        file.push("index.html");
    }
    let real = file.canonicalize().map_err(|_| 404u16)?;
    if !real.starts_with(root) {
        return Err(403);
    }
    if real.is_file() { Ok(real) } else { Err(404) }
}

fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// The content codings this server has copies for, most preferred first.
const CODINGS: [&str; 2] = ["br", "gzip"];

fn copy_path(file: &Path, coding: &str) -> PathBuf {
    let suffix = if coding == "br" { "br" } else { "gz" };
    let mut name = file.as_os_str().to_owned();
    name.push(".");
    name.push(suffix);
    PathBuf::from(name)
}

/// Whether `file` has a `coding` copy at least as new as itself: a file
/// edited after the site was built is sent as it is, never an old copy.
fn fresh_copy(file: &Path, coding: &str) -> bool {
    let modified = |path: &Path| std::fs::metadata(path).and_then(|m| m.modified()).ok();
    match (modified(&copy_path(file, coding)), modified(file)) {
        (Some(copy), Some(original)) => copy >= original,
        _ => false,
    }
}

/// The coding to send: the first of [`CODINGS`] that the request's
/// `Accept-Encoding` allows (named with a q above 0, or covered by `*`) and
/// that `available` has a copy for; `None` sends the file as it is.
pub fn choose_encoding(accept: &str, available: impl Fn(&str) -> bool) -> Option<&'static str> {
    let weights: Vec<(String, f32)> = accept
        .split(',')
        .filter_map(|item| {
            let mut parts = item.split(';');
            let coding = parts.next()?.trim().to_ascii_lowercase();
            if coding.is_empty() {
                return None;
            }
            let q = parts
                .filter_map(|p| p.trim().strip_prefix("q=").map(str::to_string))
                .next()
                .map_or(Some(1.0), |q| q.trim().parse::<f32>().ok())?;
            Some((coding, q))
        })
        .collect();
    let weight = |coding: &str| {
        weights
            .iter()
            .find(|(c, _)| c == coding)
            .or_else(|| weights.iter().find(|(c, _)| c == "*"))
            .map_or(0.0, |(_, q)| *q)
    };
    CODINGS
        .into_iter()
        .find(|coding| weight(coding) > 0.0 && available(coding))
}

/// A hashed name ([`crate::hashed`]) always holds the same bytes: the
/// browser keeps it for a year without asking. Every other file is asked
/// about each time (and answered 304 while unchanged).
pub fn cache_control(name: &str) -> &'static str {
    if crate::hashed::is_hashed(name) {
        IMMUTABLE
    } else {
        REVALIDATE
    }
}

pub fn content_type(name: &str) -> &'static str {
    let extension = name.rsplit_once('.').map_or("", |(_, ext)| ext);
    match extension {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "wasm" => "application/wasm",
        "toml" => "application/toml; charset=utf-8",
        "json" => "application/json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ico" => "image/x-icon",
        "txt" | "md" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

/// A strong validator of the bytes sent: their length and modification
/// time, and the coding (each coding is a different representation).
fn etag(metadata: &std::fs::Metadata, coding: Option<&str>) -> String {
    let nanos = metadata
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos());
    match coding {
        Some(coding) => format!("\"{:x}-{nanos:x}-{coding}\"", metadata.len()),
        None => format!("\"{:x}-{nanos:x}\"", metadata.len()),
    }
}

/// Whether an `If-None-Match` header matches `etag` (weak comparison, as
/// RFC 9110 asks for this header).
fn none_match(header: Option<&str>, etag: &str) -> bool {
    let Some(header) = header else { return false };
    header
        .split(',')
        .map(str::trim)
        .any(|tag| tag == "*" || tag.strip_prefix("W/").unwrap_or(tag) == etag)
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use std::time::Duration;

    /// A scratch site: index.html with both copies, a wasm file with a
    /// brotli copy only, an exercise, and a hashed asset.
    pub(crate) fn site(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("xtask-serve-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("exercises")).unwrap();
        std::fs::write(dir.join("index.html"), "<!doctype html>page").unwrap();
        std::fs::write(dir.join("index.html.br"), "BR").unwrap();
        std::fs::write(dir.join("index.html.gz"), "GZ").unwrap();
        std::fs::write(dir.join("app_bg.wasm"), "\0asm....").unwrap();
        std::fs::write(dir.join("app_bg.wasm.br"), "BRW").unwrap();
        std::fs::write(dir.join("exercises/index.toml"), "format = 1\n").unwrap();
        std::fs::write(dir.join("editor-0123456789abcdef.js"), "x").unwrap();
        dir.canonicalize().unwrap()
    }

    pub(crate) fn get(target: &str, headers: &[(&str, &str)]) -> Request {
        Request {
            method: "GET".into(),
            target: target.into(),
            headers: headers
                .iter()
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect(),
            close: false,
        }
    }

    fn header<'a>(response: &'a Response, name: &str) -> Option<&'a str> {
        response
            .headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    #[test]
    fn brotli_is_preferred_then_gzip_then_the_file_itself() {
        let all = |_: &str| true;
        assert_eq!(choose_encoding("gzip, deflate, br", all), Some("br"));
        assert_eq!(choose_encoding("gzip, deflate, br, zstd", all), Some("br"));
        assert_eq!(choose_encoding("gzip", all), Some("gzip"));
        assert_eq!(choose_encoding("br;q=0, gzip;q=0.5", all), Some("gzip"));
        assert_eq!(choose_encoding("*", all), Some("br"));
        assert_eq!(choose_encoding("*;q=0, gzip", all), Some("gzip"));
        assert_eq!(choose_encoding("identity", all), None);
        assert_eq!(choose_encoding("", all), None);
        assert_eq!(choose_encoding("br;q=oops", all), None);
        assert_eq!(choose_encoding("br, gzip", |c| c == "gzip"), Some("gzip"));
        assert_eq!(choose_encoding("br", |c| c == "gzip"), None);
    }

    #[test]
    fn the_copy_the_browser_accepts_is_sent_with_its_headers() {
        let root = site("codings");
        let response = respond(&root, &get("/", &[("accept-encoding", "gzip, br")]));
        assert_eq!(response.status, 200);
        assert_eq!(header(&response, "Content-Encoding"), Some("br"));
        assert_eq!(header(&response, "Vary"), Some("Accept-Encoding"));
        assert_eq!(
            header(&response, "Content-Type"),
            Some("text/html; charset=utf-8")
        );
        assert!(matches!(&response.body, Body::File(p) if p.ends_with("index.html.br")));

        let response = respond(&root, &get("/app_bg.wasm", &[("accept-encoding", "gzip")]));
        assert_eq!(header(&response, "Content-Encoding"), None, "no .gz copy");
        assert_eq!(header(&response, "Content-Type"), Some("application/wasm"));
        assert!(matches!(&response.body, Body::File(p) if p.ends_with("app_bg.wasm")));
        assert_eq!(header(&response, "Vary"), Some("Accept-Encoding"));
    }

    #[test]
    fn only_the_embedding_script_may_be_read_by_other_origins() {
        let root = site("cors");
        std::fs::write(root.join("embed.js"), "export function embed() {}").unwrap();
        let embed = respond(&root, &get("/embed.js", &[]));
        assert_eq!(embed.status, 200);
        assert_eq!(header(&embed, "Access-Control-Allow-Origin"), Some("*"));
        let page = respond(&root, &get("/index.html", &[]));
        assert_eq!(header(&page, "Access-Control-Allow-Origin"), None);
    }

    #[test]
    fn a_copy_older_than_its_file_is_not_sent() {
        let root = site("stale");
        std::thread::sleep(Duration::from_millis(20));
        std::fs::write(root.join("index.html"), "<!doctype html>edited").unwrap();
        let response = respond(
            &root,
            &get("/index.html", &[("accept-encoding", "br, gzip")]),
        );
        assert_eq!(header(&response, "Content-Encoding"), None);
        assert!(matches!(&response.body, Body::File(p) if p.ends_with("index.html")));
    }

    #[test]
    fn the_page_and_exercises_revalidate_and_hashed_assets_are_immutable() {
        let root = site("cache");
        for target in ["/", "/index.html", "/exercises/index.toml", "/app_bg.wasm"] {
            let response = respond(&root, &get(target, &[]));
            assert_eq!(
                header(&response, "Cache-Control"),
                Some("no-cache"),
                "{target}"
            );
            assert!(header(&response, "ETag").is_some(), "{target}");
        }
        let response = respond(&root, &get("/editor-0123456789abcdef.js", &[]));
        assert_eq!(
            header(&response, "Cache-Control"),
            Some("public, max-age=31536000, immutable")
        );
        assert_eq!(
            header(&response, "Content-Type"),
            Some("text/javascript; charset=utf-8")
        );
        let toml = respond(&root, &get("/exercises/index.toml", &[]));
        assert_eq!(
            header(&toml, "Content-Type"),
            Some("application/toml; charset=utf-8")
        );
        for hashed in [
            "worker_bg-0123456789abcdef.wasm",
            "fencelab-web-0123456789abcdef_bg.wasm",
        ] {
            assert_eq!(cache_control(hashed), IMMUTABLE, "{hashed}");
        }
        for plain in [
            "sw.js",
            "embed.js",
            "fencelab-web_bg.wasm",
            "my-course-claim.toml",
        ] {
            assert_eq!(cache_control(plain), REVALIDATE, "{plain}");
        }
    }

    #[test]
    fn an_unchanged_file_is_answered_304_and_a_changed_one_200() {
        let root = site("etag");
        let first = respond(&root, &get("/exercises/index.toml", &[]));
        let tag = header(&first, "ETag").unwrap().to_string();
        let again = respond(
            &root,
            &get("/exercises/index.toml", &[("if-none-match", &tag)]),
        );
        assert_eq!(again.status, 304);
        assert_eq!(header(&again, "ETag"), Some(tag.as_str()));
        assert!(matches!(again.body, Body::Empty));
        let weak = format!("\"other\", W/{tag}");
        let again = respond(
            &root,
            &get("/exercises/index.toml", &[("if-none-match", &weak)]),
        );
        assert_eq!(again.status, 304);

        std::thread::sleep(Duration::from_millis(20));
        std::fs::write(
            root.join("exercises/index.toml"),
            "format = 1\nexercises = []\n",
        )
        .unwrap();
        let changed = respond(
            &root,
            &get("/exercises/index.toml", &[("if-none-match", &tag)]),
        );
        assert_eq!(changed.status, 200);
        assert_ne!(header(&changed, "ETag"), Some(tag.as_str()));

        // Each coding is its own representation, with its own tag.
        let br = respond(&root, &get("/", &[("accept-encoding", "br")]));
        let plain = respond(&root, &get("/", &[]));
        assert_ne!(header(&br, "ETag"), header(&plain, "ETag"));
    }

    #[test]
    fn traversal_missing_files_and_other_methods_are_refused() {
        let root = site("refused");
        let outside = root
            .parent()
            .unwrap()
            .join(format!("xtask-serve-secret-{}", std::process::id()));
        std::fs::write(&outside, "secret").unwrap();
        let secret = format!("/../{}", outside.file_name().unwrap().to_string_lossy());
        for target in [
            secret.as_str(),
            "/exercises/../../etc/passwd",
            "/%2e%2e/etc/passwd",
            "/exercises/..%2f..%2fetc/passwd",
            "/a%5c..%5cb",
            "/a%00",
        ] {
            let status = respond(&root, &get(target, &[])).status;
            assert!(status == 403 || status == 400, "{target}: {status}");
        }
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(&outside, root.join("link.txt")).unwrap();
            assert_eq!(respond(&root, &get("/link.txt", &[])).status, 403);
        }
        assert_eq!(respond(&root, &get("/nothing.js", &[])).status, 404);
        assert_eq!(respond(&root, &get("/%zz", &[])).status, 400);
        assert_eq!(respond(&root, &get("http://x/", &[])).status, 400);
        let mut post = get("/", &[]);
        post.method = "POST".into();
        let response = respond(&root, &post);
        assert_eq!(response.status, 405);
        assert_eq!(header(&response, "Allow"), Some("GET, HEAD"));
        let _ = std::fs::remove_file(outside);
    }
}
