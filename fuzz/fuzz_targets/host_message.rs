#![no_main]
//! See crates/fuzzing/src/lib.rs, `host_message`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| fencelab_fuzzing::host_message(data));
