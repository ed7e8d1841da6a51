#![no_main]
//! See crates/fuzzing/src/lib.rs, `book_directive`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| fencelab_fuzzing::book_directive(data));
