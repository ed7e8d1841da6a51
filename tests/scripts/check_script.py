"""Checks take-home scripts as Python itself reads them.

fencelab writes Python scripts that learners and graders run on their own
machines (`fencelab export --python`, `fencelab replay --python`, the page's
"Take this counterexample home"). Their text comes from exercises, share
links and learners' edits, so a script is a security boundary: untrusted
text may reach it only as string literals written by the one escaping
function (crates/model/src/export.rs, `py_str`).

This checker reads each script's bytes the way python3 does (its encoding
declaration honoured, by `compile` and `tokenize`), and fails unless:

- lines 1 and 2 are exactly the template's, and the file is ASCII;
- the module's top level is the template's: the same imports, the same
  constants each assigned one literal, the same functions with bodies equal
  to the template's node for node, the same `__main__` block;
- `schedule()` holds only calls of the runtime's step functions, each with
  literal arguments (no name, no attribute, no operator but a sign);
- every comment is one of the template's own comments;
- with a plan (the `Plan` fencelab built, as JSON, in NAME.plan.json beside
  NAME.py): every literal reads back as the plan's text, value for value;
  with NAME.expect.json instead (`{"SCENARIO": "..."}`, as a test that only
  knows some texts writes it): those constants read back as given.

Usage: python3 check_script.py TEMPLATE.py SCRIPT.py...
The template is the script of an empty plan, which holds no exercise text;
a PostgreSQL template (one that assigns ISOLATION) checks PostgreSQL scripts.
Prints one line per script that fails, then a summary; exits 1 on any failure.
"""

import ast
import io
import json
import math
import os
import sys
import tokenize

FIRST_LINES = b"#!/usr/bin/env python3\n# -*- coding: utf-8 -*-\n"
CONSTANTS = ["MADE_BY", "EXERCISE", "SCENARIO", "SCHEDULE", "JOURNAL", "JOURNAL_NAME",
             "SCHEMA", "PROBLEM", "VERDICT", "REPRODUCED"]
# The PostgreSQL script's (`export --python --postgres`): its run() steps take
# the statement numbered for the driver and its parameters' names after the
# text, which the plan does not hold; they are read as literals and set aside.
POSTGRES_CONSTANTS = ["MADE_BY", "EXERCISE", "SCENARIO", "SCHEDULE", "ISOLATION",
                      "SCHEMA", "PROBLEM", "VERDICT", "REPRODUCED"]
STEP_FUNCTIONS = {"start", "crash", "rollback", "note", "direct", "run"}
STEP_KEYWORDS = {"changed", "expect"}


class Refused(Exception):
    pass


def read(path):
    with open(path, "rb") as file:
        data = file.read()
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    tree = compile(data, path, "exec", ast.PyCF_ONLY_AST)
    comments = {token.string for token in tokenize.tokenize(io.BytesIO(data).readline)
                if token.type == tokenize.COMMENT}
    return data, encoding, tree, comments


def shape(node):
    """A top-level statement as the template fixes it: literals left out."""
    if isinstance(node, ast.Assign) and len(node.targets) == 1 \
            and isinstance(node.targets[0], ast.Name):
        return ("assign", node.targets[0].id)
    if isinstance(node, ast.FunctionDef):
        return ("def", node.name)
    return ("node", ast.dump(node))


def literal(node):
    """The value of a literal the script may hold, or Refused."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (str, int, float, bool, type(None))):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) \
            and isinstance(node.operand, ast.Constant) \
            and type(node.operand.value) in (int, float):
        return -node.operand.value
    if isinstance(node, (ast.List, ast.Tuple)):
        values = [literal(element) for element in node.elts]
        return values if isinstance(node, ast.List) else tuple(values)
    if isinstance(node, ast.Dict):
        if any(key is None for key in node.keys):
            raise Refused("a dict unpacks another")
        return {literal(key): literal(value) for key, value in zip(node.keys, node.values)}
    if isinstance(node, ast.Call) and not node.keywords and len(node.args) == 1 \
            and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
        function, argument = node.func, node.args[0].value
        if isinstance(function, ast.Attribute) and function.attr == "fromhex" \
                and isinstance(function.value, ast.Name) and function.value.id == "bytes":
            return bytes.fromhex(argument)
        if isinstance(function, ast.Name) and function.id == "float" \
                and argument in ("nan", "inf", "-inf"):
            return float(argument)
    raise Refused(f"not a literal: {ast.dump(node)[:120]}")


def steps_of(function):
    steps = []
    for statement in function.body:
        if isinstance(statement, ast.Pass) and len(function.body) == 1:
            break
        if not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)
                and isinstance(statement.value.func, ast.Name)
                and statement.value.func.id in STEP_FUNCTIONS):
            raise Refused(f"schedule() line {statement.lineno} is not a step: "
                          f"{ast.dump(statement)[:120]}")
        call = statement.value
        keywords = {}
        for keyword in call.keywords:
            if keyword.arg not in STEP_KEYWORDS:
                raise Refused(f"schedule() line {statement.lineno} passes `{keyword.arg}`")
            keywords[keyword.arg] = literal(keyword.value)
        arguments = [literal(arg) for arg in call.args]
        if CONSTANTS is POSTGRES_CONSTANTS and call.func.id == "run":
            if len(arguments) != 7 or not isinstance(arguments[4], str) \
                    or not all(isinstance(name, str) for name in arguments[5]):
                raise Refused(f"schedule() line {statement.lineno} is not a PostgreSQL run step")
            del arguments[4:6]
        steps.append((call.func.id, arguments, keywords))
    return steps


def value(json_value):
    """A plan's value (serde's JSON of fencelab's `Value`) as Python reads it back."""
    if isinstance(json_value, dict):
        return bytes.fromhex(json_value["blob"])
    return json_value


