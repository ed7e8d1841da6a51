//! One PostgreSQL connection and the thread that owns it: the sync client
//! blocks for as long as its statement waits on a lock, so each session's
//! statements run on a thread of their own and the caller only sends and
//! listens.

use crate::convert;
use crate::error::{Error, ServerError};
use crate::session::{Isolation, Reply};
use fencelab_model::value::Value;
use postgres::fallible_iterator::FallibleIterator;
use postgres::{CancelToken, Client, Config, NoTls};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The hard stop behind every budget: the server cancels any statement of a
/// session that runs (or waits on a lock) longer than this.
pub const STATEMENT_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a session waits on a lock before the server looks for a
/// deadlock (PostgreSQL's default is 1 s, which would make every deadlock
/// in a scenario cost a second). Only a superuser (or a role granted it)
/// may set it; elsewhere deadlocks are found at the server's own pace.
pub const DEADLOCK_TIMEOUT: Duration = Duration::from_millis(20);

/// What a connection's thread is asked to do.
enum Job {
    /// A learner's statement: its `$n` text and the values of `$1..$n`.
    Run {
        sql: String,
        values: Vec<(String, Value)>,
    },
    /// fencelab's own statements, through the simple protocol.
    Batch(String),
}

pub(crate) type Outcome = Result<Reply, Error>;

/// A connection whose client lives on a thread of its own.
pub(crate) struct Connection {
    pid: i32,
    jobs: Option<Sender<Job>>,
    replies: Receiver<Outcome>,
    cancel: CancelToken,
    thread: Option<JoinHandle<()>>,
    /// Jobs sent whose outcome has not been received.
    pending: usize,
    isolation: Isolation,
    /// Whether `SET deadlock_timeout` was allowed.
    fast_deadlocks: bool,
}

fn settings(isolation: Isolation) -> String {
    format!(
        "SET statement_timeout = '{}ms'; SET default_transaction_isolation = '{}'",
        STATEMENT_TIMEOUT.as_millis(),
        isolation.sql()
    )
}

fn deadlock_setting() -> String {
    format!(
        "SET deadlock_timeout = '{}ms'",
        DEADLOCK_TIMEOUT.as_millis()
    )
}

impl Connection {
    /// Connects, applies the session's settings and starts its thread.
    pub fn open(config: &Config, isolation: Isolation) -> Result<Connection, Error> {
        let fail = |doing| move |error: postgres::Error| Error::from_client(doing, &error);
        let mut client = config.connect(NoTls).map_err(fail("opening a session"))?;
        client
            .batch_execute(&settings(isolation))
            .map_err(fail("setting up a session"))?;
        let fast_deadlocks = client.batch_execute(&deadlock_setting()).is_ok();
        let pid: i32 = client
            .query_one("SELECT pg_catalog.pg_backend_pid()", &[])
            .and_then(|row| row.try_get(0))
            .map_err(fail("asking a session's backend pid"))?;
        let cancel = client.cancel_token();
        let (jobs, inbox) = mpsc::channel();
        let (outbox, replies) = mpsc::channel();
        let thread = std::thread::Builder::new()
            .name(format!("fencelab-postgres-{pid}"))
            .spawn(move || serve(client, inbox, outbox))
            .map_err(|error| Error::Connection {
                doing: "starting a session's thread",
                message: error.to_string(),
            })?;
        Ok(Connection {
            pid,
            jobs: Some(jobs),
            replies,
            cancel,
            thread: Some(thread),
            pending: 0,
            isolation,
            fast_deadlocks,
        })
    }

    pub fn pid(&self) -> i32 {
        self.pid
    }

    pub fn fast_deadlocks(&self) -> bool {
        self.fast_deadlocks
    }

    pub fn isolation(&self) -> Isolation {
        self.isolation
    }

    fn post(&mut self, job: Job) -> Result<(), Error> {
        let sent = self.jobs.as_ref().map(|jobs| jobs.send(job).is_ok());
        if sent != Some(true) {
            return Err(lost("sending a statement"));
        }
        self.pending += 1;
        Ok(())
    }

    /// Sends a learner's statement; its outcome comes from [`Self::wait`].
    pub fn run(&mut self, sql: String, values: Vec<(String, Value)>) -> Result<(), Error> {
        self.post(Job::Run { sql, values })
    }

    /// The next outcome, if it comes within `pause`.
    pub fn wait(&mut self, pause: Duration) -> Option<Outcome> {
        match self.replies.recv_timeout(pause) {
            Ok(outcome) => {
                self.pending -= 1;
                Some(outcome)
            }
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => {
                self.pending = 0;
                Some(Err(lost("waiting for a reply")))
            }
        }
    }

    /// Asks the server to cancel whatever the connection runs now.
    pub fn cancel(&self) -> Result<(), Error> {
        self.cancel
            .cancel_query(NoTls)
            .map_err(|error| Error::Connection {
                doing: "cancelling a statement",
                message: error.to_string(),
            })
    }

    /// Cancels the statement in flight and waits for its reply. A cancel
    /// that reaches the backend before the statement does is ignored by
    /// the server (a session closed right after its send), so it is sent
    /// again, less and less often, until the reply comes.
    pub fn interrupt(&mut self) -> Result<Outcome, Error> {
        let started = Instant::now();
        let mut pause = Duration::from_millis(5);
        loop {
            self.cancel()?;
            if let Some(outcome) = self.wait(pause) {
                return Ok(outcome);
            }
            if started.elapsed() > STATEMENT_TIMEOUT + Duration::from_secs(5) {
                return Err(Error::NoReply {
                    waited: started.elapsed(),
                });
            }
            pause = (pause * 2).min(Duration::from_millis(200));
        }
    }

