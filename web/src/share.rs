//! Share links: the exercise, the edited procedures and what the timeline
//! showed, in the URL fragment (`#s1=...`). The format and its one encoder
//! live in fencelab-model (`fencelab_model::share`), where `fencelab run
//! --site URL` writes the same links for a grader's counterexamples.

pub use fencelab_model::share::*;
