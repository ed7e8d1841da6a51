#![no_main]
//! See crates/fuzzing/src/script.rs, `take_home_script`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| fencelab_fuzzing::take_home_script(data));
