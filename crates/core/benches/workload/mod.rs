//! The statement benchmark's workload, shared by the native benchmark
//! (benches/engine.rs) and its wasm twin (tests/wasm_bench.rs): the seed's
//! claim/complete round, seven statements, run by bare rusqlite on the same
//! in-memory database the engine uses, and by the engine with history off,
//! recorded from SQLite's preupdate hook, and recorded by snapshots (the
//! earlier way), beside messages tables of different sizes.
//!
//! The round leaves the database as it found it but for the counters (the
//! claim mints from a one-row counter and the completion puts the message
//! back to NEW), so every round of a configuration runs against tables of
//! the same size: a cost that grows with the rows a step does not touch
//! shows as a difference between sizes, never as a drift within one.
//!
//! Figures are printed as `BENCH<TAB>section<TAB>row<TAB>column<TAB>value<TAB>unit`
//! lines, which `cargo xtask bench` collects into one table.

use fencelab_core::Recorder;
use fencelab_core::{Outcome, Procedure, ProcessId, Value, Values, World};
use rusqlite::Connection;

/// Statements in one claim/complete round.
pub const STATEMENTS_PER_ROUND: u32 = 7;

/// The benchmark's own mailbox, not the tests' (the file says why).
const SCHEMA: &str = include_str!("../../tests/schemas/workload.sql");

const CLAIM: [&str; 4] = [
    "BEGIN IMMEDIATE",
    "UPDATE mint SET next_token = next_token + 1 RETURNING next_token AS token",
    "UPDATE messages SET state = 'CLAIMED', claim_owner = :actor, fencing_token = :token
      WHERE id = :message_id AND state = 'NEW'",
    "COMMIT",
];

const COMPLETE: [&str; 3] = [
    "BEGIN IMMEDIATE",
    "UPDATE messages SET state = 'NEW', claim_owner = NULL
      WHERE id = :message_id AND claim_owner = :actor AND fencing_token = :token",
    "COMMIT",
];

/// The tables a configuration runs beside.
#[derive(Clone, Copy, Debug)]
pub struct Size {
    pub messages: u32,
    pub tokens: u32,
}

impl Size {
    pub fn label(self) -> String {
        if self.tokens == 0 {
            format!("{} rows", self.messages)
        } else {
            format!("{} messages + {} tokens", self.messages, self.tokens)
        }
    }

    fn seed_sql(self) -> String {
        format!(
            "{SCHEMA}
             WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {m})
             INSERT INTO messages (id, body, state) SELECT i, 'message ' || i, 'NEW' FROM n;
             WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {t})
             INSERT INTO lease_tokens (kind) SELECT 'mailbox_claim' FROM n WHERE {t} > 0;",
            m = self.messages,
            t = self.tokens,
        )
    }
}

/// The two sizes every configuration runs at, and the size the issue
/// measured a recorded step at (870 us natively, by snapshots).
pub const SMALL: Size = Size {
    messages: 10,
    tokens: 0,
};
pub const LARGE: Size = Size {
    messages: 1000,
    tokens: 0,
};
pub const ISSUE: Size = Size {
    messages: 300,
    tokens: 600,
};

/// Who runs the statements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Runner {
    Bare,
    HistoryOff,
    HistoryOn,
    HistoryBySnapshots,
}

impl Runner {
    pub const ALL: [Runner; 4] = [
        Runner::Bare,
        Runner::HistoryOff,
        Runner::HistoryOn,
        Runner::HistoryBySnapshots,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Runner::Bare => "bare rusqlite",
            Runner::HistoryOff => "history off",
            Runner::HistoryOn => "history on",
            Runner::HistoryBySnapshots => "history by snapshots",
        }
    }
}

/// One configuration, ready to run rounds.
pub enum Bench {
    Bare {
        connection: Connection,
        message: i64,
        messages: i64,
    },
    Engine {
        world: Box<World>,
        process: ProcessId,
        message: i64,
        messages: i64,
    },
}

impl Bench {
    pub fn new(runner: Runner, size: Size) -> Bench {
        let seed = size.seed_sql();
        let messages = i64::from(size.messages);
        if runner == Runner::Bare {
            let name = format!("bench-bare-{}-{}", size.messages, size.tokens);
            let connection = fencelab_core::sqlite::open_shared(&name).unwrap();
            connection.execute_batch(&seed).unwrap();
            return Bench::Bare {
                connection,
                message: 0,
                messages,
            };
        }
        let procedures = [
            Procedure::parse(
                "claim",
                &format!(
                    "{};\n{};\n{};\n-- @refuse not_claimable unless changed 1: not claimable\n{};\n-- @return token\n",
                    CLAIM[0], CLAIM[1], CLAIM[2], CLAIM[3]
                ),
            )
            .unwrap(),
            Procedure::parse(
                "complete",
                &format!(
                    "{};\n{};\n-- @refuse stale_token unless changed 1: stale token\n{};\n",
                    COMPLETE[0], COMPLETE[1], COMPLETE[2]
                ),
            )
            .unwrap(),
        ];
        let mut world = World::new(&seed, procedures, Values::new()).unwrap();
        world.set_recording(runner != Runner::HistoryOff);
        if runner == Runner::HistoryBySnapshots {
            world.set_recorder(Recorder::Snapshots);
        }
        let process = world.start_process("worker-a").unwrap();
        Bench::Engine {
            world: Box::new(world),
            process,
            message: 0,
            messages,
        }
    }

