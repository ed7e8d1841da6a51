//! JUnit XML, as GitLab, Jenkins and CodeGrade read it, valid against the
//! Jenkins/Surefire schema junit-10.xsd (which `cargo xtask test` checks
//! with xmllint): `<testsuites>` of one `<testsuite>` per exercise file,
//! one `<testcase>` per case, `<failure>` for a failed case and `<error>`
//! for an errored one or a file that did not load. Each of the three
//! carries its `time` in seconds, where GitLab reads it
//! (https://docs.gitlab.com/ci/testing/unit_test_reports/: "testcase |
//! time | Test execution time in seconds").
//!
//! GitLab also reads `file` on a testcase, but junit-10.xsd gives a
//! testcase only `name`, `time`, `classname` and `group`: a `file` or
//! `line` there would make the report invalid for Jenkins and the schema's
//! other readers. So the testsuite carries the file (valid, though GitLab
//! does not show it), and a case's place, `at FILE:LINE`, is in the content
//! of its `<failure>`, `<error>` or `<system-out>`, which every reader shows.

use super::{Case, CaseKind, Document, Entry, Status, case_details};
use std::fmt::Write;

pub fn render(document: &Document) -> String {
    let counts = document.counts;
    let unloadable = document
        .entries
        .iter()
        .filter(|e| e.error.is_some())
        .count();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"fencelab {}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" time=\"{}\">",
        document.command,
        counts.total + unloadable,
        counts.failed,
        counts.errored + unloadable,
        time(document.seconds),
    );
    for entry in &document.entries {
        suite(&mut out, entry);
    }
    out.push_str("</testsuites>\n");
    out
}

fn suite(out: &mut String, entry: &Entry) {
    let name = entry.exercise.as_deref().unwrap_or(&entry.file);
    let classname = attribute(name);
    if let Some(problem) = &entry.error {
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\" time=\"{}\" file=\"{}\">",
            attribute(name),
            time(entry.seconds),
            attribute(&entry.file)
        );
        let sentence = problem.sentence();
        let _ = writeln!(
            out,
            "    <testcase name=\"load\" classname=\"{classname}\" time=\"0.000\">\n      \
             <error type=\"unloadable\" message=\"{}\">{}</error>\n    </testcase>",
            attribute(&sentence),
            text(&sentence)
        );
        out.push_str("  </testsuite>\n");
        return;
    }
    let c = entry.counts;
    let _ = writeln!(
        out,
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"0\" time=\"{}\" file=\"{}\">",
        attribute(name),
        c.total,
        c.failed,
        c.errored,
        time(entry.seconds),
        attribute(&entry.file)
    );
    let _ = writeln!(
        out,
        "    <properties>\n      <property name=\"points\" value=\"{}\"/>\n      \
         <property name=\"max_points\" value=\"{}\"/>\n    </properties>",
        entry.score.points, entry.score.max
    );
    for case in &entry.cases {
        testcase(out, &classname, case);
    }
    out.push_str("  </testsuite>\n");
}

fn testcase(out: &mut String, classname: &str, case: &Case) {
    let _ = write!(
        out,
        "    <testcase name=\"{}\" classname=\"{classname}\" time=\"{}\"",
        attribute(&case.name),
        time(case.seconds)
    );
    let mut details = case_details(case);
    if let Some(location) = &case.location {
        let _ = write!(details, "\nat {}:{}", location.file, location.line);
    }
    let element = match case.status {
        Status::Passed | Status::LimitShown => {
            let _ = writeln!(
                out,
                ">\n      <system-out>{}</system-out>\n    </testcase>",
                text(&details)
            );
            return;
        }
        Status::Failed => (
            "failure",
            match case.kind {
                CaseKind::Scenario => "counterexample",
                CaseKind::BrokenVariant => "survived",
                CaseKind::Equivalent => "stale",
            },
        ),
        Status::Errored => ("error", "not judged"),
    };
    let message = case.message.as_deref().unwrap_or("");
    let _ = writeln!(
        out,
        ">\n      <{0} type=\"{1}\" message=\"{2}\">{3}</{0}>\n    </testcase>",
        element.0,
        element.1,
        attribute(message),
        text(&details)
    );
}

/// Seconds as junit-10.xsd's SUREFIRE_TIME reads them: digits, a point and
/// at most three decimals (milliseconds).
fn time(seconds: f64) -> String {
    format!("{:.3}", seconds.max(0.0))
}

/// XML 1.0 cannot carry most control characters at all, not even escaped:
/// a learner's text that holds one gets U+FFFD in its place.
fn allowed(c: char) -> char {
    match c {
        '\t' | '\n' | '\r' => c,
        c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => '\u{FFFD}',
        c => c,
    }
}

/// Character data.
fn text(raw: &str) -> String {
    escaped(raw, false)
}

/// An attribute value in double quotes; line breaks kept as references, or
/// the parser would fold them into spaces.
fn attribute(raw: &str) -> String {
    escaped(raw, true)
}

fn escaped(raw: &str, in_attribute: bool) -> String {
    let mut out = String::with_capacity(raw.len());
    for c in raw.chars().map(allowed) {
        match (c, in_attribute) {
            ('&', _) => out.push_str("&amp;"),
            ('<', _) => out.push_str("&lt;"),
            ('>', _) => out.push_str("&gt;"),
            ('"', true) => out.push_str("&quot;"),
            ('\n', true) => out.push_str("&#10;"),
            ('\r', true) => out.push_str("&#13;"),
            ('\t', true) => out.push_str("&#9;"),
            (c, _) => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn untrusted_text_is_escaped_and_forbidden_characters_replaced() {
        assert_eq!(text("a<b & c>d"), "a&lt;b &amp; c&gt;d");
        assert_eq!(attribute("say \"hi\"\nthen"), "say &quot;hi&quot;&#10;then");
        assert_eq!(text("bell\u{7}nul\u{0}"), "bell\u{FFFD}nul\u{FFFD}");
    }
}
