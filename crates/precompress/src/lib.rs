//! The compressed copies beside a built site's files, kept true to the file.
//!
//! `cargo xtask dist` writes `NAME.br` (brotli) and `NAME.gz` (gzip) beside
//! every file of the site (crates/xtask/compress.mjs), and a host with
//! `brotli_static` or `gzip_static` sends the copy in the file's place
//! without looking at the file. So a tool that changes a file of a
//! precompressed site after that (`cargo xtask site-pages`, mdbook-fencelab
//! writing a book's exercises into its copy of a site) must write the copies
//! again, or remove them: an old copy is an old exercise to the learner.
//! [`refresh`] does that for one file the tool changed, and is the only
//! place either tool does it.
//!
//! Must never: write through a symbolic link (an old copy that is a link is
//! removed, the link itself, and a new file made), leave a copy that
//! decodes to anything but the file's bytes, or write a copy into a site
//! that has none (the host would then send a compressed copy of one file
//! and the plain bytes of the rest, which is harmless but not what the
//! author built).
//!
//! Limitations: a copy is written only when it is smaller than the file, as
//! compress.mjs does; otherwise the host sends the file. Brotli at quality
//! 11 is slow on large files; the tools hand it pages and exercise files.

use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The copies a host sends in a file's place: the file's name with this
/// suffix, and the encoding each holds.
pub const COPIES: [(&str, Encoding); 2] = [(".br", Encoding::Brotli), (".gz", Encoding::Gzip)];

/// The files whose copies say the site is precompressed: `dist` writes a
/// copy of each, as every file it compresses is smaller so.
const PRECOMPRESSED_BY: [&str; 2] = ["index.html", "sw.js"];

/// Brotli's quality and window, as compress.mjs asks node's zlib for them
/// (its largest quality; zlib's default window, 2^22 bytes).
const BROTLI_QUALITY: i32 = 11;
const BROTLI_WINDOW_LOG2: i32 = 22;

/// A content encoding a copy holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    Brotli,
    Gzip,
}

/// Why a file's copies could not be made true.
#[derive(Debug)]
pub enum Error {
    /// The file, or one of its copies, could not be read, written or
    /// removed.
    Io {
        path: PathBuf,
        doing: &'static str,
        error: std::io::Error,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Io { path, doing, error } => {
                write!(f, "{}: cannot {doing}: {error}", path.display())
            }
        }
    }
}

impl std::error::Error for Error {}

/// What [`refresh`] did to one copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Copy {
    /// Written with the file's bytes compressed.
    Written,
    /// Already held the file's bytes compressed; left as it was, so a
    /// watcher (`mdbook serve`) is not set off.
    Unchanged,
    /// Removed, or there was none: the host sends the file.
    None,
}

/// Whether the built site in `site` carries compressed copies: its front
/// page or its service worker has one.
pub fn is_precompressed(site: &Path) -> bool {
    PRECOMPRESSED_BY.iter().any(|name| {
        COPIES
            .iter()
            .any(|(suffix, _)| site.join(format!("{name}{suffix}")).is_file())
    })
}

/// Makes the copies beside `file`, a file a tool changed (or removed) in
/// the site `site`, true to it: when the site is precompressed and the file
/// is there, each copy is written fresh if smaller than the file; every
/// other copy is removed. Answers what became of each copy, in
/// [`COPIES`]'s order.
pub fn refresh(site: &Path, file: &Path) -> Result<[Copy; 2], Error> {
    let bytes = if is_precompressed(site) && is_plain_file(file) {
        Some(std::fs::read(file).map_err(io(file, "read"))?)
    } else {
        None
    };
    let mut done = [Copy::None; 2];
    for (slot, (suffix, encoding)) in done.iter_mut().zip(COPIES) {
        let mut name = file.as_os_str().to_owned();
        name.push(suffix);
        let copy = PathBuf::from(name);
        let fresh = bytes
            .as_deref()
            .map(|bytes| (compress(encoding, file, bytes), bytes.len()))
            .and_then(|(compressed, len)| (compressed.len() < len).then_some(compressed));
        *slot = match fresh {
            Some(compressed) => write_if_changed(&copy, &compressed)?,
            None => {
                remove(&copy)?;
                Copy::None
            }
        };
    }
    Ok(done)
}

/// `bytes` of `file` in `encoding`: brotli in text mode but for wasm, as
/// compress.mjs writes it; gzip at its best level (gzip -9).
/// A copy's bytes decoded as a browser decodes its `Content-Encoding`
/// (`.br` brotli, else gzip): what a test compares with the file.
pub fn decoded(copy: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let bytes = std::fs::read(copy)?;
    let mut out = Vec::new();
    if copy.extension().is_some_and(|e| e == "br") {
        brotli::Decompressor::new(&bytes[..], 4096).read_to_end(&mut out)?;
    } else {
        flate2::read::GzDecoder::new(&bytes[..]).read_to_end(&mut out)?;
    }
    Ok(out)
}

fn compress(encoding: Encoding, file: &Path, bytes: &[u8]) -> Vec<u8> {
    match encoding {
        Encoding::Brotli => {
            let wasm = file.extension().is_some_and(|e| e == "wasm");
            let params = brotli::enc::BrotliEncoderParams {
                quality: BROTLI_QUALITY,
                lgwin: BROTLI_WINDOW_LOG2,
                size_hint: bytes.len(),
                mode: if wasm {
                    brotli::enc::backward_references::BrotliEncoderMode::BROTLI_MODE_GENERIC
                } else {
                    brotli::enc::backward_references::BrotliEncoderMode::BROTLI_MODE_TEXT
                },
                ..Default::default()
            };
            let mut out = Vec::new();
            brotli::BrotliCompress(&mut &bytes[..], &mut out, &params)
                .expect("brotli into memory cannot fail");
            out
        }
        Encoding::Gzip => {
            let mut encoder =
                flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
            encoder
                .write_all(bytes)
                .expect("gzip into memory cannot fail");
            encoder.finish().expect("gzip into memory cannot fail")
        }
    }
}

/// A file itself, not a link to one.
fn is_plain_file(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_file())
}

/// Writes `bytes` as a new file at `path` unless a plain file there holds
/// them already; whatever was there (a link included) is removed first, so
/// nothing is written through a link.
fn write_if_changed(path: &Path, bytes: &[u8]) -> Result<Copy, Error> {
    if is_plain_file(path) && std::fs::read(path).is_ok_and(|old| old == bytes) {
        return Ok(Copy::Unchanged);
    }
    remove(path)?;
    let mut out = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(io(path, "write"))?;
    out.write_all(bytes).map_err(io(path, "write"))?;
    Ok(Copy::Written)
}

/// Removes `path` (a link itself, never what it points to), if there.
fn remove(path: &Path) -> Result<(), Error> {
    match std::fs::remove_file(path) {
        Err(error) if error.kind() != std::io::ErrorKind::NotFound => {
            Err(io(path, "remove")(error))
        }
        _ => Ok(()),
    }
}

fn io(path: &Path, doing: &'static str) -> impl Fn(std::io::Error) -> Error {
    let path = path.to_path_buf();
    move |error| Error::Io {
        path: path.clone(),
        doing,
        error,
    }
}
