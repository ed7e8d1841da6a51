#![no_main]
//! See crates/fuzzing/src/lib.rs, `saved_state`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| fencelab_fuzzing::saved_state(data));
