#![no_main]
//! See crates/fuzzing/src/lib.rs, `whole_run`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| fencelab_fuzzing::whole_run(data));
