//! Building a document's entries: one per exercise file, its cases made
//! from what `check`, `run` and `explore` found, with their places, links
//! and histories.

use super::{
    Case, CaseKind, Counts, Entry, EntryStatus, Exploration, HistoryLine, Location, Problem, Score,
    Status,
};
use fencelab_core::mutation::EquivalentsJudged;
use fencelab_core::{ExerciseCheck, ExerciseReport, ScenarioReport};
use fencelab_model::exercise::{Exercise, Places, line_at};
use fencelab_model::report::{KillRow, VariantOutcome};
use fencelab_model::scenario::Scenario;
use fencelab_model::share::{self, Edits, Link};
use std::collections::BTreeMap;

/// Which cases carry their history in the JSON document.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum History {
    /// Failed and errored cases only.
    #[default]
    Failing,
    /// Every scenario case.
    All,
    /// None.
    None,
}

/// What shapes the cases: which histories, and where share links point.
pub struct Options<'a> {
    pub history: History,
    /// The site's address (`--site URL`), for links to counterexamples.
    pub site: Option<&'a str>,
}

/// How long each piece of one exercise's check took, in seconds, as the
/// caller measured it: the reference's run of the suite, the starting
/// texts', each named broken variant's (in order), and the judging of the
/// `[[equivalent]]` declarations.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CheckSeconds {
    pub reference: f64,
    pub start: f64,
    pub variants: Vec<f64>,
    pub equivalents: f64,
}

/// An exercise file's text and where it came from.
pub struct Source<'a> {
    pub file: &'a str,
    pub text: &'a str,
}

impl Source<'_> {
    fn at(&self, offset: Option<usize>) -> Option<Location> {
        offset.map(|offset| Location {
            file: self.file.to_string(),
            line: line_at(self.text, offset),
        })
    }
}

impl Entry {
    /// A file that could not be read or loaded.
    pub fn unloadable(file: &str, problem: Problem) -> Entry {
        Entry {
            file: file.to_string(),
            exercise: None,
            title: None,
            status: EntryStatus::Unloadable,
            error: Some(problem),
            counts: Counts::default(),
            score: Score::default(),
            cases: Vec::new(),
            seconds: 0.0,
        }
    }

    fn of_cases(file: &str, exercise: &Exercise, cases: Vec<Case>) -> Entry {
        let mut counts = Counts::default();
        let mut score = Score::default();
        for case in &cases {
            counts.add(case.status);
            score.points += case.points;
            score.max += case.max_points;
        }
        Entry {
            file: file.to_string(),
            exercise: Some(exercise.id.clone()),
            title: Some(exercise.title.clone()),
            status: if counts.failed + counts.errored == 0 {
                EntryStatus::Passed
            } else {
                EntryStatus::Failed
            },
            error: None,
            counts,
            score,
            cases,
            seconds: 0.0,
        }
    }

    /// The `run` entry with each scenario case's seconds (`per_scenario`,
    /// in the cases' order) and the whole run's (`total`, with building
    /// the world).
    pub fn with_run_seconds(mut self, per_scenario: &[f64], total: f64) -> Entry {
        for (case, seconds) in self.cases.iter_mut().zip(per_scenario) {
            case.seconds = *seconds;
        }
        self.seconds = total;
        self
    }

    /// The `check` entry with its cases' seconds. A broken variant's is its
    /// own run of the suite; the reference runs every scenario in one go,
    /// and the declarations are judged together, so a scenario case gets
    /// an even share of the reference's run and a declaration of their
    /// judging. The entry's seconds are every piece's, the starting texts'
    /// run included.
    pub fn with_check_seconds(mut self, seconds: &CheckSeconds) -> Entry {
        let count = |kind: CaseKind| self.cases.iter().filter(|c| c.kind == kind).count();
        let share = |total: f64, of: usize| total / of.max(1) as f64;
        let scenario = share(seconds.reference, count(CaseKind::Scenario));
        let equivalent = share(seconds.equivalents, count(CaseKind::Equivalent));
        let mut variants = seconds.variants.iter();
        for case in &mut self.cases {
            case.seconds = match case.kind {
                CaseKind::Scenario => scenario,
                CaseKind::BrokenVariant => variants.next().copied().unwrap_or_default(),
                CaseKind::Equivalent => equivalent,
            };
        }
        self.seconds = seconds.reference
            + seconds.start
            + seconds.variants.iter().sum::<f64>()
            + seconds.equivalents;
        self
    }

    /// `check`'s cases of one exercise: the reference's scenarios, each
    /// broken variant, each `[[equivalent]]` declaration.
    pub fn of_check(
        source: &Source<'_>,
        exercise: &Exercise,
        check: &ExerciseCheck,
        equivalents: &EquivalentsJudged,
        options: &Options<'_>,
    ) -> Entry {
        let places = Places::of(source.text);
        // A counterexample to the reference opens with the references in
        // the editors, not the learner's starting texts.
        let references: Edits = exercise.reference_edits();
        let mut cases: Vec<Case> = check
            .reference
            .scenarios
            .iter()
            .zip(&exercise.scenarios)
            .enumerate()
            .map(|(i, (report, scenario))| {
                let link = options
                    .site
                    .map(|site| (site, exercise.id.as_str(), &references));
                scenario_case(
                    report,
                    scenario,
                    source.at(places.scenario(i)),
                    link,
                    options.history,
                )
            })
            .collect();
        for (i, row) in check.matrix.rows.iter().enumerate() {
            cases.push(variant_case(row, source.at(places.variant(i))));
        }
        cases.extend(equivalent_cases(equivalents, source, &places));
        Entry::of_cases(source.file, exercise, cases)
    }

