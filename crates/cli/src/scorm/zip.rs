//! A zip archive writer, just enough for a SCORM package: deflated entries
//! (miniz_oxide, which the model already links for share links), CRC-32,
//! one central directory, no ZIP64.
//!
//! An LMS reads the package with whatever unzip it has, so the archive keeps
//! to the oldest common form (PKWARE APPNOTE 4.3: version 2.0, no data
//! descriptors, no extra fields, UTF-8 names flagged). Past the classic
//! format's bounds it refuses with a sentence rather than write an archive
//! a reader would truncate.
//!
//! Must never list one name twice, or two names that differ only in case:
//! an extractor would write one entry over the other (on a file system
//! that folds case, such as an LMS's on Windows or macOS), or keep either.

/// Entries one classic (non-ZIP64) archive can list.
const ENTRIES_MAX: usize = u16::MAX as usize;
/// Bytes one classic archive can address (offsets and sizes are 32-bit).
const ARCHIVE_BYTES_MAX: usize = u32::MAX as usize;
/// Deflate level: 9 takes a second more than 6 for the site's wasm and
/// saves about 1% of it; 6 is zlib's own default.
const DEFLATE_LEVEL: u8 = 6;
/// "Version needed to extract": 2.0, deflate.
const VERSION_NEEDED: u16 = 20;
/// General purpose flag bit 11: the name is UTF-8.
const FLAG_UTF8: u16 = 1 << 11;
const METHOD_STORED: u16 = 0;
const METHOD_DEFLATED: u16 = 8;
/// 1980-01-01 00:00, the earliest MS-DOS date: a package is the same bytes
/// whenever it is built.
const DOS_DATE: u16 = (1 << 5) | 1;
const DOS_TIME: u16 = 0;

/// An archive being written in memory.
#[derive(Default)]
pub struct Zip {
    bytes: Vec<u8>,
    central: Vec<u8>,
    entries: usize,
    /// Each name so far, by its lowercase form.
    names: std::collections::BTreeMap<String, String>,
}

/// A file deflated (or stored) once, ready to go into any number of
/// archives: a package per exercise carries the same site files, and the
/// site's wasm takes most of a package's time to deflate.
pub struct Entry {
    name: String,
    method: u16,
    crc: u32,
    size: u32,
    stored: Vec<u8>,
}

impl Entry {
    /// `data` as the entry `name` (a relative path with `/` separators), or
    /// the sentence that says it does not fit a classic archive.
    pub fn new(name: &str, data: &[u8]) -> Result<Entry, String> {
        let deflated = miniz_oxide::deflate::compress_to_vec(data, DEFLATE_LEVEL);
        // Small or already compressed files can grow when deflated.
        let (method, stored) = if deflated.len() < data.len() {
            (METHOD_DEFLATED, deflated)
        } else {
            (METHOD_STORED, data.to_vec())
        };
        let (Ok(size), Ok(_), Ok(_)) = (
            u32::try_from(data.len()),
            u32::try_from(stored.len()),
            u16::try_from(name.len()),
        ) else {
            return Err(format!(
                "`{name}` does not fit a zip archive without ZIP64 (4 GiB, 64 KiB names)"
            ));
        };
        Ok(Entry {
            name: name.to_string(),
            method,
            crc: crc32(data),
            size,
            stored,
        })
    }
}

impl Zip {
    /// Adds `data` as `name` (a relative path with `/` separators).
    pub fn add(&mut self, name: &str, data: &[u8]) -> Result<(), String> {
        self.push(&Entry::new(name, data)?)
    }

    /// Adds `entry`, refusing a name the archive already lists (in any
    /// case) and an archive past the classic format's bounds.
    pub fn push(&mut self, entry: &Entry) -> Result<(), String> {
        let name = entry.name.as_str();
        if self.entries == ENTRIES_MAX {
            return Err(format!(
                "a package holds at most {ENTRIES_MAX} files; `{name}` would be one more"
            ));
        }
        if let Some(earlier) = self.names.get(&name.to_lowercase()) {
            return Err(if earlier == name {
                format!("`{name}` would be in the package twice")
            } else {
                format!(
                    "`{earlier}` and `{name}` differ only in case, and an extractor on a \
                     file system that folds case would write one over the other"
                )
            });
        }
        let offset = self.bytes.len();
        let too_far = || {
            format!("the package would pass 4 GiB at `{name}`, more than a zip without ZIP64 holds")
        };
        let offset32 = u32::try_from(offset).map_err(|_| too_far())?;
        // Both fit, as `Entry::new` checked.
        let stored_size = u32::try_from(entry.stored.len()).map_err(|_| too_far())?;
        let name_len = u16::try_from(name.len()).map_err(|_| too_far())?;
        let mut local = Vec::with_capacity(30 + name.len());
        put32(&mut local, 0x0403_4b50);
        put16(&mut local, VERSION_NEEDED);
        put16(&mut local, FLAG_UTF8);
        put16(&mut local, entry.method);
        put16(&mut local, DOS_TIME);
        put16(&mut local, DOS_DATE);
        put32(&mut local, entry.crc);
        put32(&mut local, stored_size);
        put32(&mut local, entry.size);
        put16(&mut local, name_len);
        put16(&mut local, 0);
        local.extend_from_slice(name.as_bytes());
        if offset + local.len() + entry.stored.len() > ARCHIVE_BYTES_MAX {
            return Err(too_far());
        }
        self.bytes.extend_from_slice(&local);
        self.bytes.extend_from_slice(&entry.stored);

        let central = &mut self.central;
        put32(central, 0x0201_4b50);
        put16(central, VERSION_NEEDED);
        put16(central, VERSION_NEEDED);
        put16(central, FLAG_UTF8);
        put16(central, entry.method);
        put16(central, DOS_TIME);
        put16(central, DOS_DATE);
        put32(central, entry.crc);
        put32(central, stored_size);
        put32(central, entry.size);
        put16(central, name_len);
        put16(central, 0); // extra field
        put16(central, 0); // comment
        put16(central, 0); // disk number
        put16(central, 0); // internal attributes
        put32(central, 0); // external attributes
        put32(central, offset32);
        central.extend_from_slice(name.as_bytes());
        self.entries += 1;
        self.names.insert(name.to_lowercase(), name.to_string());
        Ok(())
    }

