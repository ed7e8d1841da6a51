//! fencelab's Web Worker: the only place the engine runs in the browser.
//! This library is the worker; `main.rs` only starts it. (A library, so
//! `fencelab protect`'s tests can ask it for the page's line marks.)
//!
//! The page (web/, which never links SQLite) sends it
//! [`fencelab_protocol::Request`]s as JSON text; it answers each with a
//! [`fencelab_protocol::Response`] carrying the core's own reports, and
//! `Ready` before anything else. `serve/` decides every answer and runs
//! natively in tests, `protect.rs` turns the verdicts on a learner's mutants
//! into one mark per line, `author.rs` checks an author's draft as
//! `fencelab check` would, and `worker.rs` is the glue to the worker's
//! message port and event loop.
//!
//! Must never: touch the DOM, keep state a page reload could lose, or leave
//! a request unanswered (whatever cannot be served answers `Failed` with the
//! request's seq).

mod author;
pub mod catalog;
mod kept;
mod protect;
mod reading;
pub mod serve;
mod site;
mod waiting;
pub mod worker;