    /// `run`'s cases: every scenario against the given texts. `scenarios`
    /// are the ones run, in the report's order, each with its place;
    /// `given` names the file each `--set` text came from, by procedure.
    pub fn of_run(
        file: &str,
        exercise: &Exercise,
        report: &ExerciseReport,
        scenarios: &[(Scenario, Option<Location>)],
        edits: &Edits,
        given: &BTreeMap<String, String>,
        options: &Options<'_>,
    ) -> Entry {
        let cases = report
            .scenarios
            .iter()
            .zip(scenarios)
            .map(|(report, (scenario, location))| {
                let link = options.site.map(|site| (site, exercise.id.as_str(), edits));
                let mut case =
                    scenario_case(report, scenario, location.clone(), link, options.history);
                // What broke is looked for in the submitted text, where the
                // learner can act on it, when it is one of theirs.
                if let Some(at) = in_given_text(report, given) {
                    case.location = Some(at);
                }
                case
            })
            .collect();
        Entry::of_cases(file, exercise, cases)
    }

    /// `run`'s cases when a given text could not be read at all (missing,
    /// empty, not text: `fencelab_cli::submission`): nothing was run, and
    /// every scenario is an errored case worth none of its points, saying
    /// `why` (which names the file and what to do) and placed at line 1 of
    /// the file `at`, so a grader shows the learner every test and the
    /// reason.
    pub fn of_unusable_texts(
        file: &str,
        exercise: &Exercise,
        scenarios: &[(Scenario, Option<Location>)],
        why: &str,
        at: &str,
    ) -> Entry {
        let cases = scenarios
            .iter()
            .map(|(scenario, _)| Case {
                name: scenario.name.clone(),
                kind: CaseKind::Scenario,
                status: Status::Errored,
                points: 0,
                max_points: u64::from(scenario.points),
                message: Some(why.to_string()),
                schedule: None,
                link: None,
                location: Some(Location {
                    file: at.to_string(),
                    line: 1,
                }),
                history: None,
                exploration: None,
                steps: Some(steps_text(scenario)),
                seconds: 0.0,
            })
            .collect();
        Entry::of_cases(file, exercise, cases)
    }

    /// The entry with each scenario case's search figures, from the
    /// `report` it was made of (`explore`).
    pub fn with_exploration(mut self, report: &ExerciseReport) -> Entry {
        let scenario_cases = self
            .cases
            .iter_mut()
            .filter(|case| case.kind == CaseKind::Scenario);
        for (case, scenario) in scenario_cases.zip(&report.scenarios) {
            let e = &scenario.exploration;
            case.exploration = Some(Exploration {
                sections: e.sections,
                schedules: e.schedules,
                pruned: e.pruned,
                states: e.states,
                procedure_steps: e.procedure_steps,
                sqlite_steps: e.sqlite_steps,
                memory_bytes: e.memory_bytes,
                seed: e.seed,
            });
        }
        self
    }
}

/// Where in a `--set` file `report` went wrong: an error's place in a
/// procedure text, or the procedure step after which a failure was seen.
fn in_given_text(report: &ScenarioReport, given: &BTreeMap<String, String>) -> Option<Location> {
    let (procedure, position) = match (report.error(), report.failure()) {
        (Some(error), _) => {
            let place = error.place.as_ref()?;
            (place.procedure.as_str(), place.position)
        }
        (None, Some(failure)) => {
            // The flagged event is often a call's return, which has no
            // line: the step before it in the same call has.
            let index = failure.event_index?;
            let flagged = report.history.get(index)?;
            let procedure = flagged.procedure.as_deref()?;
            let step = report.history[..=index].iter().rev().find(|e| {
                e.process == flagged.process
                    && e.procedure.as_deref() == Some(procedure)
                    && e.position.is_some()
            });
            (procedure, step.and_then(|e| e.position))
        }
        (None, None) => return None,
    };
    Some(Location {
        file: given.get(procedure)?.clone(),
        line: position.map_or(1, |p| p.line as usize),
    })
}

/// The places of a scenario file's scenarios, for `run --scenario-file FILE`.
pub fn scenario_locations(source: &Source<'_>, count: usize) -> Vec<Option<Location>> {
    let places = Places::of(source.text);
    (0..count).map(|i| source.at(places.scenario(i))).collect()
}

