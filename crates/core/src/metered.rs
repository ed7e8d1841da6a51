//! SQLite's text-searching functions, replaced by versions whose work the
//! sandbox can count.
//!
//! SQLite counts one call of LIKE, GLOB, instr(), replace() or trim(X, Y) as
//! one VM instruction, yet its own versions take time in proportion to the
//! product of their arguments' lengths: a LIKE of a 64 KiB text against a
//! 250-byte pattern, once per row of a recursive query, ran for an hour
//! inside a budget of two million instructions. So every sandboxed
//! connection registers these versions over SQLite's, and each charges its
//! work to the statement's budget in the same unit, SQLite steps:
//!
//! - LIKE and GLOB keep SQLite's own matcher (`sqlite3_strlike`,
//!   `sqlite3_strglob`), so what matches is exactly what SQLite matches; the
//!   call is charged its worst case, text length times pattern length, before
//!   it runs.
//! - instr() and replace() find the needle with a linear-time search and
//!   charge the bytes they read and write; trim(X, Y) and its left and right
//!   forms charge each comparison as they make it.
//!
//! Arguments are read with `sqlite3_value_text`, so a number becomes the
//! same text SQLite's own functions would see, and NULL and error handling
//! follow SQLite's functions line by line (SQLite 3.54's func.c). Known
//! difference: an ESCAPE character that is itself `%` or `_` keeps its
//! wildcard meaning here (`sqlite3_strlike` has no way to say otherwise).
//!
//! The functions charge a [`Budget`], which the sandbox implements: this
//! module knows nothing of the sandbox that installs it.
//!
//! Must never: run without charging, or read past a value's bytes.

// Unsafe: SQL functions registered through SQLite's C API read their
// arguments as raw `sqlite3_value`s and answer through a raw context.
#![allow(unsafe_code)]

use rusqlite::Connection;
use rusqlite::ffi;
use std::ffi::{c_char, c_int, c_void};
use std::sync::Arc;

/// Bytes a metered function reads or writes per SQLite step charged: about
/// the time of one VM instruction.
const BYTES_PER_STEP: u64 = 64;
/// Character comparisons a LIKE or GLOB may make per SQLite step charged.
const COMPARISONS_PER_STEP: u64 = 16;

type Body = unsafe extern "C" fn(*mut ffi::sqlite3_context, c_int, *mut *mut ffi::sqlite3_value);

/// Trim's side, as SQLite passes it in the function's user data.
const TRIM_LEFT: u8 = 1;
const TRIM_RIGHT: u8 = 2;

/// The functions replaced: SQL name, argument count, body, trim side.
const FUNCTIONS: &[(&std::ffi::CStr, c_int, Body, u8)] = &[
    (c"like", 2, like, 0),
    (c"like", 3, like, 0),
    (c"glob", 2, glob, 0),
    (c"instr", 2, instr, 0),
    (c"replace", 3, replace, 0),
    (c"trim", 2, trim, TRIM_LEFT | TRIM_RIGHT),
    (c"ltrim", 2, trim, TRIM_LEFT),
    (c"rtrim", 2, trim, TRIM_RIGHT),
];

/// What the metered functions charge their work to: the statement's and
/// the check's budget of SQLite steps, kept by the sandbox.
pub(crate) trait Budget: Send + Sync {
    /// Charges `steps`; false once the budget has run out and the
    /// statement must stop.
    fn spend(&self, steps: u64) -> bool;
}

/// What each registered function is given: the budget to charge, and for
/// trim the side it trims.
struct Registration {
    budget: Arc<dyn Budget>,
    side: u8,
}

