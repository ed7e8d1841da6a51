//! `mdbook-fencelab`: the preprocessor mdBook runs for `[preprocessor.fencelab]`.
//!
//! mdBook runs it twice: `mdbook-fencelab supports RENDERER` (exit 0 when it
//! can work for that renderer), then with `[context, book]` as JSON on
//! standard input, expecting the book, rewritten, on standard output. Every
//! problem goes to standard error with its chapter and line, and a non-zero
//! exit fails the build. All the work is the library's.

use std::io::{Read, Write};
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [supports, renderer] = args.as_slice()
        && supports == "supports"
    {
        return if fencelab_mdbook::supports(renderer) {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        };
    }
    if !args.is_empty() {
        eprintln!(
            "mdbook-fencelab: an mdBook preprocessor; mdBook runs it for [preprocessor.fencelab] in book.toml (it takes `supports RENDERER`, or the book as JSON on standard input)"
        );
        return ExitCode::from(2);
    }
    let mut input = String::new();
    if let Err(e) = std::io::stdin().read_to_string(&mut input) {
        eprintln!("mdbook-fencelab: cannot read the book from standard input: {e}");
        return ExitCode::FAILURE;
    }
    match fencelab_mdbook::preprocess(&input) {
        Ok(book) => {
            let mut out = std::io::stdout().lock();
            if out
                .write_all(book.as_bytes())
                .and_then(|()| out.flush())
                .is_err()
            {
                return ExitCode::FAILURE;
            }
            ExitCode::SUCCESS
        }
        Err(errors) => {
            for error in &errors {
                eprintln!(
                    "mdbook-fencelab: {}",
                    fencelab_cli::shown(&error.to_string())
                );
            }
            let n = errors.len();
            eprintln!(
                "mdbook-fencelab: {n} problem{} in the book's exercises; nothing was rewritten",
                if n == 1 { "" } else { "s" }
            );
            ExitCode::FAILURE
        }
    }
}