    /// Queues the cleaning of a session returned to the pool: what
    /// `DISCARD ALL` does (end the transaction, release advisory locks,
    /// drop temporary tables, reset settings), without its
    /// `DEALLOCATE ALL`, which would drop the statements the client keeps
    /// prepared for looking up types; then the session's settings again.
    /// One round trip. Finished by [`Self::finish_pending`].
    pub fn start_cleaning(&mut self) -> Result<(), Error> {
        let mut sql = String::from(
            "ROLLBACK; CLOSE ALL; SET SESSION AUTHORIZATION DEFAULT; RESET ALL; UNLISTEN *; \
             SELECT pg_catalog.pg_advisory_unlock_all(); DISCARD PLANS; DISCARD TEMP; DISCARD SEQUENCES; ",
        );
        sql.push_str(&settings(self.isolation));
        if self.fast_deadlocks {
            sql.push_str("; ");
            sql.push_str(&deadlock_setting());
        }
        self.post(Job::Batch(sql))
    }

    /// Waits for every job sent to finish, and gives the last one's
    /// outcome; an error only when no reply came.
    pub fn drain(&mut self) -> Result<Outcome, Error> {
        let patience = STATEMENT_TIMEOUT + Duration::from_secs(5);
        let mut last = Ok(Reply::Rows {
            columns: vec![],
            rows: vec![],
            changed: 0,
        });
        while self.pending > 0 {
            last = self
                .wait(patience)
                .ok_or(Error::NoReply { waited: patience })?;
        }
        Ok(last)
    }

    /// Waits for fencelab's own statements sent (a cleaning, settings) and
    /// says whether they all ran.
    pub fn finish_pending(&mut self) -> Result<(), Error> {
        match self.drain()? {
            Ok(Reply::Failed(error)) => Err(Error::Server {
                doing: "cleaning a session",
                error,
            }),
            outcome => outcome.map(|_| ()),
        }
    }

    /// Makes `isolation` the default of the session's next transactions.
    pub fn set_isolation(&mut self, isolation: Isolation) -> Result<(), Error> {
        if isolation != self.isolation {
            self.isolation = isolation;
            self.post(Job::Batch(settings(isolation)))?;
            self.finish_pending()?;
        }
        Ok(())
    }
}

impl Drop for Connection {
    /// Ends the thread: a statement still running is interrupted first
    /// (else the join would wait for it), then the thread sees its inbox
    /// closed.
    fn drop(&mut self) {
        if self.pending > 0 {
            let _ = self.interrupt();
        }
        self.jobs = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn lost(doing: &'static str) -> Error {
    Error::Connection {
        doing,
        message: "the session's connection is closed".into(),
    }
}

/// The thread's loop: one job at a time, until the connection is dropped.
fn serve(mut client: Client, inbox: Receiver<Job>, outbox: Sender<Outcome>) {
    while let Ok(job) = inbox.recv() {
        let outcome = match job {
            Job::Run { sql, values } => run(&mut client, &sql, &values),
            Job::Batch(sql) => batch(&mut client, &sql),
        };
        if outbox.send(outcome).is_err() {
            break;
        }
    }
}

/// The server's refusal as a reply; anything else (a lost connection) as
/// an error.
fn refusal(doing: &'static str, error: postgres::Error) -> Outcome {
    match error.as_db_error() {
        Some(db) => Ok(Reply::Failed(ServerError {
            position: match db.position() {
                Some(postgres::error::ErrorPosition::Original(at)) => usize::try_from(*at).ok(),
                _ => None,
            },
            ..ServerError::from_db(db)
        })),
        None => Err(Error::Connection {
            doing,
            message: error.to_string(),
        }),
    }
}

fn batch(client: &mut Client, sql: &str) -> Outcome {
    match client.batch_execute(sql) {
        Ok(()) => Ok(Reply::Rows {
            columns: vec![],
            rows: vec![],
            changed: 0,
        }),
        Err(error) => refusal("running fencelab's statements", error),
    }
}

/// Prepares the statement (the server infers its parameters' types and
/// says its columns'), checks both, then runs it. The server's position of
/// an error is left as it sent it (1-based characters of `sql`); the
/// session maps it back to the learner's text.
fn run(client: &mut Client, sql: &str, values: &[(String, Value)]) -> Outcome {
    let statement = match client.prepare(sql) {
        Ok(statement) => statement,
        Err(error) => return refusal("preparing a statement", error),
    };
    convert::check_columns(statement.columns())?;
    if statement.params().len() != values.len() {
        return Err(Error::ParameterCount {
            expected: statement.params().len(),
            named: values.len(),
        });
    }
    let parameters = statement
        .params()
        .iter()
        .zip(values)
        .map(|(ty, (name, value))| convert::parameter(name, value, ty))
        .collect::<Result<Vec<_>, _>>()?;
    let columns = statement
        .columns()
        .iter()
        .map(|c| c.name().to_string())
        .collect();
    let mut iterator = match client.query_raw(&statement, parameters.iter()) {
        Ok(iterator) => iterator,
        Err(error) => return refusal("running a statement", error),
    };
    let mut rows = Vec::new();
    loop {
        match iterator.next() {
            Ok(Some(row)) => rows.push(convert::row(&row)?),
            Ok(None) => break,
            Err(error) => return refusal("reading a statement's rows", error),
        }
    }
    let changed = iterator.rows_affected().unwrap_or(0);
    Ok(Reply::Rows {
        columns,
        rows,
        changed,
    })
}
