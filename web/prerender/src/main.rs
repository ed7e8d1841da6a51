//! `fencelab-prerender [DIR]`: prerenders the site trunk built in DIR (by
//! default trunk's staging directory, `TRUNK_STAGING_DIR`, as its
//! post_build hook runs it). See the library's docs.

use std::process::ExitCode;

fn main() -> ExitCode {
    let dir = std::env::args_os()
        .nth(1)
        .or_else(|| std::env::var_os("TRUNK_STAGING_DIR"));
    let Some(dir) = dir else {
        eprintln!(
            "fencelab-prerender: give the built site's directory (or run it as trunk's post_build hook)"
        );
        return ExitCode::from(2);
    };
    match fencelab_prerender::prerender_site(std::path::Path::new(&dir)) {
        Ok(files) => {
            eprintln!("fencelab-prerender: {} pages prerendered", files.len());
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("fencelab-prerender: {message}");
            ExitCode::FAILURE
        }
    }
}