def same(a, b):
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if (a is None and isinstance(b, float) and not math.isfinite(b)) or \
            (b is None and isinstance(a, float) and not math.isfinite(a)):
        return True  # JSON has no NaN or infinity: serde writes null for them
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def expected_steps(plan):
    for step in plan["steps"]:
        action, who, line = step["action"], step["who"], step["line"]
        kind = action["kind"]
        if kind == "open":
            yield "start", [who, action["process"], line], {}
        elif kind == "close":
            yield "crash", [who, action["process"], line], {}
        elif kind == "rollback":
            yield "rollback", [who, action["process"], line], {}
        elif kind == "note":
            yield "note", [who, line], {}
        elif kind == "direct":
            yield "direct", [action["sql"]], {"changed": action["changed"]}
        elif kind == "run":
            expected = action["expected"]
            if expected["kind"] == "ran":
                returned = expected["returned"]
                expect = ("ran", expected["changed"], returned["columns"],
                          [[value(v) for v in row] for row in returned["rows"]])
            elif expected["kind"] == "waits":
                expect = ("waits",)
            else:
                expect = ("fails", expected["stale_snapshot"])
            parameters = {name: value(v) for name, v in action["parameters"].items()}
            yield "run", [who, action["process"], line.split(":")[0], action["sql"], parameters], \
                {"expect": expect}
        else:
            raise Refused(f"the plan has a step of unknown kind {kind}")


def check_against_plan(constants, steps, plan):
    wanted = {"EXERCISE": plan["exercise"], "SCENARIO": plan["scenario"],
              "SCHEMA": plan["schema"]}
    if plan["verdict"] in ("failed", "error") and plan.get("problem") is not None:
        wanted["PROBLEM"] = plan["problem"]
    for name, text in wanted.items():
        if not same(constants[name], text):
            raise Refused(f"{name} reads back as {constants[name]!r}, not {text!r}")
    expected = list(expected_steps(plan))
    if len(expected) != len(steps):
        raise Refused(f"schedule() has {len(steps)} steps, the plan {len(expected)}")
    for index, (seen, wanted_step) in enumerate(zip(steps, expected)):
        if seen[0] != wanted_step[0] or not same(seen[1], wanted_step[1]) \
                or not same(seen[2], wanted_step[2]):
            raise Refused(f"step {index + 1} reads back as {seen!r}, not {wanted_step!r}")


def check(path, template):
    data, encoding, tree, comments = read(path)
    if not data.startswith(FIRST_LINES):
        raise Refused(f"lines 1-2 are {data.splitlines()[:2]!r}")
    if encoding != "utf-8":
        raise Refused(f"python3 reads it as {encoding}")
    if not data.isascii():
        raise Refused("it holds a byte outside ASCII")
    extra = comments - template["comments"]
    if extra:
        raise Refused(f"comments not the template's: {sorted(extra)[:3]!r}")
    shapes = [shape(node) for node in tree.body]
    if shapes != template["shapes"]:
        raise Refused("its top level is not the template's")
    constants = {}
    for index, node in enumerate(tree.body):
        if isinstance(node, ast.Assign) and node.targets[0].id in CONSTANTS:
            name = node.targets[0].id
            constants[name] = literal(node.value)
            if not isinstance(constants[name], str) and not (name == "PROBLEM"
                                                             and constants[name] is None):
                raise Refused(f"{name} is not a string")
        elif isinstance(node, (ast.Assign, ast.FunctionDef)):
            if getattr(node, "name", None) != "schedule" and ast.dump(node) != template["dumps"][index]:
                raise Refused(f"{shape(node)[1]} is not the template's")
    schedule = next(node for node in tree.body
                    if isinstance(node, ast.FunctionDef) and node.name == "schedule")
    if schedule.args.args or schedule.decorator_list:
        raise Refused("schedule() is not the template's")
    steps = steps_of(schedule)
    plan_path = path[:-3] + ".plan.json"
    if os.path.exists(plan_path):
        with open(plan_path, encoding="utf-8") as file:
            check_against_plan(constants, steps, json.load(file))
        return True
    expect_path = path[:-3] + ".expect.json"
    if os.path.exists(expect_path):
        with open(expect_path, encoding="utf-8") as file:
            for name, text in json.load(file).items():
                if not same(constants[name], text):
                    raise Refused(f"{name} reads back as {constants[name]!r}, not {text!r}")
    return False


def main(arguments):
    if len(arguments) < 2:
        print(__doc__)
        return 2
    global CONSTANTS
    data, _, tree, comments = read(arguments[0])
    names = [shape(node) for node in tree.body]
    if ("assign", "ISOLATION") in names:
        CONSTANTS = POSTGRES_CONSTANTS
    if [name for kind, name in names if kind == "assign" and name in CONSTANTS] != CONSTANTS:
        print(f"{arguments[0]}: the template's constants are not {CONSTANTS}")
        return 1
    # Each top-level node of the template dumped once, not once per script.
    template = {"shapes": names, "comments": comments,
                "dumps": [ast.dump(node) for node in tree.body]}
    failed, against_plan = 0, 0
    for path in arguments[1:]:
        try:
            against_plan += check(path, template)
        except (Refused, SyntaxError, ValueError, UnicodeDecodeError) as error:
            failed += 1
            print(f"{path}: {type(error).__name__}: {error}")
    total = len(arguments) - 1
    print(f"check_script: {total - failed} of {total} scripts keep the template's structure "
          f"({against_plan} read back against their plans), {failed} do not")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