    /// Claims the next message and completes it: seven statements.
    pub fn round(&mut self) {
        match self {
            Bench::Bare {
                connection,
                message,
                messages,
            } => {
                *message = *message % *messages + 1;
                bare_round(connection, *message);
            }
            Bench::Engine {
                world,
                process,
                message,
                messages,
            } => {
                *message = *message % *messages + 1;
                let arguments: Values = [("message_id".to_string(), Value::Integer(*message))]
                    .into_iter()
                    .collect();
                let Outcome::Ok { values } = world
                    .run_call(*process, "claim", arguments.clone())
                    .unwrap()
                else {
                    panic!("the claim of message {message} was not ok");
                };
                let mut arguments = arguments;
                arguments.extend(values);
                let outcome = world.run_call(*process, "complete", arguments).unwrap();
                assert!(matches!(outcome, Outcome::Ok { .. }), "{outcome:?}");
                // The history is what the page is sent; it is not kept here.
                world.take_history();
            }
        }
    }
}

fn bare_round(connection: &Connection, message: i64) {
    let run = |sql: &str, token: i64| -> usize {
        let mut statement = connection.prepare_cached(sql).unwrap();
        // Bind only the parameters a statement names, as the engine does.
        for (name, value) in [
            (
                ":actor",
                rusqlite::types::Value::from("worker-a".to_string()),
            ),
            (":token", token.into()),
            (":message_id", message.into()),
        ] {
            if let Some(index) = statement.parameter_index(name).unwrap() {
                statement.raw_bind_parameter(index, value).unwrap();
            }
        }
        statement.raw_execute().unwrap()
    };
    run(CLAIM[0], 0);
    let token: i64 = connection
        .prepare_cached(CLAIM[1])
        .unwrap()
        .query_row([], |row| row.get(0))
        .unwrap();
    assert_eq!(run(CLAIM[2], token), 1);
    run(CLAIM[3], token);
    run(COMPLETE[0], token);
    assert_eq!(run(COMPLETE[1], token), 1);
    run(COMPLETE[2], token);
}

/// Microseconds per statement of `bench`: the fastest of `batches` batches
/// of `rounds` rounds.
fn fastest_batch_us(
    bench: &mut Bench,
    now_ms: impl Fn() -> f64,
    batches: usize,
    rounds: u32,
) -> f64 {
    (0..batches)
        .map(|_| {
            let started = now_ms();
            for _ in 0..rounds {
                bench.round();
            }
            (now_ms() - started) * 1000.0 / f64::from(rounds * STATEMENTS_PER_ROUND)
        })
        .fold(f64::INFINITY, f64::min)
}

/// How many rounds of `bench` take about `batch_ms` (at least ten), which
/// also warms its statement caches.
fn rounds_per_batch(bench: &mut Bench, now_ms: impl Fn() -> f64, batch_ms: f64) -> u32 {
    let started = now_ms();
    let mut rounds = 0u32;
    while now_ms() - started < batch_ms || rounds < 10 {
        bench.round();
        rounds += 1;
    }
    rounds
}

/// One line for `cargo xtask bench`'s table.
pub fn bench_line(row: &str, column: &str, value: f64, unit: &str) -> String {
    format!("BENCH\tengine\t{row}\t{column}\t{value:.2}\t{unit}")
}

/// Times every configuration at every size and returns the BENCH lines:
/// microseconds per statement, and the ratio of a recorded statement to an
/// unrecorded one at each size (the issue's target: at most 3).
///
/// Each figure is the fastest batch of about `batch_ms`, over `passes`
/// passes of `batches` batches. The machines this runs on are shared: the
/// fastest batch is the one other work disturbed least, and taking the
/// configurations in turn, pass after pass, spreads a busy spell over all
/// of them instead of one.
pub fn run_all(
    now_ms: impl Fn() -> f64 + Copy,
    column: &str,
    passes: usize,
    batches: usize,
    batch_ms: f64,
) -> Vec<String> {
    let mut configurations: Vec<(Runner, Size, Bench, u32, f64)> = [SMALL, LARGE, ISSUE]
        .into_iter()
        .flat_map(|size| Runner::ALL.into_iter().map(move |runner| (runner, size)))
        .filter(|(runner, size)| !(size.tokens > 0 && *runner == Runner::Bare))
        .map(|(runner, size)| {
            let mut bench = Bench::new(runner, size);
            let rounds = rounds_per_batch(&mut bench, now_ms, batch_ms);
            (runner, size, bench, rounds, f64::INFINITY)
        })
        .collect();
    for _ in 0..passes {
        for (_, _, bench, rounds, fastest) in &mut configurations {
            *fastest = fastest.min(fastest_batch_us(bench, now_ms, batches, *rounds));
        }
    }
    let mut lines = Vec::new();
    for size in [SMALL, LARGE, ISSUE] {
        let of = |wanted: Runner| {
            configurations
                .iter()
                .find(|(runner, s, ..)| *runner == wanted && s.label() == size.label())
                .map(|(.., us)| *us)
        };
        for runner in Runner::ALL {
            if let Some(us) = of(runner) {
                lines.push(bench_line(
                    &format!("{}, {}", runner.label(), size.label()),
                    column,
                    us,
                    "us/statement",
                ));
            }
        }
        if let (Some(on), Some(off)) = (of(Runner::HistoryOn), of(Runner::HistoryOff)) {
            lines.push(bench_line(
                &format!("history on / history off, {}", size.label()),
                column,
                on / off,
                "ratio",
            ));
        }
    }
    lines
}
