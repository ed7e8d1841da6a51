//! `fencelab`: the command line for course authors and CI.
//!
//! A thin shell over fencelab-core: it parses arguments, reads files and
//! prints reports. Everything it checks, the core computes.

use std::process::ExitCode;

const USAGE: &str = "usage: fencelab <command>

commands:
  version    print fencelab's version and the SQLite it runs on";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("version" | "--version" | "-V") => {
            println!(
                "fencelab {} (SQLite {})",
                env!("CARGO_PKG_VERSION"),
                fencelab_core::sqlite_version()
            );
            ExitCode::SUCCESS
        }
        Some("help" | "--help" | "-h") => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        Some(other) => {
            eprintln!("fencelab: unknown command `{other}`\n\n{USAGE}");
            ExitCode::from(2)
        }
        None => {
            eprintln!("{USAGE}");
            ExitCode::from(2)
        }
    }
}
