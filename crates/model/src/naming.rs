//! What a reader calls a process: one name, the same in the timeline's
//! lanes, the failure sentences, the beliefs and the CLI.
//!
//! A process is named after the actor it hosts (`worker-a`). Where one actor
//! hosts several processes in a scenario (a host restarted, a worker that
//! comes back), each is that actor with its ordinal among them, in the order
//! the scenario starts them (`host-a #1`, `host-a #2`), so the sentence
//! "host-a #2 believes it holds session-1 (incarnation 3)" cannot be read as
//! being about the stale `host-a #1`. An actor is not a process: the name
//! keeps both in sight.
//!
//! The opaque process id (`proc-3`) and the scenario's own label for a
//! process (`a1`, the word a schedule moves it by) stay in the data, for the
//! readers who ask for them (a tooltip, a schedule); neither is this name.

use std::collections::BTreeMap;

/// The name of every process a scenario starts, by the scenario's label for
/// it. `starts` is each started process's (label, actor), in start order;
/// a label started twice keeps its first name (the checker refuses the
/// second start).
pub fn process_names<'a>(
    starts: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> BTreeMap<String, String> {
    let mut order: Vec<(&str, &str)> = Vec::new();
    for (label, actor) in starts {
        if !order.iter().any(|(seen, _)| *seen == label) {
            order.push((label, actor));
        }
    }
    let mut hosted: BTreeMap<&str, usize> = BTreeMap::new();
    for (_, actor) in &order {
        *hosted.entry(actor).or_default() += 1;
    }
    let mut ordinal: BTreeMap<&str, usize> = BTreeMap::new();
    order
        .iter()
        .map(|(label, actor)| {
            let name = if hosted[actor] > 1 {
                let n = ordinal.entry(actor).or_default();
                *n += 1;
                format!("{actor} #{n}")
            } else {
                actor.to_string()
            };
            (label.to_string(), name)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::process_names;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn names(starts: &[(&str, &str)]) -> Vec<(String, String)> {
        process_names(starts.iter().copied()).into_iter().collect()
    }

    #[test]
    fn an_actor_with_one_process_is_its_name() {
        assert_eq!(
            names(&[("a", "worker-a"), ("b", "worker-b")]),
            [
                ("a".into(), "worker-a".into()),
                ("b".into(), "worker-b".into())
            ]
        );
    }

    #[test]
    fn an_actor_with_several_processes_numbers_them_in_start_order() {
        // Labels sort differently from the start order: the ordinal follows
        // the start, not the label.
        assert_eq!(
            names(&[("z", "host-a"), ("b", "host-b"), ("a", "host-a")]),
            [
                ("a".into(), "host-a #2".into()),
                ("b".into(), "host-b".into()),
                ("z".into(), "host-a #1".into()),
            ]
        );
    }

    #[test]
    fn a_label_started_twice_keeps_its_first_name() {
        assert_eq!(
            names(&[("a", "host-a"), ("a", "host-a"), ("b", "host-b")]),
            [("a".into(), "host-a".into()), ("b".into(), "host-b".into())]
        );
    }

    #[test]
    fn no_starts_no_names() {
        assert!(names(&[]).is_empty());
    }
}