/// A broken variant's case: passed when a scenario catches it, failed when
/// none does, errored when a scenario could not run on it.
fn variant_case(row: &KillRow, location: Option<Location>) -> Case {
    let (status, message) = match row.outcome() {
        VariantOutcome::Caught(by) => {
            let by: Vec<&str> = by.iter().map(|c| c.scenario.as_str()).collect();
            (Status::Passed, format!("caught by: {}", by.join("; ")))
        }
        VariantOutcome::Survived => (
            Status::Failed,
            format!(
                "no scenario catches this broken variant ({})",
                row.explanation
            ),
        ),
        VariantOutcome::Errored(cells) => {
            let errors: Vec<String> = cells
                .iter()
                .map(|cell| {
                    let error = cell.problem.as_deref().unwrap_or_default();
                    format!("error in {}: {error}", cell.scenario)
                })
                .collect();
            (Status::Errored, errors.join("; "))
        }
    };
    plain_case(
        format!("broken variant: {}", row.variant),
        CaseKind::BrokenVariant,
        status,
        message,
        location,
    )
}

/// The `[[equivalent]]` declarations' cases, one each, or one errored case
/// when they could not be judged.
fn equivalent_cases(
    equivalents: &EquivalentsJudged,
    source: &Source<'_>,
    places: &Places,
) -> Vec<Case> {
    let judgements = match equivalents {
        Ok(judgements) => judgements,
        Err(why) => {
            return vec![plain_case(
                "equivalent declarations".into(),
                CaseKind::Equivalent,
                Status::Errored,
                why.to_string(),
                None,
            )];
        }
    };
    judgements
        .iter()
        .enumerate()
        .map(|(i, judgement)| {
            let (status, message) = match &judgement.stale {
                None => (Status::Passed, "names a generated mutant".to_string()),
                Some(stale) => (Status::Failed, stale.to_string()),
            };
            plain_case(
                format!("equivalent: {}", judgement.mutant),
                CaseKind::Equivalent,
                status,
                message,
                source.at(places.equivalent(i)),
            )
        })
        .collect()
}

fn plain_case(
    name: String,
    kind: CaseKind,
    status: Status,
    message: String,
    location: Option<Location>,
) -> Case {
    Case {
        name,
        kind,
        status,
        points: u64::from(status.passed()),
        max_points: 1,
        message: Some(message),
        schedule: None,
        link: None,
        location,
        history: None,
        exploration: None,
        steps: None,
        seconds: 0.0,
    }
}

fn scenario_case(
    report: &ScenarioReport,
    scenario: &Scenario,
    location: Option<Location>,
    link: Option<(&str, &str, &Edits)>,
    history: History,
) -> Case {
    let status = Status::of(report.verdict());
    let failed = status == Status::Failed;
    let max_points = u64::from(scenario.points);
    let with_history = match history {
        History::All => true,
        History::Failing => !status.passed(),
        History::None => false,
    };
    Case {
        name: report.name.clone(),
        kind: CaseKind::Scenario,
        status,
        points: if status.passed() { max_points } else { 0 },
        max_points,
        // The terminal's sentence: a limit's names the flag that raises it.
        message: fencelab_cli::render::problem(report),
        // A scenario without a concurrent step has one order only: no
        // schedule to show, rather than an empty one.
        schedule: (failed && !report.schedule.is_empty()).then(|| report.schedule.to_string()),
        link: link
            .filter(|_| failed)
            .map(|(site, exercise, edits)| counterexample_link(site, exercise, edits, report)),
        location,
        history: with_history.then(|| history_lines(report)),
        exploration: None,
        steps: Some(steps_text(scenario)),
        seconds: 0.0,
    }
}

/// `scenario`'s steps in the exercise file's own syntax: `steps = [`, one
/// inline table a line, `]`.
fn steps_text(scenario: &Scenario) -> String {
    let mut out = String::from("steps = [\n");
    for step in &scenario.steps {
        let line = toml::Value::try_from(step).map_or_else(
            |e| format!("# a step TOML cannot write: {e}"),
            |v| v.to_string(),
        );
        out.push_str(&format!("  {line},\n"));
    }
    out.push(']');
    out
}

/// The page's share link to `report`'s counterexample, on `site`.
fn counterexample_link(
    site: &str,
    exercise: &str,
    edits: &Edits,
    report: &ScenarioReport,
) -> String {
    let link = Link {
        format: share::LINK_FORMAT,
        exercise: exercise.to_string(),
        edits: edits.clone(),
        scenario: Some(report.name.clone()),
        schedule: Some(report.schedule.clone()),
        drive: false,
        hunt: None,
        step: None,
        hints: 0,
    };
    let base = site.split('#').next().unwrap_or(site);
    format!("{base}#{}", share::encode(&link))
}

fn history_lines(report: &ScenarioReport) -> Vec<HistoryLine> {
    let flagged = report.failure().and_then(|f| f.event_index);
    report
        .history
        .iter()
        .enumerate()
        .map(|(index, event)| HistoryLine {
            index,
            clock_seconds: event.clock_seconds,
            process: event
                .process
                .as_deref()
                .map(|process| report.lane_name(process).to_string()),
            event: event.to_string(),
            flagged: Some(index) == flagged,
        })
        .collect()
}
