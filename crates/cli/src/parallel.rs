//! Work shared out over the machine's cores with its results kept in
//! order: `fencelab check` judges files this way, `fencelab replay` its
//! batches, so that what either prints is the same on one core or many.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

/// Runs `work` on every item, on as many threads as there are cores (or
/// items, if fewer), and hands each result to `done` in the items' order as
/// soon as it and every result before it are in. An item whose thread
/// panicked comes as `None`.
pub fn in_order<T: Sync, R: Send>(
    items: &[T],
    work: impl Fn(&T) -> R + Sync,
    done: impl FnMut(usize, Option<R>),
) {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    on_threads(cores, items, work, done);
}

/// [`in_order`] on at most `threads` threads: one runs the items in turn.
pub fn on_threads<T: Sync, R: Send>(
    threads: usize,
    items: &[T],
    work: impl Fn(&T) -> R + Sync,
    mut done: impl FnMut(usize, Option<R>),
) {
    let workers = threads.min(items.len()).max(1);
    // Threads take the next item as they finish one, so a slow item
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

/// The judging of an exercise's mutants shared over the machine's cores:
/// one run of mutants a core, each in a world of its own, the verdicts in
/// the mutants' order. A run whose thread panicked (the engine panics on no
/// input; this is the belt) is reported as such, not lost or shifted.
pub struct Cores;

impl fencelab_core::mutation::Spread for Cores {
    fn spread(
        &self,
        count: usize,
        judge: &fencelab_core::mutation::JudgeRun<'_>,
    ) -> Vec<fencelab_core::mutate::MutantVerdict> {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let per_run = count.div_ceil(cores.min(count).max(1)).max(1);
        let runs: Vec<std::ops::Range<usize>> = (0..count)
            .step_by(per_run)
            .map(|start| start..(start + per_run).min(count))
            .collect();
        let mut verdicts = Vec::with_capacity(count);
        on_threads(
            cores,
            &runs,
            |run| judge(run.clone()),
            |index, judged| {
                verdicts.extend(judged.unwrap_or_else(|| {
                    let panicked = fencelab_core::mutate::MutantVerdict::ErrorsOnly {
                        errors: vec![("(engine)".into(), "a checking thread panicked".into())],
                    };
                    vec![panicked; runs[index].len()]
                }));
            },
        );
        verdicts
    }
}
