//! Which steps of a long history the timeline shows: every step of a short
//! one; of a long one, the steps that say what happened (processes starting
//! and crashing, calls and their outcomes, the clock, effects, waits, direct
//! SQL) and every step near the ones the learner looks at (where it broke,
//! the step selected), with each run of the statements in between folded
//! into one row that opens with a click.
//!
//! Pure: what is folded follows from the history and the steps kept, so it
//! is tested natively. Must never hide a step it was asked to keep.

use fencelab_model::history::{Event, What};

/// Histories of at most this many steps are shown whole.
pub const FOLD_STEPS_MIN: usize = 16;
/// Steps on either side of a step kept that are shown with it.
pub const AROUND_KEPT_STEPS: usize = 2;

/// One row of the timeline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Row {
    Step(usize),
    /// Steps `first..=last`, folded: statements inside calls.
    Folded {
        first: usize,
        last: usize,
    },
}

/// The rows showing `history`, with every step in `keep` (and the steps
/// around each) shown. `whole` shows every step.
pub fn rows(history: &[Event], keep: &[usize], whole: bool) -> Vec<Row> {
    if whole || history.len() <= FOLD_STEPS_MIN {
        return (0..history.len()).map(Row::Step).collect();
    }
    let near = |i: usize| keep.iter().any(|&k| i.abs_diff(k) <= AROUND_KEPT_STEPS);
    let shown = |i: usize, event: &Event| {
        i == 0 || i + 1 == history.len() || near(i) || !matches!(event.what, What::Statement { .. })
    };
    fn flush(hidden: &mut Vec<usize>, rows: &mut Vec<Row>) {
        match hidden.as_slice() {
            [] => {}
            // Folding one step would hide nothing worth the click.
            [only] => rows.push(Row::Step(*only)),
            [first, .., last] => rows.push(Row::Folded {
                first: *first,
                last: *last,
            }),
        }
        hidden.clear();
    }
    let mut rows: Vec<Row> = Vec::new();
    let mut hidden: Vec<usize> = Vec::new();
    for (i, event) in history.iter().enumerate() {
        if shown(i, event) {
            flush(&mut hidden, &mut rows);
            rows.push(Row::Step(i));
        } else {
            hidden.push(i);
        }
    }
    flush(&mut hidden, &mut rows);
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use fencelab_model::history::{Outcome, ResultRows, Values};

    fn event(what: What) -> Event {
        Event {
            clock_seconds: 0,
            process: Some("proc-1".into()),
            actor: Some("worker-a".into()),
            procedure: Some("claim".into()),
            step: None,
            position: None,
            what,
            row_changes: Vec::new(),
        }
    }

    fn statement() -> Event {
        event(What::Statement {
            sql: "UPDATE t SET x = 1".into(),
            parameters: Values::new(),
            changed: 1,
            returned: ResultRows::default(),
        })
    }

    /// `calls` calls of five statements each, framed by their start and end.
    fn history(calls: usize) -> Vec<Event> {
        let mut history = vec![event(What::ProcessStarted)];
        for _ in 0..calls {
            history.push(event(What::CallStarted {
                arguments: Values::new(),
            }));
            history.extend((0..5).map(|_| statement()));
            history.push(event(What::CallFinished {
                outcome: Outcome::Ok {
                    values: Values::new(),
                },
                rolled_back: false,
            }));
        }
        history
    }

    fn steps(rows: &[Row]) -> Vec<usize> {
        rows.iter()
            .filter_map(|row| match row {
                Row::Step(i) => Some(*i),
                Row::Folded { .. } => None,
            })
            .collect()
    }

    #[test]
    fn a_short_history_is_shown_whole() {
        let history = history(2);
        assert!(history.len() <= FOLD_STEPS_MIN);
        assert_eq!(rows(&history, &[], false).len(), history.len());
    }

    #[test]
    fn a_long_history_folds_the_statements_inside_calls_and_nothing_else() {
        let history = history(6); // 43 steps
        let rows = rows(&history, &[], false);
        assert!(rows.len() < history.len() / 2, "{rows:?}");
        for (i, event) in history.iter().enumerate() {
            let folded = !steps(&rows).contains(&i);
            assert!(
                !folded || matches!(event.what, What::Statement { .. }),
                "step {i} is folded but is not a statement"
            );
        }
        // Every step is in exactly one row, in order.
        let mut covered = Vec::new();
        for row in &rows {
            match row {
                Row::Step(i) => covered.push(*i),
                Row::Folded { first, last } => covered.extend(*first..=*last),
            }
        }
        assert_eq!(covered, (0..history.len()).collect::<Vec<_>>());
    }

    #[test]
    fn the_steps_kept_and_their_neighbours_are_never_folded() {
        let history = history(6);
        let kept = [20, 33];
        let rows = rows(&history, &kept, false);
        let shown = steps(&rows);
        for k in kept {
            for i in k - AROUND_KEPT_STEPS..=k + AROUND_KEPT_STEPS {
                assert!(shown.contains(&i), "step {i} near {k} is folded");
            }
        }
        assert_eq!(
            super::rows(&history, &kept, true).len(),
            history.len(),
            "whole"
        );
    }
}
