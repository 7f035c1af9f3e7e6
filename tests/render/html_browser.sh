#!/usr/bin/env bash
# report/diff --format html in headless Chromium (tests/render/html_browser.py says what
# it checks); the pages and their screenshots stay under BUILD/html-pages to look at.
# usage: html_browser.sh BUILD/gpuscope SOURCE_DIR
set -u
bin=$1
src=$2
out=$(dirname "$bin")/html-pages
rm -rf "$out"
exec python3 "$src/tests/render/html_browser.py" "$bin" "$src" "$out"
