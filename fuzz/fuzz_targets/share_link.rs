#![no_main]
//! See crates/fuzzing/src/lib.rs, `share_link`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| fencelab_fuzzing::share_link(data));
