//! The PostgreSQL benchmark, `cargo xtask bench`'s section "postgres": for
//! every bundled exercise with a `[postgres]` table, and a fixture (exercise
//! 1 with the engine's tests' PostgreSQL dialect, so the section always has
//! a row, and the same row from run to run), the whole
//! check (`CheckSearch`: the reference's suite, the starting texts', every
//! broken variant's, the declarations judged) on SQLite and on the server
//! `FENCELAB_POSTGRES` names, timed apart: schedules, seconds per check,
//! schedules a second, and the server's time over SQLite's.
//!
//! Section "postgres time" says where the server's check spends it: each
//! request the core makes of the seam (`fencelab_core::server::Server`),
//! counted and timed by a wrapper the benchmark puts between the core and
//! the engine (the engine itself is unchanged), the observers' polls
//! inside the settles, and what is left (the interpreter, scheduler and
//! monitor, and the copy of the committed rows into the mirror's SQLite).
//!
//! Figures, never verdicts: `BENCH` lines that xtask collects.

use fencelab_core::Exercise;
use fencelab_core::check::Progress;
use fencelab_core::exercise::CheckSearch;
use fencelab_core::server::{SendError, Server as Seam, ServerError, ServerTable, Settled};
use fencelab_core::target::{Target, Worlds};
use fencelab_model::exercise::Isolation;
use fencelab_model::value::Value;
use fencelab_postgres::{PgWorlds, Server, observer_polls, testing::SPEC_VARIABLE};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// Whole checks timed on each engine, after one untimed (its caches warm,
/// its schedules counted); `BENCH_POSTGRES_ROUNDS` sets another number.
const ROUNDS: u32 = 3;

/// Exercise 1's schema and reference on PostgreSQL, as the engine's tests
/// have them: the fixture's `[postgres]` table.
#[path = "../tests/claim/mod.rs"]
mod claim;

fn main() {
    let Some(spec) = std::env::var(SPEC_VARIABLE)
        .ok()
        .filter(|s| !s.trim().is_empty())
    else {
        eprintln!("the PostgreSQL benchmark needs a server: set {SPEC_VARIABLE}");
        std::process::exit(2);
    };
    let server = Server::connect(&spec).unwrap_or_else(|e| {
        eprintln!("cannot use the PostgreSQL server: {e}");
        std::process::exit(2);
    });
    println!("on {}", server.version());
    let rounds = std::env::var("BENCH_POSTGRES_ROUNDS")
        .ok()
        .and_then(|n| n.parse().ok())
        .filter(|&n| n > 0)
        .unwrap_or(ROUNDS);
    let tally = Arc::new(Tally::default());
    let worlds: Arc<dyn Worlds> = Arc::new(CountedWorlds {
        inner: PgWorlds::new(server),
        tally: Arc::clone(&tally),
    });
    for (row, exercise) in exercises() {
        let Some(on_server) = exercise.on_postgres() else {
            continue;
        };
        let sqlite = timed_checks(&Target::Sqlite, &exercise, rounds, || {});
        let mut polls_before = observer_polls();
        let on_server_target = Target::Server(Arc::clone(&worlds));
        let server = timed_checks(&on_server_target, &on_server, rounds, || {
            tally.clear();
            polls_before = observer_polls();
        });
        let polls = (
            observer_polls().0 - polls_before.0,
            observer_polls().1 - polls_before.1,
        );
        rate_lines(&row, &sqlite, &server);
        breakdown_lines(&row, &tally, polls, &server);
    }
}

