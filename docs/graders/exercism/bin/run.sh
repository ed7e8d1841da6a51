#!/usr/bin/env bash
# An Exercism test runner for fencelab exercises, after "The Test Runner
# Interface" (https://exercism.org/docs/building/tooling/test-runners/interface):
#
#   bin/run.sh SLUG INPUT_DIR OUTPUT_DIR
#
# "The script will receive three parameters": the exercise's slug, the
# folder holding the submitted solution (read only), and a writable output
# folder; "The script must write a results.json file to the output
# directory"; "The runner must exit with an exit code of 0 if it has run
# successfully, regardless of the status of the tests."
#
# ../exercises.txt says which fencelab exercise a slug is and which files
# its solution holds (one PROCEDURE.sql per editable procedure). fencelab
# writes results.json version 3 itself (`--format exercism`), also for a
# solution that cannot be graded (missing, misnamed, empty, not text, too
# large): status `error` and a top-level message naming the file and what
# to do. This script writes results.json on its own only for what fencelab
# cannot say: a slug it does not know, or fencelab not running at all.
#
# fencelab is taken from PATH: the runner's image installs it from the
# release archive, as docs/graders/gradescope/setup.sh does.
set -u

if [ "$#" -ne 3 ]; then
    echo "usage: bin/run.sh SLUG INPUT_DIR OUTPUT_DIR" >&2
    exit 2
fi
slug=$1
input=$2
output=$3

runner=$(cd "$(dirname "$0")/.." && pwd)
results="$output/results.json"
mkdir -p "$output" || exit 1

# Writes a results.json of status `error` with the message $1: text of this
# script's own, with no character JSON would have to escape.
error_results() {
    printf '{\n  "version": 3,\n  "status": "error",\n  "message": "%s",\n  "tests": []\n}\n' \
        "$1" > "$results"
}

# A slug names a file nowhere; only its form is checked before it is
# looked up or written into a message.
case "$slug" in
    '' | *[!a-z0-9-]*)
        error_results "The test runner was given a slug that is not lowercase letters, digits and dashes."
        exit 0
        ;;
esac

exercise=
procedures=()
while read -r line_slug line_exercise line_procedures; do
    case "$line_slug" in
        '' | '#'*) continue ;;
    esac
    if [ "$line_slug" = "$slug" ]; then
        exercise=$line_exercise
        read -r -a procedures <<< "$line_procedures"
        break
    fi
done < "$runner/exercises.txt"

if [ -z "$exercise" ]; then
    error_results "The test runner has no exercise \`$slug\`: add it to exercises.txt."
    exit 0
fi
case "$exercise" in
    *.toml) exercise="$runner/$exercise" ;;
esac

arguments=(run "$exercise" --format exercism)
for procedure in "${procedures[@]}"; do
    arguments+=(--set "$procedure=$procedure.sql")
done

# Run in the solution's folder with names relative to it, so that a
# message names `claim.sql` and not the runner's own paths (the interface
# asks for `<solution-dir>/relative/path` over a full path).
if ! cd "$input"; then
    error_results "The test runner could not open the solution's folder."
    exit 0
fi

written="$results.partial"
status=0
fencelab "${arguments[@]}" > "$written" || status=$?

# 0: every test passed; 1: a test failed; 2: the solution could not be
# graded. Each of these wrote the whole of results.json.
if [ "$status" -le 2 ] && [ -s "$written" ]; then
    mv "$written" "$results"
else
    rm -f "$written"
    error_results "The test runner could not run fencelab (exit status $status). This is not your solution's fault."
fi
exit 0
