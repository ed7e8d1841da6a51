//! `cargo xtask serve`'s static file server, std only: a built site served
//! the way a well-configured static host serves it, so what is measured and
//! tested locally is what an author's host does.
//!
//! - The precompressed copy beside a file (`NAME.br`, `NAME.gz`, written by
//!   `cargo xtask dist`) is sent when the request's `Accept-Encoding` allows
//!   it, brotli first, with `Content-Encoding` and `Vary: Accept-Encoding`.
//! - Files whose names carry a content hash are immutable for a year; every
//!   other file (the page, the service worker, the exercises, and today all
//!   assets, whose names are stable: see docs/ARCHITECTURE.md) is
//!   `no-cache`, revalidated by its `ETag` and answered 304 when unchanged.
//! - GET and HEAD only; `..` and anything resolving outside the site is
//!   refused; a thread per connection, HTTP/1.1 keep-alive; no panics (every
//!   failure is a status code or a closed connection).
//!
//! The decisions are plain functions of the request and the files, tested
//! below without a socket.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};
use std::time::{Duration, UNIX_EPOCH};

/// The most bytes of request line and headers read before answering 431.
const HEAD_BYTES_MAX: u64 = 16 * 1024;
/// An idle keep-alive connection is closed after this long.
const IDLE: Duration = Duration::from_secs(15);
const IMMUTABLE: &str = "public, max-age=31536000, immutable";
const REVALIDATE: &str = "no-cache";

/// Serves `dir` on 127.0.0.1:`port` (0 picks a free port) until the
/// process ends. The first line printed names the address.
pub fn run(dir: &Path, port: u16) -> Result<(), String> {
    let root = dir
        .canonicalize()
        .map_err(|e| format!("cannot serve {}: {e}", dir.display()))?;
    let listener = TcpListener::bind(("127.0.0.1", port))
        .map_err(|e| format!("cannot listen on 127.0.0.1:{port}: {e}"))?;
    let address = listener
        .local_addr()
        .map_err(|e| format!("cannot read the listening address: {e}"))?;
    println!(
        "xtask: serving {} at http://{address}/ (Ctrl-C stops)",
        root.display()
    );
    let _ = std::io::stdout().flush();
    accept(&listener, &root);
    Ok(())
}

/// Answers every connection on its own thread, for as long as the
/// listener lives.
fn accept(listener: &TcpListener, root: &Path) {
    for stream in listener.incoming() {
        let Ok(stream) = stream else { continue };
        let root = root.to_path_buf();
        // A thread that cannot be started drops its connection, nothing more.
        let _ = std::thread::Builder::new()
            .name("serve".into())
            .spawn(move || connection(stream, &root));
    }
}

/// Answers requests on one connection until either side closes it.
fn connection(mut stream: TcpStream, root: &Path) {
    let _ = stream.set_read_timeout(Some(IDLE));
    let _ = stream.set_write_timeout(Some(IDLE));
    let Ok(reading) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(reading);
    loop {
        let (request, response) = match read_request(&mut reader) {
            Ok(None) => return,
            Ok(Some(request)) => {
                let response = respond(root, &request);
                (Some(request), response)
            }
            Err(status) => (None, Response::error(status)),
        };
        let head_only = request.as_ref().is_some_and(|r| r.method == "HEAD");
        if write_response(&mut stream, &response, head_only).is_err() {
            return;
        }
        if request.is_none_or(|r| r.close) {
            return;
        }
    }
}

/// One request's line and headers (header names in lowercase).
#[derive(Debug)]
pub struct Request {
    pub method: String,
    pub target: String,
    pub headers: Vec<(String, String)>,
    /// The connection ends after this answer: HTTP/1.0, `Connection: close`,
    /// or a body this server does not read.
    pub close: bool,
}

impl Request {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Reads the next request's head; `Ok(None)` when the peer closed or went
/// idle first, `Err(status)` for a request that cannot be answered.
fn read_request(reader: &mut impl BufRead) -> Result<Option<Request>, u16> {
    let mut limited = reader.take(HEAD_BYTES_MAX);
    let mut line = String::new();
    match limited.read_line(&mut line) {
        Ok(0) | Err(_) if line.is_empty() => return Ok(None),
        Ok(_) => {}
        Err(_) => return Err(400),
    }
    let mut words = line.split_whitespace();
    let (Some(method), Some(target), Some(version), None) =
        (words.next(), words.next(), words.next(), words.next())
    else {
        return Err(400);
    };
    let mut headers = Vec::new();
    loop {
        let mut header = String::new();
        match limited.read_line(&mut header) {
            Ok(0) => return Err(if limited.limit() == 0 { 431 } else { 400 }),
            Ok(_) => {}
            Err(_) => return Err(400),
        }
        let header = header.trim_end_matches(['\r', '\n']);
        if header.is_empty() {
            break;
        }
        let (name, value) = header.split_once(':').ok_or(400u16)?;
        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
    }
    let mut request = Request {
        method: method.to_string(),
        target: target.to_string(),
        headers,
        close: version != "HTTP/1.1",
    };
    let has_body = request.header("transfer-encoding").is_some()
        || request
            .header("content-length")
            .is_some_and(|length| length.trim() != "0");
    request.close |= has_body
        || request
            .header("connection")
            .is_some_and(|c| c.to_ascii_lowercase().contains("close"));
    Ok(Some(request))
}

/// What to send back.
#[derive(Debug)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(&'static str, String)>,
    pub body: Body,
}

#[derive(Debug)]
pub enum Body {
    Empty,
    Text(String),
    File(PathBuf),
}

