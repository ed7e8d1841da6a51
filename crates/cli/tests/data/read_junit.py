"""Reads a JUnit XML report from stdin as GitLab's unit test report does
(docs.gitlab.com/ci/testing/unit_test_reports/, "JUnit XML format
specification": it parses testsuites/time, testsuite/name and time, and on
each testcase classname, name, file and time, with failure, error, skipped
and system-out as element content) and prints what it read as JSON for
tests/specs.rs."""

import json
import sys
import xml.etree.ElementTree as ET

root = ET.fromstring(sys.stdin.buffer.read())
cases = []
for suite in root.iter("testsuite"):
    for case in suite.iter("testcase"):
        outcome = None
        for kind in ("failure", "error", "skipped"):
            element = case.find(kind)
            if element is not None:
                outcome = {"kind": kind, "text": element.text or ""}
        cases.append(
            {
                "suite": suite.get("name"),
                "suite_time": suite.get("time"),
                "classname": case.get("classname"),
                "name": case.get("name"),
                "file": case.get("file"),
                "time": case.get("time"),
                "outcome": outcome,
            }
        )
print(json.dumps({"time": root.get("time"), "cases": cases}))
