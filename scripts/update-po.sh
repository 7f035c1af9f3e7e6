#!/usr/bin/env bash
# Regenerates po/gpuscope.pot from the sources (every _(), N_(), C_(), NC_(), NG_())
# and merges it into each po/LANG.po: new messages arrive untranslated, removed ones
# become obsolete (#~). Translate the new entries, then `make test` (po_complete
# fails while any message is untranslated). usage: scripts/update-po.sh [POT]
set -eu
cd "$(dirname "$0")/.."
pot=${1:-po/gpuscope.pot}
find src -name '*.[ch]' | LC_ALL=C sort >po/POTFILES
xgettext --from-code=UTF-8 --keyword=_ --keyword=N_ --keyword=C_:1c,2 --keyword=NC_:1c,2 \
	--keyword=NG_:1,2 --keyword=RM_T --keyword=TCOL:1 --keyword=BCOL:2 --add-comments=TRANSLATORS: --package-name=gpuscope \
	--msgid-bugs-address=none --files-from=po/POTFILES -o "$pot"
for po in po/*.po; do
	msgmerge --quiet --update --backup=none --no-fuzzy-matching "$po" "$pot"
done
