#!/usr/bin/env bash
# Plays Gradescope's part for tests/walkthroughs_gradescope.rs, run inside
# a private mount namespace (`unshare --mount --propagation private`), so
# the bind mounts below are seen by nothing else on the machine.
#
# As Gradescope's "Autograder Specifications" describe
# (https://gradescope-autograders.readthedocs.io/en/latest/specs/): the
# zip's contents are in /autograder/source; building the image runs
# setup.sh as root and copies run_autograder to /autograder/run_autograder;
# each submission is put in /autograder/submission and run_autograder runs
# with /autograder as its working folder, its output kept in
# /autograder/results/stdout, leaving /autograder/results/results.json.
#
# Arguments: the scratch folder to mount on /autograder (source/ filled
# in), the scratch folder to mount on /usr/local/bin, a folder with one
# folder per submission, and the folder to copy each result to
# (NAME.status, NAME.json, NAME.stdout; setup.status and setup.log).
set -eu

autograder=$1
bin=$2
submissions=$3
out=$4

mount --bind "$autograder" /autograder
mount --bind "$bin" /usr/local/bin
# The PATH of a plain Ubuntu image: no fencelab but the one setup.sh puts
# in /usr/local/bin.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

setup_status=0
bash /autograder/source/setup.sh > "$out/setup.log" 2>&1 || setup_status=$?
echo "$setup_status" > "$out/setup.status"
cp /autograder/source/run_autograder /autograder/run_autograder

for folder in "$submissions"/*/; do
    name=$(basename "$folder")
    rm -rf /autograder/submission /autograder/results
    mkdir /autograder/submission /autograder/results
    cp -a "$folder". /autograder/submission/
    status=0
    (cd /autograder && /autograder/run_autograder > /autograder/results/stdout 2>&1) || status=$?
    echo "$status" > "$out/$name.status"
    if [ -e /autograder/results/results.json ]; then
        cp /autograder/results/results.json "$out/$name.json"
    fi
    cp /autograder/results/stdout "$out/$name.stdout"
done
