//! `cargo xtask bench`: every benchmark of the project in one run, and one
//! table per section at the end (markdown, so docs/PERFORMANCE.md can hold
//! a run verbatim).
//!
//! Each part is its own program and prints its figures as lines
//! `BENCH<TAB>section<TAB>row<TAB>column<TAB>value<TAB>unit`; this module runs
//! them one after another (never in parallel: they would time each other),
//! passes their output through to the terminal, and keeps those lines.
//! criterion's own report (`name time: [low median high]`) is read as well,
//! so a native benchmark needs no printing of its own. A part that fails is
//! reported and the others still run: a table with a hole says more than
//! none. Figures are ratios within one run on one machine, never a pass or
//! a fail.

use crate::cmd;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

/// The sections in the order the tables are printed; a section a part
/// names that is not here comes after them.
const SECTIONS: &[&str] = &[
    "first load",
    "browser",
    "engine",
    "explore",
    "line marks",
    "mutate",
    "postgres",
    "postgres time",
];

/// One figure: a cell of a section's table.
#[derive(Clone, Debug, PartialEq)]
pub struct Figure {
    pub section: String,
    pub row: String,
    pub column: String,
    pub value: String,
    pub unit: String,
}

impl Figure {
    pub fn new(section: &str, row: &str, column: &str, value: String, unit: &str) -> Figure {
        Figure {
            section: section.into(),
            row: row.into(),
            column: column.into(),
            value,
            unit: unit.into(),
        }
    }

    /// A `BENCH<TAB>section<TAB>row<TAB>column<TAB>value<TAB>unit` line.
    fn parse(line: &str) -> Option<Figure> {
        let mut fields = line.trim_end().split('\t');
        if fields.next()? != "BENCH" {
            return None;
        }
        let (section, row, column, value) = (
            fields.next()?,
            fields.next()?,
            fields.next()?,
            fields.next()?,
        );
        Some(Figure::new(
            section,
            row,
            column,
            value.into(),
            fields.next().unwrap_or(""),
        ))
    }
}

/// Reads the figures out of a part's output as it streams past.
#[derive(Default)]
pub struct Collector {
    pub figures: Vec<Figure>,
    /// criterion prints a long benchmark name on a line of its own and the
    /// times on the next.
    last_name: String,
    /// The section criterion's figures go to (the part being run).
    criterion_section: String,
}

impl Collector {
    pub fn line(&mut self, line: &str) {
        if let Some(figure) = Figure::parse(line) {
            self.figures.push(figure);
            return;
        }
        if let Some((name, times)) = line.split_once("time:") {
            let name = if name.trim().is_empty() {
                self.last_name.clone()
            } else {
                name.trim().to_string()
            };
            if let Some((value, unit)) = criterion_median(times) {
                let section = self.criterion_section.clone();
                self.figures.push(Figure::new(
                    &section,
                    &name,
                    "criterion median",
                    value,
                    &unit,
                ));
            }
        } else if !line.trim().is_empty() && !line.starts_with(' ') {
            self.last_name = line.trim().to_string();
        }
    }
}

/// The middle figure of criterion's `[low median high]` and its unit.
fn criterion_median(times: &str) -> Option<(String, String)> {
    let inner = times.trim().strip_prefix('[')?.split(']').next()?;
    let words: Vec<&str> = inner.split_whitespace().collect();
    match words.as_slice() {
        [_, _, value, unit, _, _] => Some((value.to_string(), unit.to_string())),
        _ => None,
    }
}

