#!/usr/bin/env bash
# Installs the Debian packages gpuscope builds and tests with, when missing.
# Run as root on Debian/Ubuntu; does nothing when everything is there.
set -eu
pkgs="cmake make gcc pkg-config libsqlite3-dev zlib1g-dev libyajl-dev libcmocka-dev libdw-dev libelf-dev libzstd-dev liblzma-dev libbz2-dev libisal-dev xz-utils clang-format sqlite3 python3 gettext libncurses-dev libmicrohttpd-dev curl tmux prometheus yamllint python3-venv"
# the HTML report's test renders pages in a real browser (tests/render/html_browser.py)
pkgs="$pkgs chromium fonts-dejavu-core"
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "gpuscope: missing Debian packages:$missing (run as root or install them)" >&2
	exit 1
fi
echo "installing:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq $missing >/dev/null
