//! A scenario process's connection: statements are sent, then settled
//! (finished, or seen waiting on another session's lock, as PostgreSQL's
//! isolationtester sees it).

use crate::connection::{Connection, STATEMENT_TIMEOUT};
use crate::error::{Error, ServerError};
use crate::positional::Rewrite;
use crate::world::{Observer, Pool};
use fencelab_model::value::Value;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A transaction isolation level, the session's default for its
/// transactions (`BEGIN` takes it; so does each statement outside one).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Isolation {
    #[default]
    ReadCommitted,
    RepeatableRead,
    Serializable,
}

impl From<fencelab_model::exercise::Isolation> for Isolation {
    /// The exercise format's level (`[postgres]`'s `isolation`, a
    /// scenario's own) as a session takes it.
    fn from(level: fencelab_model::exercise::Isolation) -> Isolation {
        use fencelab_model::exercise::Isolation as Level;
        match level {
            Level::ReadCommitted => Isolation::ReadCommitted,
            Level::RepeatableRead => Isolation::RepeatableRead,
            Level::Serializable => Isolation::Serializable,
        }
    }
}

impl Isolation {
    pub(crate) fn sql(self) -> &'static str {
        match self {
            Isolation::ReadCommitted => "read committed",
            Isolation::RepeatableRead => "repeatable read",
            Isolation::Serializable => "serializable",
        }
    }
}

/// What the server answered to a learner's statement.
#[derive(Clone, Debug, PartialEq)]
pub enum Reply {
    /// It ran: its rows (none for a plain `UPDATE`), and the command's row
    /// count (`UPDATE ... RETURNING` has both).
    Rows {
        columns: Vec<String>,
        rows: Vec<Vec<Value>>,
        changed: u64,
    },
    /// The server refused it.
    Failed(ServerError),
}

/// Where a sent statement stands.
#[derive(Clone, Debug, PartialEq)]
pub enum Settled {
    Done(Reply),
    /// The server says the session waits on a lock one of the world's other
    /// sessions holds; settle it again once they have moved.
    Waiting,
}

/// The first pause between looks at a statement in flight; it doubles up to
/// [`LONGEST_PAUSE`]. Most statements reply within the first.
const FIRST_PAUSE: Duration = Duration::from_micros(200);
const LONGEST_PAUSE: Duration = Duration::from_millis(4);
/// Past the server's timeout, how long to wait for its cancellation.
const GRACE: Duration = Duration::from_secs(5);

/// How a statement moves the session in or out of a transaction block
/// (the client crate does not show the server's ReadyForQuery status).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Effect {
    /// `BEGIN`, `START TRANSACTION`: in, if it succeeds.
    Begin,
    /// `COMMIT`, `END`, `ROLLBACK`, `ABORT`, `PREPARE TRANSACTION`: out,
    /// whatever the reply (COMMIT of a failed transaction rolls it back).
    End,
    /// Anything else, including `ROLLBACK TO SAVEPOINT`, `COMMIT AND
    /// CHAIN` and `COMMIT PREPARED` (which runs outside a transaction).
    None,
}

fn words(sql: &str) -> Vec<String> {
    let mut rest = sql.trim_start();
    loop {
        if let Some(after) = rest.strip_prefix("--") {
            rest = after
                .split_once('\n')
                .map_or("", |(_, tail)| tail)
                .trim_start();
        } else if let Some(after) = rest.strip_prefix("/*") {
            rest = after
                .split_once("*/")
                .map_or("", |(_, tail)| tail)
                .trim_start();
        } else {
            break;
        }
    }
    rest.split(|c: char| c.is_whitespace() || c == ';')
        .filter(|word| !word.is_empty())
        .take(4)
        .map(str::to_ascii_uppercase)
        .collect()
}

fn effect(sql: &str) -> Effect {
    let words = words(sql);
    let word = |index: usize| words.get(index).map_or("", String::as_str);
    let chained = words.windows(2).any(|w| w[0] == "AND" && w[1] == "CHAIN");
    match word(0) {
        "BEGIN" | "START" => Effect::Begin,
        "COMMIT" | "ROLLBACK" | "ABORT" | "END" if chained => Effect::None,
        "COMMIT" | "ROLLBACK" if word(1) == "PREPARED" => Effect::None,
        "ROLLBACK" if word(1) == "TO" || word(2) == "TO" => Effect::None,
        "COMMIT" | "ROLLBACK" | "ABORT" | "END" => Effect::End,
        "PREPARE" if word(1) == "TRANSACTION" => Effect::End,
        _ => Effect::None,
    }
}