/// The exercises with a PostgreSQL dialect, by row name: the fixture first.
/// Exercise 1 is bundled with a dialect of its own, so the fixture is its
/// text up to its `[postgres]` table (the dialect's tables end the file),
/// then the engine's tests' dialect: the row stays the one the earlier runs
/// recorded, beside the bundled one.
fn exercises() -> Vec<(String, Exercise)> {
    let file = "crates/model/exercises/01-claim-compare-and-set.toml";
    let bundled_text = include_str!("../../model/exercises/01-claim-compare-and-set.toml");
    let sqlite_only = bundled_text
        .split_once("\n[postgres]\n")
        .map_or(bundled_text, |(before, _)| before);
    let text = format!(
        "{sqlite_only}\n[postgres]\nschema = '''{}'''\n\n[postgres.procedures.claim]\nreference = '''{}'''\n",
        claim::CLAIM_SCHEMA,
        claim::CLAIM_REFERENCE
    );
    let fixture = fencelab_core::exercise::load(file, &text)
        .unwrap_or_else(|e| panic!("the fixture loads: {e}"));
    let mut all = vec![(format!("{} (fixture)", fixture.id), fixture)];
    let bundled = fencelab_core::bundled::exercises().unwrap_or_else(|e| panic!("{e}"));
    all.extend(
        bundled
            .into_iter()
            .filter(|e| e.postgres.is_some())
            .map(|e| (e.id.clone(), e)),
    );
    all
}

/// An engine's checks of one exercise: schedules a check, seconds in all.
struct Timed {
    schedules: u64,
    seconds: f64,
    rounds: u32,
}

impl Timed {
    fn per_check(&self) -> f64 {
        self.seconds / f64::from(self.rounds)
    }
}

fn check(target: &Target, exercise: &Exercise) -> u64 {
    let mut search = CheckSearch::on(target.clone(), exercise.clone());
    while let Progress::Pending = search.advance(u64::MAX) {}
    search.schedules()
}

/// One untimed check (its schedules counted), then `before` (which starts
/// the counts afresh), then `rounds` timed.
fn timed_checks(target: &Target, exercise: &Exercise, rounds: u32, before: impl FnOnce()) -> Timed {
    let schedules = check(target, exercise);
    before();
    let started = Instant::now();
    for _ in 0..rounds {
        std::hint::black_box(check(target, exercise));
    }
    Timed {
        schedules,
        seconds: started.elapsed().as_secs_f64(),
        rounds,
    }
}

fn figure(section: &str, row: &str, column: &str, value: String, unit: &str) {
    println!("BENCH\t{section}\t{row}\t{column}\t{value}\t{unit}");
}

fn rate_lines(row: &str, sqlite: &Timed, server: &Timed) {
    for (engine, timed) in [("SQLite", sqlite), ("PostgreSQL", server)] {
        let per_check = timed.per_check();
        figure(
            "postgres",
            row,
            &format!("{engine} schedules"),
            timed.schedules.to_string(),
            "",
        );
        figure(
            "postgres",
            row,
            &format!("{engine} time per check"),
            format!("{:.1}", per_check * 1000.0),
            "ms",
        );
        figure(
            "postgres",
            row,
            &format!("{engine} schedules/s"),
            format!("{:.0}", timed.schedules as f64 / per_check),
            "",
        );
    }
    figure(
        "postgres",
        row,
        "PostgreSQL / SQLite time",
        format!("{:.1}", server.per_check() / sqlite.per_check()),
        "x",
    );
}

/// Where the server's checks of `row` spent their time: each seam request
/// and the observers' polls, per check and per run (a run is a reset: every
/// run starts from the seed), and the rest.
fn breakdown_lines(row: &str, tally: &Tally, polls: (u64, Duration), server: &Timed) {
    let rounds = f64::from(server.rounds);
    let entries = tally.entries();
    let runs = entries.get("reset").map_or(0, |(count, _)| *count).max(1) as f64;
    let total_ms = server.seconds * 1000.0;
    let line = |piece: &str, count: u64, took: Duration| {
        let ms = took.as_secs_f64() * 1000.0;
        let row = format!("{row}: {piece}");
        let section = "postgres time";
        figure(
            section,
            &row,
            "calls a check",
            format!("{:.0}", count as f64 / rounds),
            "",
        );
        figure(
            section,
            &row,
            "calls a run",
            format!("{:.1}", count as f64 / runs),
            "",
        );
        figure(
            section,
            &row,
            "time a check",
            format!("{:.1}", ms / rounds),
            "ms",
        );
        figure(
            section,
            &row,
            "time a run",
            format!("{:.0}", ms * 1000.0 / runs),
            "µs",
        );
        figure(
            section,
            &row,
            "share",
            format!("{:.0}", ms * 100.0 / total_ms),
            "%",
        );
    };
    let mut accounted = Duration::ZERO;
    for (piece, (count, took)) in &entries {
        line(piece, *count, *took);
        accounted += *took;
    }
    line("  of which observer polls (in settle)", polls.0, polls.1);
    let rest = Duration::from_secs_f64(server.seconds).saturating_sub(accounted);
    line("rest (engine, mirror copy into SQLite)", 0, rest);
}

