//! `fencelab-precompress SITE FILE...`: makes the brotli and gzip copies of
//! each FILE (a name inside the built site SITE, which a tool changed or
//! removed) true to it, as the library's `refresh` does. `cargo xtask
//! site-pages` runs it on the pages and service worker it changed.

use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let Some(site) = args.next() else {
        eprintln!(
            "fencelab-precompress: give the built site's directory, then the files in it that changed"
        );
        return ExitCode::from(2);
    };
    let site = std::path::Path::new(&site);
    for file in args {
        if let Err(error) = fencelab_precompress::refresh(site, &site.join(file)) {
            eprintln!("fencelab-precompress: {error}");
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}
