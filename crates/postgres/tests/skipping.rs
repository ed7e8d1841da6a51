//! The one rule for tests that need a server, run in a child process of
//! this test binary (the environment is the process's own): without
//! `FENCELAB_POSTGRES` a test prints one line and passes, unless
//! `FENCELAB_REQUIRE_POSTGRES=1`, when it fails saying why.

use fencelab_postgres::testing::{REQUIRE_VARIABLE, SPEC_VARIABLE, server_for_tests};
use std::process::{Command, Output};

/// Set in the child: it is the probe, not the parent.
const PROBE: &str = "FENCELAB_POSTGRES_SKIP_PROBE";
const NAME: &str = "without_a_server_a_test_skips_with_a_line_unless_one_is_required";

fn probe(required: bool) -> Output {
    let exe = std::env::current_exe().expect("the test binary's path");
    let mut command = Command::new(exe);
    command
        .args(["--exact", NAME, "--nocapture", "--test-threads=1"])
        .env_remove(SPEC_VARIABLE)
        .env_remove(REQUIRE_VARIABLE)
        .env(PROBE, "1");
    if required {
        command.env(REQUIRE_VARIABLE, "1");
    }
    command.output().expect("the probe runs")
}

#[test]
fn without_a_server_a_test_skips_with_a_line_unless_one_is_required() {
    if std::env::var_os(PROBE).is_some() {
        assert!(server_for_tests().is_none());
        return;
    }
    let skipped = probe(false);
    let out = String::from_utf8_lossy(&skipped.stdout);
    assert!(skipped.status.success(), "{out}");
    assert_eq!(
        out.matches("skipped: FENCELAB_POSTGRES is not set\n")
            .count(),
        1,
        "{out}"
    );
    let required = probe(true);
    let err = String::from_utf8_lossy(&required.stderr);
    assert!(!required.status.success());
    assert!(
        err.contains("FENCELAB_REQUIRE_POSTGRES=1 and FENCELAB_POSTGRES is not set"),
        "{err}"
    );
}
