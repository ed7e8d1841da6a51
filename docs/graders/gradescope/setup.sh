#!/usr/bin/env bash
# Gradescope autograder setup for fencelab: installs the fencelab binary
# from the release archive shipped in the autograder zip. Nothing is
# compiled and nothing is downloaded.
#
# Gradescope's layout ("Autograder Specifications",
# https://gradescope-autograders.readthedocs.io/en/latest/specs/): the zip
# "must contain at least two files in the root of the archive", setup.sh
# and run_autograder; "/autograder/source contains the extracted contents
# of your autograder zip file"; setup.sh runs as root once, when the
# autograder's image is built. So the zip's root holds:
#
#   setup.sh
#   run_autograder
#   fencelab-0.1.0-x86_64-unknown-linux-musl.tar.gz
#   fencelab-0.1.0-x86_64-unknown-linux-musl.tar.gz.sha256
#
# The archive holds one folder, fencelab-0.1.0-x86_64-unknown-linux-musl/,
# with the statically linked `fencelab` in it (no library to install).
set -eu

release=fencelab-0.1.0-x86_64-unknown-linux-musl

# The archive and its sum are beside this script (/autograder/source).
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"

# The sum file names the archive as `sha256sum` wrote it; -c fails (and so
# does the image's build) if the archive is not the one released.
sha256sum -c "$release.tar.gz.sha256"

unpacked=$(mktemp -d)
trap 'rm -rf "$unpacked"' EXIT
tar -xzf "$release.tar.gz" -C "$unpacked"
install -m 755 "$unpacked/$release/fencelab" /usr/local/bin/fencelab

# The version in the build log says what the image grades with.
/usr/local/bin/fencelab version