/// Registers the metered functions on `conn`, each charging `budget`.
pub(crate) fn install(conn: &Connection, budget: &Arc<dyn Budget>) -> rusqlite::Result<()> {
    for &(name, arguments, body, side) in FUNCTIONS {
        let registration = Box::into_raw(Box::new(Registration {
            budget: Arc::clone(budget),
            side,
        }));
        // SQLITE_INNOCUOUS: SQLite's own versions are innocuous, so an
        // exercise's CHECK constraint may use LIKE under trusted_schema=OFF.
        let flags = ffi::SQLITE_UTF8 | ffi::SQLITE_DETERMINISTIC | ffi::SQLITE_INNOCUOUS;
        // SAFETY: the handle is this open connection's; the name is a
        // NUL-terminated constant; SQLite owns `registration` from here on
        // and frees it through `release` (also when registration fails).
        let code = unsafe {
            ffi::sqlite3_create_function_v2(
                conn.handle(),
                name.as_ptr(),
                arguments,
                flags,
                registration.cast::<c_void>(),
                Some(body),
                None,
                None,
                Some(release),
            )
        };
        if code != ffi::SQLITE_OK {
            return Err(rusqlite::Error::SqliteFailure(
                ffi::Error::new(code),
                Some(format!("could not install the metered {name:?}")),
            ));
        }
    }
    Ok(())
}

unsafe extern "C" fn release(registration: *mut c_void) {
    // SAFETY: SQLite calls this once, with the pointer `install` gave it.
    drop(unsafe { Box::from_raw(registration.cast::<Registration>()) });
}

/// One call's context and arguments, read safely.
struct Call {
    context: *mut ffi::sqlite3_context,
    arguments: *mut *mut ffi::sqlite3_value,
    count: usize,
}

impl Call {
    fn registration(&self) -> &Registration {
        // SAFETY: the user data is the Registration `install` gave this
        // function; it lives until SQLite calls `release`.
        unsafe { &*ffi::sqlite3_user_data(self.context).cast::<Registration>() }
    }

    fn value(&self, index: usize) -> *mut ffi::sqlite3_value {
        assert!(index < self.count, "argument {index} of {}", self.count);
        // SAFETY: SQLite passes `count` valid argument pointers.
        unsafe { *self.arguments.add(index) }
    }

    fn is_null(&self, index: usize) -> bool {
        // SAFETY: a valid argument of this call.
        unsafe { ffi::sqlite3_value_type(self.value(index)) == ffi::SQLITE_NULL }
    }

    fn is_blob(&self, index: usize) -> bool {
        // SAFETY: a valid argument of this call.
        unsafe { ffi::sqlite3_value_type(self.value(index)) == ffi::SQLITE_BLOB }
    }

    /// The argument as SQLite's text (numbers written as SQLite writes
    /// them), or `None` for NULL or when SQLite is out of memory. The slice
    /// lives until the call returns; it is followed by a NUL in memory.
    fn text(&self, index: usize) -> Option<&[u8]> {
        let value = self.value(index);
        // SAFETY: text first, then its length, as SQLite documents; the
        // pointer stays valid until the function returns or the value is
        // converted again, and no argument is read twice in another form.
        unsafe {
            let text = ffi::sqlite3_value_text(value);
            if text.is_null() {
                return None;
            }
            let bytes = usize::try_from(ffi::sqlite3_value_bytes(value)).unwrap_or(0);
            Some(std::slice::from_raw_parts(text, bytes))
        }
    }

    /// The argument's bytes as a blob.
    fn blob(&self, index: usize) -> &[u8] {
        let value = self.value(index);
        // SAFETY: blob first, then its length; a zero-length blob may be a
        // null pointer, read as empty.
        unsafe {
            let blob = ffi::sqlite3_value_blob(value).cast::<u8>();
            let bytes = usize::try_from(ffi::sqlite3_value_bytes(value)).unwrap_or(0);
            if blob.is_null() || bytes == 0 {
                &[]
            } else {
                std::slice::from_raw_parts(blob, bytes)
            }
        }
    }

    /// Charges `steps` to the budget; false (with the call failed) once the
    /// budget has run out.
    fn charge(&self, steps: u64) -> bool {
        if self.registration().budget.spend(steps) {
            return true;
        }
        self.error("step budget exceeded");
        false
    }

    fn error(&self, message: &str) {
        // SAFETY: a valid context; -1 means the message is NUL-terminated...
        // which a Rust &str is not, so its length is passed instead.
        unsafe {
            ffi::sqlite3_result_error(
                self.context,
                message.as_ptr().cast::<c_char>(),
                c_int::try_from(message.len()).unwrap_or(0),
            )
        }
    }