/// `fencelab mutate`'s per-exercise lines (`ID  mutation score 94.7%: 45
/// generated, 36 killed, ...; dropped 0 unparsable, ... (0.2 s)`) and its
/// closing line (`mutated 13 exercises: ...`) as figures.
pub fn mutate_figures(line: &str) -> Vec<Figure> {
    let (row, rest) = if let Some((id, rest)) = line.split_once("  mutation score ") {
        let (score, rest) = rest.split_once("%:").unwrap_or(("", rest));
        (id.trim().to_string(), Some((score, rest)))
    } else if let Some(rest) = line.strip_prefix("mutated ") {
        let Some((what, rest)) = rest.split_once(':') else {
            return Vec::new();
        };
        (format!("all ({what})"), Some(("", rest)))
    } else {
        return Vec::new();
    };
    let Some((score, rest)) = rest else {
        return Vec::new();
    };
    let mut figures = Vec::new();
    if !score.is_empty() {
        figures.push(Figure::new("mutate", &row, "score", score.into(), "%"));
    }
    let (counts, seconds) = match rest.rsplit_once('(') {
        Some((counts, seconds)) => (counts, seconds.trim_end_matches(')').trim()),
        None => (rest, ""),
    };
    for part in counts.split([',', ';']) {
        let part = part.trim().trim_start_matches("dropped ").trim();
        if let Some((count, what)) = part.split_once(' ')
            && count.parse::<u64>().is_ok()
        {
            figures.push(Figure::new("mutate", &row, what, count.into(), ""));
        }
    }
    if let Some(value) = seconds.strip_suffix(" s") {
        figures.push(Figure::new("mutate", &row, "time", value.into(), "s"));
    }
    figures
}

/// Runs `command`, passing its output through to the terminal line by
/// line, and hands each stdout line to `on_line`.
pub fn stream(command: &mut Command, mut on_line: impl FnMut(&str)) -> Result<(), String> {
    let shown = cmd::describe(command);
    println!("xtask: bench: {shown}");
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run `{shown}`: {e}"))?;
    if let Some(stdout) = child.stdout.take() {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            println!("{line}");
            on_line(&line);
        }
    }
    let status = child
        .wait()
        .map_err(|e| format!("`{shown}` did not finish: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`{shown}` failed ({status})"))
    }
}

/// A part of the run: the section criterion's figures belong to, and the
/// command.
pub struct Part {
    pub section: &'static str,
    pub command: Command,
    /// Reads figures that the part prints in its own words.
    pub read: fn(&str) -> Vec<Figure>,
}

pub fn no_own_words(_line: &str) -> Vec<Figure> {
    Vec::new()
}

/// Runs every part in order and returns the figures and the parts that
/// failed (with why).
pub fn run(parts: Vec<Part>) -> (Vec<Figure>, Vec<String>) {
    let mut collector = Collector::default();
    let mut failures = Vec::new();
    for mut part in parts {
        collector.criterion_section = part.section.to_string();
        let read = part.read;
        let result = stream(&mut part.command, |line| {
            collector.line(line);
            collector.figures.extend(read(line));
        });
        if let Err(message) = result {
            eprintln!("xtask: bench: {message}");
            failures.push(message);
        }
    }
    (collector.figures, failures)
}

/// The figures as one markdown table per section: rows and columns in the
/// order they first appeared, each cell its value and unit.
pub fn tables(figures: &[Figure]) -> String {
    let mut sections: Vec<&str> = SECTIONS
        .iter()
        .copied()
        .filter(|s| figures.iter().any(|f| f.section == *s))
        .collect();
    for figure in figures {
        if !sections.contains(&figure.section.as_str()) {
            sections.push(&figure.section);
        }
    }
    let mut out = String::new();
    for section in sections {
        let mine: Vec<&Figure> = figures.iter().filter(|f| f.section == section).collect();
        let mut rows: Vec<&str> = Vec::new();
        let mut columns: Vec<&str> = Vec::new();
        for figure in &mine {
            if !rows.contains(&figure.row.as_str()) {
                rows.push(&figure.row);
            }
            if !columns.contains(&figure.column.as_str()) {
                columns.push(&figure.column);
            }
        }
        out.push_str(&format!("### {section}\n\n| |"));
        for column in &columns {
            out.push_str(&format!(" {column} |"));
        }
        out.push_str("\n|---|");
        out.push_str(&"---:|".repeat(columns.len()));
        out.push('\n');
        for row in rows {
            out.push_str(&format!("| {} |", row.replace('|', "\\|")));
            for column in &columns {
                // The last figure wins if a part printed one twice.
                let cell = mine
                    .iter()
                    .rev()
                    .find(|f| f.row == row && f.column == *column)
                    .map(|f| {
                        if f.unit.is_empty() {
                            f.value.clone()
                        } else {
                            format!("{} {}", f.value, f.unit)
                        }
                    })
                    .unwrap_or_default();
                out.push_str(&format!(" {cell} |"));
            }
            out.push('\n');
        }
        out.push('\n');
    }
    out
}

