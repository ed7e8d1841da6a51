//! Which requests the worker serves at once and which wait, in their
//! order: plain code over the request, the server and whether a text is
//! with the exercise reader, so the rule is tested natively (`worker.rs`
//! keeps one [`Waiting`] and the JS around it).
//!
//! Before the server is built, every request waits. While a text is with
//! the reader (or a request waits for it), a request that hands over a
//! text waits too (texts are read in their order), and so does one that
//! names an exercise the server does not have (it may be the one being
//! read). A request about an exercise the server has is served at once: a
//! read never changes an exercise once installed, but for one a site
//! exercise's page had installed provisionally, which the site's own file
//! replaces (`Request::Install`): a request served before that sees the
//! page's copy, and the page asks again if the file turned out newer.

use crate::serve::Server;
use fencelab_protocol::Request;
use std::collections::VecDeque;

/// The requests not served yet, oldest first.
#[derive(Default)]
pub struct Waiting {
    queue: VecDeque<Request>,
}

impl Waiting {
    /// Queues `request` if it must wait (see the module's rule); gives it
    /// back to be served now otherwise. A job served now replaces every
    /// job waiting, which came before it (only the newest job is wanted).
    pub fn admit(
        &mut self,
        request: Request,
        server: Option<&Server>,
        reading: bool,
    ) -> Option<Request> {
        let must_wait = match server {
            None => true,
            // The server is searched only while something is read or waits:
            // on a learner's keystrokes, nothing is.
            Some(server) => {
                (reading || !self.queue.is_empty())
                    && request.exercise().is_none_or(|id| !server.has(id))
            }
        };
        if must_wait {
            self.queue.push_back(request);
            return None;
        }
        if request.is_job() {
            self.queue.retain(|waiting| !waiting.is_job());
        }
        Some(request)
    }

    /// The oldest waiting request, to be served now: once the server is
    /// built and no text is with the reader.
    pub fn next(&mut self) -> Option<Request> {
        self.queue.pop_front()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fencelab_protocol::Edits;

    const CLAIM: &str = "claim-compare-and-set";

    fn check(seq: u64, exercise: &str) -> Request {
        Request::Check {
            seq,
            exercise: exercise.into(),
            edits: Edits::new(),
        }
    }

    fn replay(seq: u64, exercise: &str) -> Request {
        Request::Replay {
            seq,
            exercise: exercise.into(),
            edits: Edits::new(),
            scenario: "one winner".into(),
            schedule: Default::default(),
        }
    }

    fn install(seq: u64) -> Request {
        Request::Install {
            seq,
            file: "mine.toml".into(),
            source: String::new(),
        }
    }

    fn seqs(waiting: &mut Waiting) -> Vec<u64> {
        std::iter::from_fn(|| waiting.next())
            .map(|r| r.seq())
            .collect()
    }

    #[test]
    fn before_the_server_is_built_everything_waits_in_order() {
        let mut waiting = Waiting::default();
        assert_eq!(waiting.admit(check(1, CLAIM), None, false), None);
        assert_eq!(waiting.admit(install(2), None, false), None);
        assert_eq!(waiting.admit(replay(3, CLAIM), None, false), None);
        assert_eq!(seqs(&mut waiting), [1, 2, 3]);
    }

    #[test]
    fn with_nothing_being_read_every_request_is_served_at_once() {
        let server = Server::bundled();
        let mut waiting = Waiting::default();
        for request in [check(1, CLAIM), install(2), replay(3, "nowhere")] {
            assert_eq!(
                waiting.admit(request.clone(), Some(&server), false),
                Some(request)
            );
        }
        assert_eq!(seqs(&mut waiting), Vec::<u64>::new());
    }

    #[test]
    fn while_a_text_is_read_only_what_may_depend_on_it_waits() {
        let server = Server::bundled();
        let mut waiting = Waiting::default();
        // A text and a request about an exercise not installed yet wait.
        assert_eq!(waiting.admit(install(1), Some(&server), true), None);
        assert_eq!(waiting.admit(replay(2, "mine"), Some(&server), true), None);
        // One about a bundled exercise does not.
        let now = replay(3, CLAIM);
        assert_eq!(waiting.admit(now.clone(), Some(&server), true), Some(now));
        // Once the read is answered, what waits keeps its place: a later
        // text waits behind the earlier ones, even with no read under way.
        assert_eq!(waiting.admit(install(4), Some(&server), false), None);
        assert_eq!(seqs(&mut waiting), [1, 2, 4]);
    }

    #[test]
    fn a_job_served_now_replaces_the_jobs_that_wait() {
        let server = Server::bundled();
        let mut waiting = Waiting::default();
        assert_eq!(waiting.admit(check(1, "mine"), Some(&server), true), None);
        assert_eq!(waiting.admit(replay(2, "mine"), Some(&server), true), None);
        let newer = check(3, CLAIM);
        assert_eq!(
            waiting.admit(newer.clone(), Some(&server), true),
            Some(newer)
        );
        assert_eq!(
            seqs(&mut waiting),
            [2],
            "the older check is dropped, the replay kept"
        );
    }
}