    fn out_of_memory(&self) {
        // SAFETY: a valid context.
        unsafe { ffi::sqlite3_result_error_nomem(self.context) }
    }

    fn result_int(&self, value: i64) {
        // SAFETY: a valid context.
        unsafe { ffi::sqlite3_result_int64(self.context, value) }
    }

    fn result_text(&self, text: &[u8]) {
        let Ok(bytes) = c_int::try_from(text.len()) else {
            // SAFETY: a valid context.
            unsafe { ffi::sqlite3_result_error_toobig(self.context) };
            return;
        };
        // SAFETY: a valid context; SQLITE_TRANSIENT makes SQLite copy the
        // bytes before this returns.
        unsafe {
            ffi::sqlite3_result_text(
                self.context,
                text.as_ptr().cast::<c_char>(),
                bytes,
                ffi::SQLITE_TRANSIENT(),
            )
        }
    }

    /// The connection's current limit `limit`.
    fn limit(&self, limit: c_int) -> i64 {
        // SAFETY: a valid context's connection; -1 reads without changing.
        i64::from(unsafe {
            ffi::sqlite3_limit(ffi::sqlite3_context_db_handle(self.context), limit, -1)
        })
    }
}

/// Runs `body` with the call's arguments, never letting a panic cross into
/// SQLite (which would abort the program).
fn with_call(
    context: *mut ffi::sqlite3_context,
    count: c_int,
    arguments: *mut *mut ffi::sqlite3_value,
    body: impl FnOnce(&Call),
) {
    let call = Call {
        context,
        arguments,
        count: usize::try_from(count).unwrap_or(0),
    };
    if std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| body(&call))).is_err() {
        call.error("internal error in a metered function");
    }
}

fn steps_for_bytes(bytes: usize) -> u64 {
    1 + bytes as u64 / BYTES_PER_STEP
}

/// `like(PATTERN, TEXT [, ESCAPE])`: the LIKE operator.
unsafe extern "C" fn like(
    context: *mut ffi::sqlite3_context,
    count: c_int,
    arguments: *mut *mut ffi::sqlite3_value,
) {
    with_call(context, count, arguments, |call| {
        match_pattern(call, Matcher::Like)
    });
}

/// `glob(PATTERN, TEXT)`: the GLOB operator.
unsafe extern "C" fn glob(
    context: *mut ffi::sqlite3_context,
    count: c_int,
    arguments: *mut *mut ffi::sqlite3_value,
) {
    with_call(context, count, arguments, |call| {
        match_pattern(call, Matcher::Glob)
    });
}

#[derive(Clone, Copy)]
enum Matcher {
    Like,
    Glob,
}

fn match_pattern(call: &Call, matcher: Matcher) {
    // SQLite's likeFunc: the pattern's length is checked first, then the
    // escape, then NULLs give NULL.
    let pattern = call.text(0);
    let pattern_bytes = pattern.map_or(0, <[u8]>::len);
    let pattern_bytes_max = call.limit(ffi::SQLITE_LIMIT_LIKE_PATTERN_LENGTH);
    if pattern_bytes as i64 > pattern_bytes_max {
        // SQLite's words first, then the limit in a learner's units.
        call.error(&format!(
            "LIKE or GLOB pattern too complex: it is {pattern_bytes} bytes, and a pattern may \
             be at most {pattern_bytes_max}"
        ));
        return;
    }
    let escape = if call.count == 3 {
        let Some(escape) = call.text(2) else {
            return;
        };
        let Some(escape) = single_character(escape) else {
            call.error("ESCAPE expression must be a single character");
            return;
        };
        escape
    } else {
        0
    };
    let (Some(pattern), Some(text)) = (pattern, call.text(1)) else {
        return;
    };
    let pattern_pointer = pattern.as_ptr();
    let worst = (text.len() as u64 + 1) * (pattern_bytes as u64 + 1) / COMPARISONS_PER_STEP;
    if !call.charge(1 + worst) {
        return;
    }
    // SAFETY: both pointers come from sqlite3_value_text and are
    // NUL-terminated; reading `text` did not convert argument 0 again.
    let code = unsafe {
        match matcher {
            Matcher::Like => ffi::sqlite3_strlike(
                pattern_pointer.cast::<c_char>(),
                text.as_ptr().cast::<c_char>(),
                escape,
            ),
            Matcher::Glob => ffi::sqlite3_strglob(
                pattern_pointer.cast::<c_char>(),
                text.as_ptr().cast::<c_char>(),
            ),
        }
    };
    call.result_int(i64::from(code == 0));
}