/// A statement sent and not yet settled.
struct Flight {
    rewrite: Rewrite,
    effect: Effect,
}

/// One session of a world. Closing (or dropping) it returns its connection
/// to the world's pool, cleaned (a statement in flight cancelled, the
/// transaction rolled back, session state discarded).
pub struct Session {
    connection: Option<Connection>,
    pool: Arc<Pool>,
    flight: Option<Flight>,
    in_transaction: bool,
}

impl Session {
    pub(crate) fn new(connection: Connection, pool: Arc<Pool>) -> Session {
        Session {
            connection: Some(connection),
            pool,
            flight: None,
            in_transaction: false,
        }
    }

    fn connection(&mut self) -> Result<&mut Connection, Error> {
        self.connection.as_mut().ok_or(Error::Connection {
            doing: "using a session",
            message: "the session's connection is closed".into(),
        })
    }

    /// The server process serving this session (`pg_backend_pid()`).
    pub fn pid(&self) -> i32 {
        self.connection.as_ref().map_or(0, Connection::pid)
    }

    /// Whether `SET deadlock_timeout` was allowed (a superuser's session):
    /// without it a deadlock is found after the server's own timeout.
    pub fn fast_deadlocks(&self) -> bool {
        self.connection
            .as_ref()
            .is_some_and(Connection::fast_deadlocks)
    }

    /// The isolation level of the session's transactions.
    pub fn isolation(&self) -> Isolation {
        self.connection
            .as_ref()
            .map_or_else(Default::default, Connection::isolation)
    }

    /// Whether a statement was sent and has not settled as done (it may be
    /// waiting on a lock).
    pub fn in_flight(&self) -> bool {
        self.flight.is_some()
    }

    /// Whether the session is inside a transaction block (a failed one
    /// included, until its COMMIT or ROLLBACK).
    pub fn in_transaction(&self) -> bool {
        self.in_transaction
    }

    /// Sends a statement written with `:name` parameters, and returns at
    /// once; [`Self::settle`] tells what became of it.
    pub fn send(&mut self, sql: &str, parameters: &[(String, Value)]) -> Result<(), Error> {
        if self.flight.is_some() {
            return Err(Error::InFlight);
        }
        let rewrite = Rewrite::new(sql);
        let values = rewrite
            .names
            .iter()
            .map(
                |name| match parameters.iter().find(|(given, _)| given == name) {
                    Some((_, value)) => Ok((name.clone(), value.clone())),
                    None => Err(Error::MissingParameter { name: name.clone() }),
                },
            )
            .collect::<Result<Vec<_>, _>>()?;
        self.connection()?.run(rewrite.sql.clone(), values)?;
        self.flight = Some(Flight {
            effect: effect(sql),
            rewrite,
        });
        Ok(())
    }

    /// Waits until the statement sent has replied, or the server says the
    /// session waits on a lock held by another of the world's sessions
    /// (`pg_isolation_test_session_is_blocked`, asked on `observer`, as
    /// isolationtester asks). Never `Waiting` while the reply is there.
    pub fn settle(&mut self, observer: &Observer) -> Result<Settled, Error> {
        if self.flight.is_none() {
            return Err(Error::NothingInFlight);
        }
        let started = Instant::now();
        let mut pause = FIRST_PAUSE;
        let pid = self.pid();
        loop {
            if let Some(outcome) = self.connection()?.wait(pause) {
                return self.finish(outcome).map(Settled::Done);
            }
            if observer.is_blocked(pid)? {
                return match self.connection()?.wait(Duration::ZERO) {
                    Some(outcome) => self.finish(outcome).map(Settled::Done),
                    None => Ok(Settled::Waiting),
                };
            }
            if started.elapsed() > STATEMENT_TIMEOUT + GRACE {
                return Err(Error::NoReply {
                    waited: started.elapsed(),
                });
            }
            pause = (pause * 2).min(LONGEST_PAUSE);
        }
    }

