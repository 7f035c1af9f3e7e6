#!/usr/bin/env bash
# report/diff --format html in headless Chromium (tests/render/html_browser.py says what
# it checks and prints its verdicts); the pages and their screenshots stay under
# BUILD/html-pages to look at.
# usage: html_browser.sh BUILD/gpuscope SOURCE_DIR
set -u
. "$(dirname "$0")/../lib.sh"
out=$build/html-pages
rm -rf "$out"
python3 "$src/tests/render/html_browser.py" "$bin" "$src" "$out"
exit $?