/// The code point of a text that is exactly one UTF-8 character (as SQLite
/// counts characters, up to a NUL), else `None`.
fn single_character(text: &[u8]) -> Option<u32> {
    let text = text.split(|&b| b == 0).next().unwrap_or(&[]);
    let mut characters = utf8_characters(text);
    let first = characters.next()?;
    if characters.next().is_some() {
        return None;
    }
    let decoded = std::str::from_utf8(first).ok()?.chars().next()?;
    Some(u32::from(decoded))
}

/// Splits bytes into characters the way SQLite steps through UTF-8: a byte
/// of 0xC0 or more takes every continuation byte (0x80..0xBF) after it;
/// any other byte stands alone.
fn utf8_characters(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = text;
    std::iter::from_fn(move || {
        let (&lead, tail) = rest.split_first()?;
        let length = if lead >= 0xc0 {
            1 + tail.iter().take_while(|&&b| b & 0xc0 == 0x80).count()
        } else {
            1
        };
        let (character, after) = rest.split_at(length);
        rest = after;
        Some(character)
    })
}

/// `instr(HAYSTACK, NEEDLE)`: the 1-based position of the first NEEDLE in
/// HAYSTACK, in characters (bytes for two blobs), or 0.
unsafe extern "C" fn instr(
    context: *mut ffi::sqlite3_context,
    count: c_int,
    arguments: *mut *mut ffi::sqlite3_value,
) {
    with_call(context, count, arguments, |call| {
        if call.is_null(0) || call.is_null(1) {
            return;
        }
        let bytes_only = call.is_blob(0) && call.is_blob(1);
        let (haystack, needle) = if bytes_only {
            (call.blob(0), call.blob(1))
        } else {
            match (call.text(0), call.text(1)) {
                (Some(haystack), Some(needle)) => (haystack, needle),
                _ => return call.out_of_memory(),
            }
        };
        if !call.charge(steps_for_bytes(haystack.len() + needle.len())) {
            return;
        }
        call.result_int(position(haystack, needle, bytes_only));
    });
}

/// SQLite's instr: NEEDLE is compared at every character start of HAYSTACK
/// (every byte for blobs), and the answer counts the starts before it.
fn position(haystack: &[u8], needle: &[u8], bytes_only: bool) -> i64 {
    if needle.is_empty() {
        return 1;
    }
    let starts_character = |at: usize| bytes_only || at == 0 || haystack[at] & 0xc0 != 0x80;
    let Some(found) = memchr::memmem::find_iter(haystack, needle).find(|&at| starts_character(at))
    else {
        return 0;
    };
    let before = (0..found).filter(|&at| starts_character(at)).count();
    before as i64 + 1
}

/// `replace(TEXT, PATTERN, REPLACEMENT)`: every PATTERN in TEXT, left to
/// right and without overlaps, replaced.
unsafe extern "C" fn replace(
    context: *mut ffi::sqlite3_context,
    count: c_int,
    arguments: *mut *mut ffi::sqlite3_value,
) {
    with_call(context, count, arguments, |call| {
        let Some(text) = call.text(0) else { return };
        let Some(pattern) = call.text(1) else { return };
        // SQLite's test: a pattern whose first byte is NUL is empty.
        if pattern.first().is_none_or(|&b| b == 0) {
            if call.charge(steps_for_bytes(text.len())) {
                call.result_text(text);
            }
            return;
        }
        let Some(replacement) = call.text(2) else {
            return;
        };
        if !call.charge(steps_for_bytes(text.len() + pattern.len())) {
            return;
        }
        let length_max = usize::try_from(call.limit(ffi::SQLITE_LIMIT_LENGTH)).unwrap_or(0);
        let mut out = Vec::with_capacity(text.len());
        let mut from = 0;
        for at in memchr::memmem::find_iter(text, pattern) {
            out.extend_from_slice(&text[from..at]);
            out.extend_from_slice(replacement);
            from = at + pattern.len();
            if out.len() > length_max {
                // SAFETY: a valid context.
                unsafe { ffi::sqlite3_result_error_toobig(call.context) };
                return;
            }
        }
        out.extend_from_slice(&text[from..]);
        if out.len() > length_max {
            // SAFETY: a valid context.
            unsafe { ffi::sqlite3_result_error_toobig(call.context) };
            return;
        }
        if call.charge(steps_for_bytes(out.len())) {
            call.result_text(&out);
        }
    });
}