/// Every seam request's count and time, by name.
#[derive(Default)]
struct Tally(Mutex<BTreeMap<&'static str, (u64, Duration)>>);

impl Tally {
    fn add(&self, what: &'static str, took: Duration) {
        let mut entries = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let entry = entries.entry(what).or_default();
        entry.0 += 1;
        entry.1 += took;
    }

    fn clear(&self) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
    }

    fn entries(&self) -> BTreeMap<&'static str, (u64, Duration)> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

/// `PgWorlds` whose worlds count and time every request.
struct CountedWorlds {
    inner: PgWorlds,
    tally: Arc<Tally>,
}

impl Worlds for CountedWorlds {
    fn world(&self, exercise: &Exercise) -> Result<Box<dyn Seam>, ServerError> {
        let started = Instant::now();
        let world = self.inner.world(exercise);
        self.tally.add("make a world", started.elapsed());
        Ok(Box::new(Counted {
            inner: Some(world?),
            tally: Arc::clone(&self.tally),
        }))
    }
}

/// A world whose every request is counted and timed, and its dropping (the
/// database dropped on the server) too.
struct Counted {
    inner: Option<Box<dyn Seam>>,
    tally: Arc<Tally>,
}

impl Counted {
    fn timed<R>(&mut self, what: &'static str, request: impl FnOnce(&mut dyn Seam) -> R) -> R {
        let started = Instant::now();
        let world = self
            .inner
            .as_deref_mut()
            .expect("a world until it is dropped");
        let result = request(world);
        self.tally.add(what, started.elapsed());
        result
    }

    fn world(&self) -> &dyn Seam {
        self.inner.as_deref().expect("a world until it is dropped")
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        let started = Instant::now();
        drop(self.inner.take());
        self.tally.add("drop a world", started.elapsed());
    }
}

impl Seam for Counted {
    fn set_isolation(&mut self, isolation: Isolation) {
        self.timed("set isolation", |s| s.set_isolation(isolation));
    }

    fn open(&mut self, id: fencelab_core::ProcessId) -> Result<(), ServerError> {
        self.timed("open a session", |s| s.open(id))
    }

    fn close(&mut self, id: fencelab_core::ProcessId) -> bool {
        self.timed("close a session", |s| s.close(id))
    }

    fn send(
        &mut self,
        id: fencelab_core::ProcessId,
        sql: &str,
        lookup: &dyn Fn(&str) -> Option<Value>,
    ) -> Result<fencelab_core::Values, SendError> {
        self.timed("send", |s| s.send(id, sql, lookup))
    }

    fn settle(&mut self, id: fencelab_core::ProcessId) -> Result<Settled, ServerError> {
        self.timed("settle", |s| s.settle(id))
    }

    fn await_any(
        &mut self,
        ids: &[fencelab_core::ProcessId],
        patience: Duration,
    ) -> Result<Option<fencelab_core::ProcessId>, ServerError> {
        self.timed("await a stall", |s| s.await_any(ids, patience))
    }

    fn roll_back(&mut self, id: fencelab_core::ProcessId) {
        self.timed("roll back", |s| s.roll_back(id));
    }

    fn in_transaction(&self, id: fencelab_core::ProcessId) -> bool {
        self.world().in_transaction(id)
    }

    fn direct(&mut self, sql: &str) -> Result<u64, ServerError> {
        self.timed("direct SQL", |s| s.direct(sql))
    }

    fn reset(&mut self) -> Result<(), ServerError> {
        self.timed("reset", |s| s.reset())
    }

    fn columns(&mut self) -> Result<Vec<fencelab_core::mutate::TableColumns>, ServerError> {
        self.timed("columns (mutation operators)", |s| s.columns())
    }

    fn committed(&mut self) -> Result<Vec<ServerTable>, ServerError> {
        self.timed("committed rows (mirror read)", |s| s.committed())
    }
}
