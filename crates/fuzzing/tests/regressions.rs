//! Every input kept under `fuzz/regressions/<target>/` (each a crash the
//! fuzzer once found, minimised) replayed through the function its target
//! calls, so a fixed crash stays fixed in `cargo test`, fuzzer or not.

use std::path::{Path, PathBuf};

fn regressions_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/regressions")
}

#[test]
fn every_saved_crash_runs_clean() {
    let root = regressions_dir();
    let mut replayed = 0;
    for (target, run) in fencelab_fuzzing::TARGETS {
        let dir = root.join(target);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut files: Vec<PathBuf> = entries.filter_map(|e| Some(e.ok()?.path())).collect();
        files.sort();
        for file in files.into_iter().filter(|f| f.is_file()) {
            let data = std::fs::read(&file)
                .unwrap_or_else(|e| panic!("cannot read {}: {e}", file.display()));
            eprintln!("replaying {}", file.display());
            run(&data);
            replayed += 1;
        }
    }
    eprintln!("replayed {replayed} saved inputs");
}

#[test]
fn regression_folders_name_targets() {
    let Ok(entries) = std::fs::read_dir(regressions_dir()) else {
        return;
    };
    for entry in entries.filter_map(Result::ok) {
        let name = entry.file_name().to_string_lossy().into_owned();
        assert!(
            fencelab_fuzzing::TARGETS.iter().any(|(t, _)| *t == name),
            "fuzz/regressions/{name} names no fuzz target"
        );
    }
}
