#!/usr/bin/env bash
# --dry-run, --exclude/--include, --checksum, --size-only and --json.
. "$(dirname "$0")/lib.sh"

B=options-$$
T=$WORK/tree
mkbucket "$B"
mkdir -p "$T/keep" "$T/cache" "$T/deep/er"
for f in keep/a.txt keep/b.tmp cache/c.txt deep/er/d.tmp deep/er/e.txt \
	top.txt; do
	echo "content of $f" >"$T/$f"
done

m=$(mark)
"$FERRY" sync "$T" "s3://$B/o" --dry-run --json >"$WORK/dry.json"
is "$?" 0 "a dry run exits 0"
is "$(requests "$m" put)" 0 "a dry run uploads nothing"
is "$(grep -c '"type":"plan"' "$WORK/dry.json")" 6 "... and plans 6 uploads"
check "every JSON line parses" python3 -c '
import json, sys
for line in open(sys.argv[1]):
    json.loads(line)' "$WORK/dry.json"

"$FERRY" sync "$T" "s3://$B/o" --exclude '*.tmp' --exclude 'cache/' \
	--json >"$WORK/ex.json"
is "$?" 0 "a filtered push exits 0"
keys=$("$FERRY" ls "s3://$B/o" | awk '{print $NF}' | sort | tr '\n' ' ')
is "$keys" "o/deep/er/e.txt o/keep/a.txt o/top.txt " \
	"'*.tmp' at any depth and the cache/ folder stay out"

"$FERRY" sync "$T" "s3://$B/o" --include 'deep/**' --exclude '*.tmp' \
	--exclude 'cache/' --delete --json >"$WORK/inc.json"
is "$(summary "$WORK/inc.json" uploaded)" 1 "the first matching rule wins (deep/er/d.tmp goes up)"
is "$(summary "$WORK/inc.json" deleted)" 0 "excluded objects are not deleted"

# --checksum trusts no stat cache: every file is read again
if command -v strace >/dev/null; then
	m=$(mark)
	traced "$WORK/trace" -e trace=openat -- "$FERRY" sync "$T" \
		"s3://$B/o" --exclude '*.tmp' --exclude 'cache/' --checksum \
		--json >"$WORK/ck.json"
	is "$(file_opens "$WORK/trace")" 3 \
		"--checksum reads each of the 3 files"
	is "$(requests "$m" put)" 0 "... and uploads none, for none changed"
else
	not_ok "--checksum reads each of the 3 files (strace is not installed)"
fi

printf 'x' >>"$T/top.txt"
m=$(mark)
"$FERRY" sync "$T" "s3://$B/o" --exclude '*.tmp' --exclude 'cache/' \
	--size-only --json >"$WORK/so.json"
is "$(requests "$m" put)" 1 "--size-only still uploads a file whose size changed"

out=$("$FERRY" manifest info --json "$T" "s3://$B/o")
is "$?" 0 "manifest info finds the pair's manifest"
check "... and reports its records and last run" python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d["type"] == "manifest", d
assert d["local_entries"] == 3 and d["last_status"] == 0, d' "$out"
for f in dry ex inc ck so; do
	check "$f.json: every line is valid against the event schema" \
		json_valid "$WORK/$f.json"
done
"$FERRY" manifest info --manifest "$WORK/none" >/dev/null 2>&1
is "$?" 1 "manifest info on a folder without one exits 1"

# --progress off a terminal: the scan phase is shown, every line is cut
# short of the width ($COLUMNS here), and the last line, with the total
# known, has no "+".  Lines are separated by CR and begin with ESC [K.
P=$WORK/progress
python3 "$TOP/tests/integration/gen_tree.py" "$P" 300 3
COLUMNS=40 "$FERRY" sync "$P" "s3://$B/progress" --progress \
	2>"$WORK/progress.err"
is "$?" 0 "a push with --progress exits 0"
tr '\r' '\n' <"$WORK/progress.err" | sed 's/^\x1b\[K//' | grep . \
	>"$WORK/progress.lines"
like "$(cat "$WORK/progress.lines")" '^scanning: [0-9]+ files' \
	"... showing the scan"
is "$(grep 'objects' "$WORK/progress.lines" | awk 'length > 39' | wc -l)" 0 \
	"... each line cut to the width less one"
like "$(grep 'objects' "$WORK/progress.lines" | tail -n 1)" \
	'^300/300 objects, ' "... the last one with the known total"
is "$(grep -c '+ objects.*ETA [0-9]' "$WORK/progress.lines")" 0 \
	"... and no ETA but an estimate (~) while the total is not known"

done_testing
