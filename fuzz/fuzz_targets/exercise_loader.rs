#![no_main]
//! See crates/fuzzing/src/lib.rs, `exercise_loader`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| fencelab_fuzzing::exercise_loader(data));
