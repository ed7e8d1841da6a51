//! The hostile corpus's `command` cases for `mdbook-fencelab`
//! (tests/hostile/cases/commands/): each run as mdBook runs it, in a scratch
//! folder of its own, by the corpus's own runner (`fencelab_hostile::command`).
//! Only a test of this crate knows where cargo built the program.

use fencelab_hostile::Program;
use fencelab_hostile::command::check_every;
use std::path::Path;

#[test]
fn every_command_case_of_mdbook_fencelab_ends_as_it_must_and_leaves_only_what_it_may() {
    check_every(
        Program::MdbookFencelab,
        Path::new(env!("CARGO_BIN_EXE_mdbook-fencelab")),
    );
}