impl Response {
    fn error(status: u16) -> Response {
        let text = format!("{status} {}\n", reason(status));
        Response {
            status,
            headers: vec![
                ("Content-Type", "text/plain; charset=utf-8".into()),
                ("Cache-Control", REVALIDATE.into()),
            ],
            body: Body::Text(text),
        }
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        304 => "Not Modified",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        431 => "Request Header Fields Too Large",
        _ => "Internal Server Error",
    }
}

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

/// Whether a file name carries a content hash as trunk writes it
/// (`NAME-<16 hex digits>` before the extension or `_bg`): such a file never
/// changes under its name.
fn is_hashed(name: &str) -> bool {
    // Bytes, not text: a name may have any characters around the hash.
    let bytes = name.as_bytes();
    bytes.iter().enumerate().any(|(at, &byte)| {
        let rest = &bytes[at + 1..];
        byte == b'-'
            && rest.len() > 16
            && rest[..16].iter().all(u8::is_ascii_hexdigit)
            && matches!(rest[16], b'.' | b'_')
    })
}

pub fn cache_control(name: &str) -> &'static str {
    if is_hashed(name) {
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

fn write_response(
    stream: &mut impl Write,
    response: &Response,
    head_only: bool,
) -> std::io::Result<()> {
    let mut file = None;
    let length = match &response.body {
        Body::Empty => 0,
        Body::Text(text) => text.len() as u64,
        Body::File(path) => {
            let opened = std::fs::File::open(path)?;
            let length = opened.metadata()?.len();
            file = Some(opened);
            length
        }
    };
    let mut head = format!(
        "HTTP/1.1 {} {}\r\n",
        response.status,
        reason(response.status)
    );
    for (name, value) in &response.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    if response.status != 304 {
        head.push_str(&format!("Content-Length: {length}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes())?;
    if !head_only {
        match (&response.body, file) {
            (Body::Text(text), _) => stream.write_all(text.as_bytes())?,
            (Body::File(_), Some(file)) => {
                std::io::copy(&mut file.take(length), stream)?;
            }
            _ => {}
        }
    }
    stream.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scratch site: index.html with both copies, a wasm file with a
    /// brotli copy only, an exercise, and a hashed asset.
    fn site(name: &str) -> PathBuf {
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

    fn get(target: &str, headers: &[(&str, &str)]) -> Request {
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
        assert!(is_hashed("fencelab-web-0123456789abcdef_bg.wasm"));
        for plain in [
            "sw.js",
            "fencelab-web_bg.wasm",
            "my-course-claim.toml",
            "a-0123456789abcde.js",
            "a-ééééééééé.js",
            "é-",
        ] {
            assert!(!is_hashed(plain), "{plain}");
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

    #[test]
    fn requests_are_read_from_the_wire_and_bad_ones_are_statuses() {
        let read = |text: &str| read_request(&mut BufReader::new(text.as_bytes()));
        let request = read("GET /a?b HTTP/1.1\r\nAccept-Encoding: br\r\n\r\n")
            .unwrap()
            .unwrap();
        assert_eq!(request.target, "/a?b");
        assert_eq!(request.header("accept-encoding"), Some("br"));
        assert!(!request.close);
        assert!(read("GET / HTTP/1.0\r\n\r\n").unwrap().unwrap().close);
        assert!(
            read("GET / HTTP/1.1\r\nConnection: close\r\n\r\n")
                .unwrap()
                .unwrap()
                .close
        );
        assert!(
            read("POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello")
                .unwrap()
                .unwrap()
                .close
        );
        assert!(read("").unwrap().is_none());
        assert_eq!(read("GARBAGE\r\n\r\n").unwrap_err(), 400);
        assert_eq!(read("GET / HTTP/1.1\r\nno colon\r\n\r\n").unwrap_err(), 400);
        let huge = format!("GET / HTTP/1.1\r\nX: {}\r\n\r\n", "a".repeat(20_000));
        assert_eq!(read(&huge).unwrap_err(), 431);
    }

    #[test]
    fn an_idle_connection_holds_up_no_other_and_one_connection_carries_many_requests() {
        let root = site("sockets");
        let listener = TcpListener::bind(("127.0.0.1", 0)).unwrap();
        let address = listener.local_addr().unwrap();
        std::thread::spawn(move || accept(&listener, &root));
        let _idle = TcpStream::connect(address).unwrap();
        let mut busy = TcpStream::connect(address).unwrap();
        busy.set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        busy.write_all(
            b"GET /exercises/index.toml HTTP/1.1\r\nHost: x\r\n\r\n\
              HEAD / HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\nConnection: close\r\n\r\n",
        )
        .unwrap();
        let mut answer = String::new();
        busy.read_to_string(&mut answer).unwrap();
        assert_eq!(answer.matches("HTTP/1.1 200 OK\r\n").count(), 2, "{answer}");
        assert!(
            answer.contains("\r\n\r\nformat = 1\nHTTP/1.1 200 OK"),
            "{answer}"
        );
        assert!(answer.contains("Content-Encoding: gzip\r\n"), "{answer}");
        assert!(answer.ends_with("Content-Length: 2\r\n\r\n"), "{answer}");
    }

    #[test]
    fn head_sends_the_length_without_the_body() {
        let root = site("head");
        let response = respond(&root, &get("/index.html", &[]));
        let mut wire = Vec::new();
        write_response(&mut wire, &response, true).unwrap();
        let text = String::from_utf8(wire).unwrap();
        assert!(text.starts_with("HTTP/1.1 200 OK\r\n"), "{text}");
        assert!(text.contains("Content-Length: 19\r\n"), "{text}");
        assert!(text.ends_with("\r\n\r\n"), "{text}");
        let mut wire = Vec::new();
        write_response(&mut wire, &response, false).unwrap();
        assert!(
            String::from_utf8(wire)
                .unwrap()
                .ends_with("\r\n\r\n<!doctype html>page")
        );
    }
}