/// The machine the run was on: cores, CPU model, load average.
pub fn machine() -> String {
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|text| {
            text.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, m)| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let load = std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into());
    format!("{cores} cores ({model}), load average {load} at the end of the run")
}

/// The files under `dir` whose names start with `prefix` and end with
/// `.rs`, as their stems, in name order: the benchmarks present in this
/// checkout.
pub fn stems(dir: &Path, prefix: &str) -> Vec<String> {
    let mut found: Vec<String> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .filter_map(|e| {
                    let name = e.file_name().to_string_lossy().into_owned();
                    let stem = name.strip_suffix(".rs")?;
                    stem.starts_with(prefix).then(|| stem.to_string())
                })
                .collect()
        })
        .unwrap_or_default();
    found.sort();
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bench_lines_and_criterion_reports_become_figures() {
        let mut collector = Collector {
            criterion_section: "engine".into(),
            ..Collector::default()
        };
        collector.line("BENCH\tbrowser\tload\tmedian\t812\tms");
        collector.line("engine/bare rusqlite/small tables");
        collector.line("                        time:   [3.0812 µs 3.1020 µs 3.1290 µs]");
        collector.line("short                   time:   [1.0 ms 2.5 ms 3.0 ms]");
        collector.line("not a figure\tat all");
        assert_eq!(
            collector.figures,
            vec![
                Figure::new("browser", "load", "median", "812".into(), "ms"),
                Figure::new(
                    "engine",
                    "engine/bare rusqlite/small tables",
                    "criterion median",
                    "3.1020".into(),
                    "µs"
                ),
                Figure::new("engine", "short", "criterion median", "2.5".into(), "ms"),
            ]
        );
    }

    #[test]
    fn mutate_lines_become_figures() {
        let figures = mutate_figures(
            "claim-compare-and-set  mutation score 94.7%: 45 generated, 36 killed, 0 survived, \
             2 only error, 7 equivalent; dropped 0 unparsable, 0 duplicate (0.2 s)",
        );
        let cells: Vec<(&str, &str)> = figures
            .iter()
            .map(|f| (f.column.as_str(), f.value.as_str()))
            .collect();
        assert_eq!(
            cells,
            vec![
                ("score", "94.7"),
                ("generated", "45"),
                ("killed", "36"),
                ("survived", "0"),
                ("only error", "2"),
                ("equivalent", "7"),
                ("unparsable", "0"),
                ("duplicate", "0"),
                ("time", "0.2"),
            ]
        );
        assert!(figures.iter().all(|f| f.row == "claim-compare-and-set"));
        let all = mutate_figures(
            "mutated 13 exercises: 2249 generated, 1907 killed, 0 survived, 120 only error, \
             222 equivalent; dropped 2 unparsable, 0 duplicate (128.0 s)",
        );
        assert_eq!(all[0].row, "all (13 exercises)");
        assert_eq!(all.last().map(|f| f.value.as_str()), Some("128.0"));
        assert!(mutate_figures("xtask: something else").is_empty());
    }

    #[test]
    fn tables_keep_first_seen_order_and_units() {
        let figures = vec![
            Figure::new("mutate", "a", "score", "90".into(), "%"),
            Figure::new("browser", "load", "median", "800".into(), "ms"),
            Figure::new("browser", "load", "p95", "900".into(), "ms"),
            Figure::new("browser", "ratio", "median", "2.1".into(), "x"),
        ];
        assert_eq!(
            tables(&figures),
            "### browser\n\n| | median | p95 |\n|---|---:|---:|\n| load | 800 ms | 900 ms |\n\
             | ratio | 2.1 x |  |\n\n### mutate\n\n| | score |\n|---|---:|\n| a | 90 % |\n\n"
        );
    }
}
