//! For tests (this crate's and those of crates that drive it): the one rule
//! for finding the server they need.

use crate::Server;

/// The connection spec tests read.
pub const SPEC_VARIABLE: &str = "FENCELAB_POSTGRES";
/// Set to `1` (CI does) to make a missing server a failure, never a skip.
pub const REQUIRE_VARIABLE: &str = "FENCELAB_REQUIRE_POSTGRES";

/// The server `FENCELAB_POSTGRES` names, connected. When it is unset, a
/// test prints one line, `skipped: FENCELAB_POSTGRES is not set`, and gets
/// `None` (it returns) — unless `FENCELAB_REQUIRE_POSTGRES=1`, when it
/// panics: a required server never skips silently.
///
/// # Panics
/// When the server is required and unset, or set and unreachable.
pub fn server_for_tests() -> Option<Server> {
    let spec = std::env::var(SPEC_VARIABLE)
        .ok()
        .filter(|spec| !spec.trim().is_empty());
    let required = std::env::var(REQUIRE_VARIABLE).is_ok_and(|value| value == "1");
    match spec {
        Some(spec) => match Server::connect(&spec) {
            Ok(server) => Some(server),
            Err(error) => {
                panic!("{SPEC_VARIABLE} is set, and its server cannot be reached: {error}")
            }
        },
        None if required => panic!(
            "{REQUIRE_VARIABLE}=1 and {SPEC_VARIABLE} is not set: these tests need a PostgreSQL server (a spec such as \"host=/tmp/pg user=fencelab dbname=postgres\")"
        ),
        None => {
            println!("skipped: {SPEC_VARIABLE} is not set");
            None
        }
    }
}
