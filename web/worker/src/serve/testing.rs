//! What the server's tests share: the bundled exercises, and serving a
//! request as the glue does.

use super::{Job, Served, Server};
use fencelab_core::Exercise;
use fencelab_protocol::{Edits, Request, Response};

pub(crate) const CLAIM: &str = "claim-compare-and-set";

pub(crate) fn exercises() -> Vec<Exercise> {
    fencelab_core::bundled::exercises().expect("the bundled exercises load")
}

/// A claim that does not parse as a procedure: no checker can be built.
pub(crate) fn broken_claim() -> Edits {
    Edits::from([("claim".to_string(), "SELECT 1;\n-- @bogus x".to_string())])
}

/// The texts the learner starts from, as the page sends them.
pub(crate) fn starts(exercise: &Exercise) -> Edits {
    exercise.start_edits()
}

pub(crate) fn claim() -> Exercise {
    exercises()
        .into_iter()
        .find(|e| e.id == CLAIM)
        .expect("the claim exercise")
}

/// Serves `request` as the glue does, a text handed over answered by
/// the exercise reader's own function, in-process.
pub(crate) fn served(server: &mut Server, request: Request) -> Served {
    match server.serve(request) {
        Served::Read(request) => {
            let read = request.read().expect("a request that hands over a text");
            server.serve_read(*request, fencelab_reader::read(&read))
        }
        served => served,
    }
}

pub(crate) fn answer_of(server: &mut Server, request: Request) -> Response {
    match served(server, request) {
        Served::Answer(response) => *response,
        Served::Job(_) => panic!("only checks and protections are jobs"),
        Served::Nothing => panic!("only a prepare is answered with nothing"),
        Served::Read(_) => panic!("a read is answered"),
    }
}

pub(crate) fn job_of(server: &mut Server, request: Request) -> Job {
    match served(server, request) {
        Served::Job(job) => job,
        Served::Answer(response) => panic!("a job, not {response:?}"),
        Served::Nothing => panic!("a job, not nothing"),
        Served::Read(_) => panic!("a read is answered"),
    }
}

/// Runs a job to its answer; the answer and the pieces it took.
pub(crate) fn run_job(job: &mut Job) -> (Response, usize) {
    let mut pieces = 1;
    loop {
        if let Some(response) = job.piece() {
            return (response, pieces);
        }
        pieces += 1;
    }
}

pub(crate) fn prepare(exercise: &str) -> Request {
    Request::Prepare {
        exercise: exercise.into(),
    }
}

pub(crate) fn check_of(seq: u64, edits: Edits) -> Request {
    Request::Check {
        seq,
        exercise: CLAIM.into(),
        edits,
    }
}

/// The claim exercise's file as an author would copy it: another id,
/// another title.
pub(crate) fn authored_claim(id: &str, title: &str) -> String {
    let (_, text) = fencelab_core::bundled::FILES[0];
    text.replacen(
        "id = \"claim-compare-and-set\"",
        &format!("id = \"{id}\""),
        1,
    )
    .replacen("title = \"", &format!("title = \"{title}: "), 1)
}
