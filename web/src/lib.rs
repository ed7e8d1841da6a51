//! The fencelab playground page: a thin yew shell over fencelab-core.
//!
//! The page never runs the engine on its own thread. Every check, replay,
//! hand-driven step and console query goes to a Web Worker (`src/bin/worker.rs`,
//! `worker.rs`) as a [`protocol::Request`], and its answers come back as the
//! core's own serializable reports, which the components render. The UI is a
//! reducer over those reports (`state.rs`): one component per file under
//! `components/`, state changes through [`state::Action`].
//!
//! Must never: contain engine logic, panic on untrusted input (saved state,
//! links, exercise data), or load anything from another origin.

pub mod beliefs;
pub mod components;
pub mod editor;
pub mod engine;
pub mod markdown;
pub mod panic;
pub mod protocol;
pub mod share;
pub mod state;
pub mod storage;
pub mod tables;
pub mod worker;
