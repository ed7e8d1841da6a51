//! `fencelab-prerender [DIR]`: prerenders the site trunk built in DIR (by
//! default trunk's staging directory, `TRUNK_STAGING_DIR`, as its
//! post_build hook runs it). `fencelab-prerender --site DIR`: writes the
//! pages of the exercises a built site serves of its own
//! (`exercises/index.toml`). See the library's docs.

use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1).peekable();
    let site = args.next_if(|arg| arg == "--site").is_some();
    let dir = args.next().or_else(|| {
        (!site)
            .then(|| std::env::var_os("TRUNK_STAGING_DIR"))
            .flatten()
    });
    let (Some(dir), None) = (dir, args.next()) else {
        eprintln!(
            "fencelab-prerender: give the built site's directory (or run it as trunk's post_build \
             hook), after --site for the pages of the site's own exercises"
        );
        return ExitCode::from(2);
    };
    let dir = std::path::Path::new(&dir);
    let written = if site {
        fencelab_prerender::prerender_site_exercises(dir)
    } else {
        fencelab_prerender::prerender_site(dir)
    };
    match written {
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
