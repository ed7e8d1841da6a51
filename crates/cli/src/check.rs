//! `fencelab check`: exercises checked in parallel, one per core, reported
//! in a stable order (the files in the order they were named, a
//! directory's by name; the bundled ones in their own order) as soon as
//! each and every one before it is done, and one summary line.
//!
//! Only the scheduling of whole exercises lives here; what a check finds is
//! the core's `ExerciseExt::check`.

use crate::{BadInput, Ended, bundled_exercises, emit, exercise_files, load, print_json};
use fencelab_cli::render;
use fencelab_core::{ExerciseCheck, ExerciseExt};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

/// What checking one exercise came to.
pub(crate) enum Checked {
    /// It loaded and was checked; `ok` says whether it is sound.
    Checked(Box<ExerciseCheck>),
    /// It could not be read or loaded; the message names the file and where.
    Unreadable(BadInput),
}

/// How many exercises came to what.
#[derive(Default)]
struct Tally {
    ok: usize,
    failing: usize,
    unreadable: usize,
}

impl Tally {
    fn ended(&self) -> Ended {
        if self.unreadable > 0 {
            Ended::BadInput
        } else {
            Ended::passed_if(self.failing == 0)
        }
    }

    fn line(&self) -> String {
        let total = self.ok + self.failing + self.unreadable;
        let noun = if total == 1 { "exercise" } else { "exercises" };
        format!(
            "checked {total} {noun}: {} ok, {} failing, {} unreadable",
            self.ok, self.failing, self.unreadable
        )
    }
}

/// Checks the exercises at `paths` (the bundled ones when there are none).
pub fn run(paths: &[PathBuf], json: bool) -> Result<Ended, BadInput> {
    let mut tally = Tally::default();
    let mut checks = Vec::new();
    let mut done = |checked: Checked| match checked {
        Checked::Checked(check) => {
            if check.ok {
                tally.ok += 1;
            } else {
                tally.failing += 1;
            }
            if json {
                checks.push(check);
            } else {
                emit(&render::check(&check));
            }
        }
        Checked::Unreadable(bad) => {
            tally.unreadable += 1;
            bad.report();
        }
    };
    if paths.is_empty() {
        let exercises = bundled_exercises()?;
        in_parallel(
            &exercises,
            |exercise| Checked::Checked(Box::new(exercise.check())),
            |index, checked| {
                done(checked.unwrap_or_else(|| crashed(&exercises[index].id)));
            },
        );
    } else {
        let files = exercise_files(paths)?;
        files_in_parallel(&files, |_, checked| done(checked));
    }
    if json {
        print_json(&checks)?;
    } else {
        emit(&format!("{}\n", tally.line()));
    }
    Ok(tally.ended())
}

/// Loads and checks every file in parallel, handing each outcome to `done`
/// in the files' order (see [`in_parallel`]); `fencelab index` shares it.
pub(crate) fn files_in_parallel(files: &[PathBuf], mut done: impl FnMut(usize, Checked)) {
    in_parallel(
        files,
        |file| match load(file) {
            Ok(exercise) => Checked::Checked(Box::new(exercise.check())),
            Err(bad) => Checked::Unreadable(bad),
        },
        |index, checked| {
            done(
                index,
                checked.unwrap_or_else(|| crashed(&files[index].display().to_string())),
            );
        },
    );
}

/// The engine never panics on any input; if it ever did, the exercise is
/// reported as one that could not be checked, not lost from the count.
fn crashed(name: &str) -> Checked {
    Checked::Unreadable(BadInput(format!(
        "{name}: checking it crashed (a bug in fencelab; the message above says where)"
    )))
}

/// Runs `work` on every item, on as many threads as there are cores (or
/// items, if fewer), and hands each result to `done` in the items' order as
/// soon as it and every result before it are in. An item whose thread
/// panicked comes as `None`.
fn in_parallel<T: Sync, R: Send>(
    items: &[T],
    work: impl Fn(&T) -> R + Sync,
    mut done: impl FnMut(usize, Option<R>),
) {
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(items.len())
        .max(1);
    // Threads take the next item as they finish one, so a slow exercise
    // holds up one core, not a fixed share of the others.
    let next = AtomicUsize::new(0);
    let (sender, receiver) = mpsc::channel();
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                let sender = sender.clone();
                let (next, work) = (&next, &work);
                scope.spawn(move || {
                    loop {
                        let index = next.fetch_add(1, Ordering::Relaxed);
                        let Some(item) = items.get(index) else { break };
                        if sender.send((index, work(item))).is_err() {
                            break;
                        }
                    }
                })
            })
            .collect();
        drop(sender);
        let mut waiting = BTreeMap::new();
        let mut given = 0;
        for (index, result) in receiver {
            waiting.insert(index, result);
            while let Some(result) = waiting.remove(&given) {
                done(given, Some(result));
                given += 1;
            }
        }
        // The receiver ends once every thread has ended; a panicked one
        // leaves a gap, and the items after it still come in order.
        for index in given..items.len() {
            done(index, waiting.remove(&index));
        }
        for handle in handles {
            // Joined here so a panic is the gap reported above, not a
            // second panic out of the scope.
            let _ = handle.join();
        }
    });
}
