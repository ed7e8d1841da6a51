//! Recording history: the events a world appends while it records, and
//! the row changes each step made.

use super::World;
use super::seed::diff_tables;
use crate::history::{Event, RowChange, TableRows, What};
use crate::procedure::Step;
use crate::world::{Call, ProcessId, index};

impl World {
    pub(super) fn record(&mut self, event: Event) {
        if self.recording {
            self.history_bytes += encoded_bytes(&event);
            self.history.push(event);
        }
    }

    /// The bytes the history recorded since the last reset takes, counted
    /// as its JSON: what a report carries to the page.
    pub fn history_bytes(&self) -> u64 {
        self.history_bytes
    }

    pub(super) fn world_event(&self) -> Event {
        Event {
            clock_seconds: self.clock_seconds,
            process: None,
            actor: None,
            procedure: None,
            step: None,
            position: None,
            what: What::ProcessStarted,
            row_changes: Vec::new(),
        }
    }

    pub(super) fn process_event(&self, id: ProcessId, what: What) -> Event {
        let actor = self.processes.get(index(id)).map(|p| p.actor.clone());
        Event {
            process: Some(id.to_string()),
            actor,
            what,
            ..self.world_event()
        }
    }

    pub(super) fn step_event(&self, id: ProcessId, call: &Call, step: &Step, what: What) -> Event {
        Event {
            procedure: Some(call.procedure.name.clone()),
            step: Some(call.next_step),
            position: Some(step.position),
            ..self.process_event(id, what)
        }
    }

    pub(super) fn snapshot_if_recording(&self, id: Option<ProcessId>) -> Option<Vec<TableRows>> {
        if !self.recording {
            return None;
        }
        self.snapshot(id).ok()
    }

    /// The rows that differ between `before` and now, as `id` (or the anchor)
    /// sees them.
    pub(super) fn row_changes_since(
        &self,
        before: Option<Vec<TableRows>>,
        id: Option<ProcessId>,
    ) -> Vec<RowChange> {
        match (before, self.snapshot_if_recording(id)) {
            (Some(before), Some(after)) => diff_tables(&before, &after),
            _ => Vec::new(),
        }
    }
}

/// The length of `event`'s JSON, counted without building it.
fn encoded_bytes(event: &Event) -> u64 {
    struct Count(u64);
    impl std::io::Write for Count {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len() as u64;
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    // Serializing plain data into a counter cannot fail.
    let _ = serde_json::to_writer(&mut count, event);
    count.0
}
