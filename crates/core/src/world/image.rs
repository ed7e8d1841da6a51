//! Images of a world between transactions, to resume runs from.
//!
//! The depth-first search runs a scenario once per branch, and every run
//! used to start from the seed and replay the path down to the choice it
//! explores anew. An [`Image`] is what the world holds at a choice where no
//! connection has a transaction open: the committed rows (as the seed
//! image holds them, keys included), the AUTOINCREMENT counters, the clock,
//! the effects, and every process's position, scope and memory. Resuming
//! from it ([`World::resume`]) puts the rows back as a reset puts back the
//! seed, through the restorer, and hands the processes connections from
//! the pool.
//!
//! That is all a later step can depend on, because between transactions a
//! connection holds nothing a procedure can read: the sandbox refuses the
//! functions that read a connection's own past (`changes()`,
//! `last_insert_rowid()`), schema changes outside setup, and temp tables;
//! SQLite's generator is pinned before every statement; a rowid SQLite
//! assigns is a function of the rows. So a run resumed from an image takes
//! the steps a replay from the seed would, and the differential test
//! (`tests/suite/resume_differential.rs`) holds the two to the same report,
//! figures included.
//!
//! An image holds no history, so a run is resumed only with recording
//! off: exploration's runs after its first. The first run of a search is
//! recorded (it is the run a passing check shows) and is imaged like any
//! other, for the runs after it to resume from.

use super::served::InFlight;
use super::{Call, Process, ProcessId, World, record::Rows};
use crate::error::Error;
use crate::history::{Effect, TableRows, Values};
use std::sync::Arc;

/// A world between transactions; see the module's documentation.
pub struct Image {
    /// Shared with the seed image's record of what was last put back,
    /// for every table no connection had changed since.
    tables: Vec<Arc<TableRows>>,
    sequences: Option<Vec<(String, i64)>>,
    clock_seconds: i64,
    effects: Vec<Effect>,
    processes: Vec<ProcessImage>,
}

/// A process as an image holds it: everything but its connection, which
/// between transactions any connection of the pool can stand in for.
struct ProcessImage {
    id: ProcessId,
    actor: String,
    crashed: bool,
    call: Option<Call>,
    memory: Values,
    blocked: bool,
}

impl World {
    /// The world as it stands, if it can be resumed from: no process
    /// inside a transaction. `None` otherwise, or when the rows cannot be
    /// read.
    pub fn image(&self) -> Option<Image> {
        // A server's world is replayed from its reset, never imaged.
        if self.server.is_some() {
            return None;
        }
        let between_transactions = self.processes.iter().all(|p| {
            p.written.is_empty() && p.connection.as_ref().is_none_or(|c| c.is_autocommit())
        });
        if !between_transactions {
            return None;
        }
        let tables = self.committed_tables()?;
        let sequences = {
            let _trusted = self.anchor_sandbox.trusted();
            self.seed.sequences_now(&self.anchor).ok()?
        };
        Some(Image {
            tables,
            sequences,
            clock_seconds: self.clock_seconds,
            effects: self.effects.clone(),
            processes: self
                .processes
                .iter()
                .map(|p| ProcessImage {
                    id: p.id,
                    actor: p.actor.clone(),
                    crashed: p.connection.is_none(),
                    call: p.call.clone(),
                    memory: p.memory.clone(),
                    blocked: p.blocked,
                })
                .collect(),
        })
    }

    /// Puts the world back as `image` holds it: what [`World::reset`] does
    /// for the seed, for any point between transactions. Every open
    /// transaction is rolled back first.
    pub fn resume(&mut self, image: &Image) -> Result<(), Error> {
        if self.recording {
            // The history before the image is not in it.
            return Err(Error::Sqlite {
                context: "resume a run from an image".into(),
                message: "a recording world cannot resume: its history would lack the steps \
                          that led to the image"
                    .into(),
            });
        }
        for process in self.processes.drain(..) {
            if let Some(connection) = process.connection {
                super::release(&mut self.idle, connection, process.sandbox);
            }
        }
        let changed = self.changes.take_changed_tables();
        if let Err(e) = self
            .seed
            .put_back(&image.tables, image.sequences.as_deref(), &changed)
        {
            self.changes.all_changed();
            return Err(crate::error::sqlite("put an explored state's rows back", e));
        }
        for process in &image.processes {
            let (connection, sandbox) = if process.crashed {
                (None, Arc::clone(&self.anchor_sandbox))
            } else {
                let (connection, sandbox) = self.pooled_connection()?;
                (Some(connection), sandbox)
            };
            self.processes.push(Process {
                id: process.id,
                actor: process.actor.clone(),
                connection,
                sandbox,
                call: process.call.clone(),
                memory: process.memory.clone(),
                blocked: process.blocked,
                written: Rows::new(),
                in_flight: InFlight::Nothing,
            });
        }
        self.clock_seconds = image.clock_seconds;
        self.effects.clone_from(&image.effects);
        self.history.clear();
        self.history_bytes = 0;
        Ok(())
    }
}
