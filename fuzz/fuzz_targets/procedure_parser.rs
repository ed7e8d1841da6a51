#![no_main]
//! See crates/fuzzing/src/lib.rs, `procedure_parser`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| fencelab_fuzzing::procedure_parser(data));
