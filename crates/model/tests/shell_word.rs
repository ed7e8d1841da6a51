//! `text::shell_word` read back by a real POSIX shell: each hostile word,
//! quoted, is one argument, byte for byte, and runs nothing.

use fencelab_model::text::shell_word;
use std::process::Command;

#[test]
fn sh_reads_every_quoted_word_back_as_itself_and_runs_nothing() {
    let words = [
        "claim",
        "claim=claim.sql",
        "",
        "two words",
        "it's",
        "'",
        "''",
        "a\"b",
        "$(touch pwned)",
        "`touch pwned`",
        "x; touch pwned",
        "a|b&c>d<e",
        "*",
        "~",
        "#not a comment",
        "back\\slash",
        "new\nline",
        "tab\there",
        "$HOME",
        "!event",
        "é ü 漢字 🦀",
        "-n",
    ];
    let dir = std::env::temp_dir().join(format!("fencelab-shell-word-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    // printf prints each argument between markers: what the shell made of
    // the command line, word by word.
    let line: Vec<String> = words
        .iter()
        .map(|w| format!("printf '<%s>' {}", shell_word(w)))
        .collect();
    let output = Command::new("sh")
        .arg("-c")
        .arg(line.join("\n"))
        .current_dir(&dir)
        .output()
        .expect("sh runs");
    assert!(output.status.success(), "{output:?}");
    let expected: String = words.iter().map(|w| format!("<{w}>")).collect();
    assert_eq!(String::from_utf8_lossy(&output.stdout), expected);
    assert!(!dir.join("pwned").exists(), "a quoted word ran a command");
    let _ = std::fs::remove_dir_all(&dir);
}
