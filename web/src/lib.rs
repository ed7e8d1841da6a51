//! The fencelab playground page: a thin yew shell over fencelab's reports.
//!
//! The page never runs the engine, and does not even link it: it depends on
//! `fencelab-model` (exercises, reports) and `fencelab-protocol` only, so its
//! wasm carries no SQLite. Every check, replay, hand-driven step and console
//! query goes to the Web Worker (web/worker) as a
//! [`fencelab_protocol::Request`], and its answers come back as the checker's
//! own reports, which the components render. The UI is a reducer over those
//! reports (`state/`): one component per file under `components/`, every
//! state change an [`state::Action`], and everything that reads the outside
//! world (storage, the URL, the clock) an effect in a hook of its own under
//! `hooks/` that dispatches what it read.
//!
//! Must never: contain engine logic, compute what a report already carries
//! (beliefs, failure sentences), panic on untrusted input (saved state,
//! links, exercise data), or load anything from another origin.

pub mod author;
pub mod catalog;
pub mod components;
pub mod download;
pub mod editor;
pub mod embed;
pub mod entry;
pub mod fold;
pub mod hooks;
pub mod mount;
pub mod panic;
pub mod prerendered;
pub mod reveal;
pub mod share;
pub mod site;
pub mod state;
pub mod storage;
pub mod tables;
pub mod timing;
pub mod vocabulary;
pub mod worker_client;
