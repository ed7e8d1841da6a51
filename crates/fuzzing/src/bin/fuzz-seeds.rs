//! `fuzz-seeds ROOT`: writes the seeds of every fuzz target's corpus (see
//! `fencelab_fuzzing::seeds`) to ROOT/fuzz/corpus/<target>/from-<name>, and
//! prints how many each target got. `cargo xtask fuzz` runs it first.

#[cfg(not(target_arch = "wasm32"))]
fn main() -> std::process::ExitCode {
    use std::collections::BTreeMap;
    use std::path::PathBuf;

    let Some(root) = std::env::args_os().nth(1).map(PathBuf::from) else {
        eprintln!("usage: fuzz-seeds ROOT (the workspace root)");
        return std::process::ExitCode::from(2);
    };
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for seed in fencelab_fuzzing::seeds::seeds(&root) {
        let dir = root.join("fuzz/corpus").join(seed.target);
        let path = dir.join(format!("from-{}", seed.name));
        if let Err(e) =
            std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(&path, &seed.data))
        {
            eprintln!("fuzz-seeds: cannot write {}: {e}", path.display());
            return std::process::ExitCode::FAILURE;
        }
        *counts.entry(seed.target).or_default() += 1;
    }
    for (target, count) in counts {
        println!("{target} {count}");
    }
    std::process::ExitCode::SUCCESS
}

#[cfg(target_arch = "wasm32")]
fn main() {}
