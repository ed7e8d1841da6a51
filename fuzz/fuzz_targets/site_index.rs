#![no_main]
//! See crates/fuzzing/src/lib.rs, `site_index`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| fencelab_fuzzing::site_index(data));