    /// The whole archive: the entries, the central directory and its end.
    pub fn finish(mut self) -> Result<Vec<u8>, String> {
        let central_offset = self.bytes.len();
        let too_big = || "the package is larger than a zip without ZIP64 holds (4 GiB)".to_string();
        let offset = u32::try_from(central_offset).map_err(|_| too_big())?;
        let size = u32::try_from(self.central.len()).map_err(|_| too_big())?;
        // At most ENTRIES_MAX, checked by `add`.
        let entries = u16::try_from(self.entries).map_err(|_| too_big())?;
        self.bytes.append(&mut self.central);
        let end = &mut self.bytes;
        put32(end, 0x0605_4b50);
        put16(end, 0); // this disk
        put16(end, 0); // the central directory's disk
        put16(end, entries);
        put16(end, entries);
        put32(end, size);
        put32(end, offset);
        put16(end, 0); // comment
        Ok(self.bytes)
    }
}

fn put16(out: &mut Vec<u8>, value: u16) {
    out.extend_from_slice(&value.to_le_bytes());
}

fn put32(out: &mut Vec<u8>, value: u32) {
    out.extend_from_slice(&value.to_le_bytes());
}

/// CRC-32 as zip (and gzip, and PNG) compute it: reflected, polynomial
/// 0xEDB88320, bit by bit; a package's few megabytes take milliseconds.
fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &byte in data {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            let mask = (crc & 1).wrapping_neg();
            crc = (crc >> 1) ^ (0xEDB8_8320 & mask);
        }
    }
    !crc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32_is_zips() {
        // The check value every CRC-32 catalogue gives for "123456789".
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32(b""), 0);
    }

    #[test]
    fn a_name_is_listed_once_whatever_its_case() {
        let mut zip = Zip::default();
        zip.add("scorm/a.html", b"a").unwrap();
        let twice = zip.add("scorm/a.html", b"b").unwrap_err();
        assert!(twice.contains("twice"), "{twice}");
        let folded = zip.add("scorm/A.html", b"b").unwrap_err();
        assert!(folded.contains("differ only in case"), "{folded}");
        zip.add("scorm/b.html", b"b").unwrap();
        let bytes = zip.finish().unwrap();
        let end = &bytes[bytes.len() - 22..];
        assert_eq!(u16::from_le_bytes([end[10], end[11]]), 2, "two entries");
    }

    #[test]
    fn an_entry_deflated_once_goes_into_two_archives_alike() {
        let big = "SELECT 1;\n".repeat(1000);
        let entry = Entry::new("site.wasm", big.as_bytes()).unwrap();
        let archive = |page: &[u8]| {
            let mut zip = Zip::default();
            zip.add("scorm/a.html", page).unwrap();
            zip.push(&entry).unwrap();
            let twice = zip.push(&entry).unwrap_err();
            assert!(twice.contains("twice"), "{twice}");
            zip.finish().unwrap()
        };
        let (one, two) = (archive(b"a"), archive(b"b"));
        // The archives differ in the page's one byte and its CRC only (in
        // its local header and in the central directory).
        assert_eq!(one.len(), two.len());
        let differing = one.iter().zip(&two).filter(|(a, b)| a != b).count();
        assert!((1..=9).contains(&differing), "{differing} bytes differ");
        assert!(one.len() < big.len() / 4, "the entry is deflated");
    }

    #[test]
    fn an_archive_lists_its_entries_at_its_end() {
        let mut zip = Zip::default();
        zip.add("imsmanifest.xml", b"<manifest/>").unwrap();
        let big = "SELECT 1;\n".repeat(1000);
        zip.add("exercises/a.toml", big.as_bytes()).unwrap();
        let bytes = zip.finish().unwrap();
        assert_eq!(&bytes[..4], b"PK\x03\x04");
        let end = &bytes[bytes.len() - 22..];
        assert_eq!(&end[..4], b"PK\x05\x06");
        assert_eq!(u16::from_le_bytes([end[10], end[11]]), 2, "two entries");
        assert!(
            bytes.len() < big.len() / 4,
            "a repetitive file is deflated: {} bytes",
            bytes.len()
        );
    }
}