    /// The statement's outcome: the transaction state moved by it, the
    /// server's error position placed in the learner's text.
    fn finish(&mut self, outcome: Result<Reply, Error>) -> Result<Reply, Error> {
        let Some(flight) = self.flight.take() else {
            return outcome;
        };
        match (&outcome, flight.effect) {
            (Err(Error::Connection { .. }), _) => self.in_transaction = false,
            (Ok(Reply::Rows { .. }), Effect::Begin) => self.in_transaction = true,
            (Ok(_), Effect::End) => self.in_transaction = false,
            _ => {}
        }
        match outcome? {
            Reply::Failed(mut error) => {
                error.position = error
                    .position
                    .and_then(|at| u32::try_from(at).ok())
                    .and_then(|at| flight.rewrite.original_position(at));
                Ok(Reply::Failed(error))
            }
            rows => Ok(rows),
        }
    }
}

impl Session {
    /// Closes the session as a crashed process's connection closes: a
    /// statement in flight is cancelled and its reply awaited (so the
    /// cancellation cannot reach the cleaning instead), then its transaction
    /// is rolled back and its locks and state discarded, all before this
    /// returns (a later statement of another session never races the
    /// release). The connection then waits in the world's pool.
    pub fn close(mut self) -> Result<(), Error> {
        self.close_connection()
    }

    fn close_connection(&mut self) -> Result<(), Error> {
        let Some(mut connection) = self.connection.take() else {
            return Ok(());
        };
        self.pool.unlend(connection.pid());
        if self.flight.take().is_some() {
            // The statement's own failure (cancelled, refused) is expected;
            // only a lost connection is the connection's.
            if let Err(error @ Error::Connection { .. }) = connection.interrupt()? {
                return Err(error);
            }
        }
        connection.start_cleaning()?;
        connection.finish_pending()?;
        self.pool.give_back(connection);
        Ok(())
    }
}

/// Waits until one of `sessions` (each with a statement sent) settles as
/// done, and gives its index and reply. For when every session of a
/// schedule waits and only the server can move: it breaks a deadlock after
/// [`crate::DEADLOCK_TIMEOUT`] (a second where that setting was refused),
/// and cancels a statement at [`STATEMENT_TIMEOUT`].
pub fn settle_first(
    sessions: &mut [&mut Session],
    observer: &Observer,
) -> Result<(usize, Reply), Error> {
    let started = Instant::now();
    let mut pause = FIRST_PAUSE;
    loop {
        for (index, session) in sessions.iter_mut().enumerate() {
            if let Settled::Done(reply) = session.settle(observer)? {
                return Ok((index, reply));
            }
        }
        if started.elapsed() > STATEMENT_TIMEOUT + GRACE {
            return Err(Error::NoReply {
                waited: started.elapsed(),
            });
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(LONGEST_PAUSE);
    }
}

impl Drop for Session {
    /// [`Session::close`], its error dropped with the connection.
    fn drop(&mut self) {
        let _ = self.close_connection();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transaction_statements_are_read_by_their_first_words() {
        let cases = [
            ("BEGIN", Effect::Begin),
            ("  begin isolation level serializable", Effect::Begin),
            ("-- claim\nSTART TRANSACTION", Effect::Begin),
            ("/* x */ COMMIT", Effect::End),
            ("end;", Effect::End),
            ("ROLLBACK", Effect::End),
            ("abort", Effect::End),
            ("ROLLBACK TO SAVEPOINT a", Effect::None),
            ("ROLLBACK TRANSACTION TO a", Effect::None),
            ("COMMIT AND CHAIN", Effect::None),
            ("COMMIT AND NO CHAIN", Effect::End),
            ("COMMIT PREPARED 'x'", Effect::None),
            ("PREPARE TRANSACTION 'x'", Effect::End),
            ("UPDATE jobs SET state = 'begin'", Effect::None),
            ("SELECT 1", Effect::None),
        ];
        for (sql, expected) in cases {
            assert_eq!(effect(sql), expected, "{sql}");
        }
    }
}