/// `trim(TEXT, CHARACTERS)`, `ltrim` and `rtrim`: strips any of the
/// characters from the side(s) the registration names.
unsafe extern "C" fn trim(
    context: *mut ffi::sqlite3_context,
    count: c_int,
    arguments: *mut *mut ffi::sqlite3_value,
) {
    with_call(context, count, arguments, |call| {
        if call.is_null(0) {
            return;
        }
        let Some(text) = call.text(0) else { return };
        let Some(set) = call.text(1) else { return };
        // SQLite reads the set as a C string: up to its first NUL.
        let set = set.split(|&b| b == 0).next().unwrap_or(&[]);
        let characters: Vec<&[u8]> = utf8_characters(set).collect();
        let side = call.registration().side;
        let mut kept = text;
        let mut comparisons: u64 = 0;
        // Charged every so many comparisons, so a long set against a long
        // text stops at the budget instead of finishing first.
        const COMPARISONS_PER_CHARGE: u64 = 4096;
        let mut spend = |n: u64| -> bool {
            comparisons += n;
            if comparisons >= COMPARISONS_PER_CHARGE {
                let steps = comparisons / COMPARISONS_PER_STEP;
                comparisons %= COMPARISONS_PER_STEP;
                return call.charge(steps);
            }
            true
        };
        if !characters.is_empty() {
            if side & TRIM_LEFT != 0 {
                while !kept.is_empty() {
                    let Some(found) = first_match(&characters, |c| kept.starts_with(c), &mut spend)
                    else {
                        return;
                    };
                    match found {
                        Some(length) => kept = &kept[length..],
                        None => break,
                    }
                }
            }
            if side & TRIM_RIGHT != 0 {
                while !kept.is_empty() {
                    let Some(found) = first_match(&characters, |c| kept.ends_with(c), &mut spend)
                    else {
                        return;
                    };
                    match found {
                        Some(length) => kept = &kept[..kept.len() - length],
                        None => break,
                    }
                }
            }
        }
        if call.charge(steps_for_bytes(text.len())) {
            call.result_text(kept);
        }
    });
}

/// The length of the first of `characters` that `matches`, in SQLite's
/// order; `None` when the budget ran out (the call has failed).
fn first_match(
    characters: &[&[u8]],
    matches: impl Fn(&[u8]) -> bool,
    spend: &mut impl FnMut(u64) -> bool,
) -> Option<Option<usize>> {
    for character in characters {
        if !spend(1 + character.len() as u64 / 8) {
            return None;
        }
        if matches(character) {
            return Some(Some(character.len()));
        }
    }
    Some(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn the_characters_are_split_as_sqlite_steps_through_them() {
        let split: Vec<&[u8]> = utf8_characters("a€\u{80}".as_bytes()).collect();
        assert_eq!(
            split,
            vec![b"a".as_slice(), "€".as_bytes(), "\u{80}".as_bytes()]
        );
        let stray: Vec<&[u8]> = utf8_characters(&[0x80, 0x41]).collect();
        assert_eq!(stray, vec![[0x80].as_slice(), b"A".as_slice()]);
        assert_eq!(single_character("é".as_bytes()), Some(0xe9));
        assert_eq!(single_character(b"ab"), None);
        assert_eq!(single_character(b""), None);
    }
}
