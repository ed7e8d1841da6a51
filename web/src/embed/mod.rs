//! Embedding with results back: a course page embeds an exercise in an
//! iframe (through the site's `embed.js`) and talks to it by postMessage.
//! docs/EMBEDDING.md is the author's reference.
//!
//! `protocol.rs` is the protocol as plain data (messages, validation,
//! bounds), tested natively. `bridge.rs` is the DOM side: it listens for the
//! parent's messages, posts the frame's, and watches the content's height,
//! which `height.rs` turns into reports (grow at once, shrink after a pause).
//! What the frame says follows from the playground (`state/embed.rs`): host
//! requests go through the reducer like the learner's clicks, and the
//! messages to post wait in the playground until an effect posts them.
//!
//! Architecture invariant: the frame posts only to the one origin named in
//! its `?parent=` (validated), never to `*`, and reads only messages from
//! that origin sent by its parent window.

pub mod bridge;
pub mod effects;
pub mod height;
pub mod protocol;
