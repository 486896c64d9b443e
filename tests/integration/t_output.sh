#!/usr/bin/env bash
# Output is honest.  Names with ESC sequences, CR, LF, DEL or C1 controls
# reach the text output (messages, -v and dry-run lines, ferry ls)
# escaped, never as raw control bytes that would drive a terminal or
# forge a line; --json carries their exact bytes.  A write to standard
# output or error that fails (a full disk, a closed pipe) ends the run
# non-zero.
. "$(dirname "$0")/lib.sh"

B=out-$$
T=$WORK/tree
mkbucket "$B"
mkdir -p "$T"
names=($'esc\e[31mred\e[0m' $'cr\rfake\nferry: forged line' $'tab\there'
	$'del\x7f-csi\xc2\x9b2J' 'back\slash' $'caf\xc3\xa9')
i=0
for n in "${names[@]}"; do
	i=$((i + 1))
	echo "file $i" >"$T/$n"
done

# raw FILE: how many control bytes FILE holds other than the line feeds
# that end its lines (C0, DEL, and C1 as UTF-8).
raw() {
	LC_ALL=C grep -caP '[\x00-\x09\x0b-\x1f\x7f]|\xc2[\x80-\x9f]' "$1"
}

# json_names FILE TYPE: the keys of FILE's lines of TYPE, hex, sorted.
json_names() {
	python3 - "$1" "$2" <<'EOF'
import json, sys
out = []
for raw in open(sys.argv[1], "rb").read().split(b"\n"):
    if raw:
        o = json.loads(raw.decode("utf-8"))
        if o["type"] == sys.argv[2]:
            out.append(o["key"].encode("utf-8").hex())
print(" ".join(sorted(out)))
EOF
}
want=$(python3 -c 'import sys
print(" ".join(sorted(("o/" + a).encode("utf-8", "surrogateescape").hex()
    for a in sys.argv[1:])))' "${names[@]}")

"$FERRY" sync "$T" "s3://$B/o" -n >"$WORK/n.out" 2>&1
is "$?" 0 "a dry run of hostile names exits 0"
is "$(raw "$WORK/n.out")" 0 "... its output holds no raw control byte"
is "$(grep -c '^(dry run) upload: ' "$WORK/n.out")" 6 \
	"... and one line per name"
"$FERRY" sync "$T" "s3://$B/o" -v >"$WORK/v.out" 2>&1
is "$?" 0 "a push -v of hostile names exits 0"
is "$(s3 lshex "$B" o/)" "$want" "... and the keys are the names' bytes"
is "$(raw "$WORK/v.out")" 0 "... its output holds no raw control byte"
is "$(grep -c '^upload: ' "$WORK/v.out")" 6 "... and one line per name"
is "$(grep -c '^ferry: forged' "$WORK/v.out")" 0 "... forging none"
check "... a name shows escaped: ESC as \\x1b, a backslash doubled" \
	grep -qF -e 'upload: o/esc\x1b[31mred\x1b[0m' -e 'o/back\\slash' \
	"$WORK/v.out"
check "... CR, LF and tab as \\r, \\n and \\t, C1 as its bytes" \
	grep -qF -e 'o/cr\rfake\nferry: forged line' -e 'o/tab\there' \
	-e 'o/del\x7f-csi\xc2\x9b2J' "$WORK/v.out"
check "... printable UTF-8 as it is" grep -qF "o/caf"$'\xc3\xa9' "$WORK/v.out"

"$FERRY" ls "s3://$B/o" >"$WORK/ls.out" 2>&1
is "$?" 0 "ferry ls of hostile keys exits 0"
is "$(raw "$WORK/ls.out")" 0 "... its text holds no raw control byte"
is "$(wc -l <"$WORK/ls.out")" 6 "... one line per key"
"$FERRY" ls "s3://$B/o" --json >"$WORK/ls.json"
is "$(json_names "$WORK/ls.json" object)" "$want" \
	"ferry ls --json gives back the exact bytes of every key"
check "... escaped as JSON" grep -qF '"key":"o/esc\u001b[31mred' "$WORK/ls.json"

"$FERRY" sync "s3://$B/o" "$WORK/back" -v >"$WORK/pull.out" 2>&1
is "$?" 0 "a pull -v of hostile keys exits 0"
is "$(raw "$WORK/pull.out")" 0 "... its output holds no raw control byte"
check "... and writes each name back" diff -r "$T" "$WORK/back"
B2=out-copy-$$
mkbucket "$B2"
"$FERRY" sync "s3://$B/o" "s3://$B2/o" -v --json >"$WORK/m.json" \
	2>"$WORK/m.err"
is "$?" 0 "a mirror of hostile keys exits 0"
is "$(json_names "$WORK/m.json" copy)" "$want" \
	"... its --json lines carrying the exact bytes of every key"
is "$(LC_ALL=C grep -caP '[\x00-\x09\x0b-\x1f]' "$WORK/m.json")" 0 \
	"... escaped by JSON's rules (C0 controls as \\u00XX)"

# a message quoting a key the gateway refuses (not UTF-8, and an ESC)
bad=$'bad\xff\e[2J'
echo x >"$T/$bad"
"$FERRY" sync "$T" "s3://$B/o" >"$WORK/bad.out" 2>&1
is "$?" 1 "a push of a name the gateway refuses exits 1"
is "$(raw "$WORK/bad.out")" 0 "... its error line holds no raw control byte"
check "... and names the key escaped" grep -qF 'o/bad\xff\x1b[2J' \
	"$WORK/bad.out"
rm "$T/$bad"

# Writes that fail
"$FERRY" plan "$T" "s3://$B/p" >/dev/full 2>"$WORK/full.err"
is "$?" 1 "ferry plan > /dev/full exits 1"
like "$(cat "$WORK/full.err")" "could not write to standard output" \
	"... saying so"
"$FERRY" ls "s3://$B/o" >/dev/full 2>"$WORK/full.err"
is "$?" 1 "ferry ls > /dev/full exits 1"
like "$(cat "$WORK/full.err")" \
	"could not write to standard output: No space left on device" \
	"... saying why"
"$FERRY" ls "s3://$B/o" --json >/dev/full 2>/dev/null
is "$?" 1 "ferry ls --json > /dev/full exits 1"
"$FERRY" sync "$T" "s3://$B/o" --json >/dev/full 2>/dev/null
is "$?" 1 "a sync --json > /dev/full in step exits 1"
"$FERRY" sync "s3://$B/o" "$WORK/back" --quiet 2>/dev/full
is "$?" 0 "a quiet pull in step, with nothing to write, exits 0"
echo new >"$T/new"
"$FERRY" sync "$T" "s3://$B/o" --progress 2>/dev/full
is "$?" 1 "a push whose progress and summary cannot be written exits 1"
is "$(s3 lshex "$B" o/new)" "$(printf o/new | od -An -tx1 | tr -d ' \n')" \
	"... the upload done all the same"
"$FERRY" --help >/dev/full 2>/dev/null
is "$?" 1 "ferry --help > /dev/full exits 1"

# a reader that went away: quiet, non-zero (ferry ignores SIGPIPE)
closed_pipe() {
	python3 - "$@" <<'EOF'
import os, subprocess, sys
r, w = os.pipe()
os.close(r)
p = subprocess.run(sys.argv[1:], stdout=w, stderr=subprocess.PIPE)
print(p.returncode, len(p.stderr))
EOF
}
is "$(closed_pipe "$FERRY" ls "s3://$B/o")" "1 0" \
	"ferry ls into a closed pipe exits 1, saying nothing"
is "$(closed_pipe "$FERRY" plan "$T" "s3://$B/p")" "1 0" \
	"ferry plan into a closed pipe exits 1, saying nothing"

done_testing
