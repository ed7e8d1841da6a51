//! `cargo xtask serve`'s static file server, std only: a built site served
//! the way a well-configured static host serves it, so what is measured and
//! tested locally is what an author's host does.
//!
//! - The precompressed copy beside a file (`NAME.br`, `NAME.gz`, written by
//!   `cargo xtask dist`) is sent when the request's `Accept-Encoding` allows
//!   it, brotli first, with `Content-Encoding` and `Vary: Accept-Encoding`.
//! - Files whose names carry a content hash (every asset of a built site:
//!   see `hashed.rs`) are immutable for a year; every other file (the page,
//!   the service worker, embed.js, the exercises) is `no-cache`,
//!   revalidated by its `ETag` and answered 304 when unchanged.
//! - GET and HEAD only; `..` and anything resolving outside the site is
//!   refused; a thread per connection, HTTP/1.1 keep-alive; no panics (every
//!   failure is a status code or a closed connection).
//!
//! This file holds the wire (connections, reading a request's head, writing
//! an answer); what to answer is decided in `answer.rs`, as plain functions
//! of the request and the files, tested there without a socket.

mod answer;

use answer::{REVALIDATE, respond};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The most bytes of request line and headers read before answering 431.
const HEAD_BYTES_MAX: u64 = 16 * 1024;
/// An idle keep-alive connection is closed after this long.
const IDLE: Duration = Duration::from_secs(15);

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
    use super::answer::tests::{get, site};
    use super::*;

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
