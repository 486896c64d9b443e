#!/usr/bin/env bash
# Numbers from a lying server: ferry pulls through tests/faultproxy.py
# --lie-reply, whose GET and HEAD replies lie about their sizes, ranges and
# times.  Each object fails with a message that names the server's fault,
# the run exits 1 without hanging, nothing is written past the listed size
# and no temporary file is left; the next honest pull converges.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

PATH=/usr/bin:$PATH
B=bounds-$$
T=$WORK/tree
mkbucket "$B"
mkdir -p "$T/d"
head -c 70000 /dev/urandom >"$T/small.bin"
head -c 1000 /dev/urandom >"$T/d/tiny.txt"
head -c $(($(mib 12 11) << 20)) /dev/urandom >"$T/big.bin"
"$FERRY" sync "$T" "s3://$B/p" -q
is "$?" 0 "the tree is pushed"

# the files of DIR that are not where they belong or are too large: any
# temporary file, and any file larger than the tree's
strays() {
	find "$1" -name '.ferry-tmp-*' -printf 'temp %P\n'
	(cd "$1" && find . -type f ! -name '.ferry-tmp-*' -printf '%s %P\n') |
		while read -r size name; do
			want=$(stat -c %s "$T/$name" 2>/dev/null || echo 0)
			[ "$size" -le "$want" ] || echo "large $name"
		done
}

# lie KIND WHY: pulls single GETs and ranged GETs through the lie KIND;
# every object must fail with a message matching WHY
lie() {
	local kind=$1 why=$2 d=$WORK/pull-$1 rc
	start_proxy "$kind" --lie-reply "$kind" --rate 0
	mkdir -p "$d"
	timeout 120 "$FERRY" sync "s3://$B/p" "$d" --endpoint-url "$PROXY" \
		--retries 2 --multipart-threshold 8M --part-size 5M \
		--json >"$WORK/$kind.json" 2>"$WORK/$kind.err"
	rc=$?
	stop_proxy
	is "$rc" 1 "$kind: the pull exits 1, without hanging"
	is "$(summary "$WORK/$kind.json" failed)" 3 \
		"$kind: all three objects fail"
	is "$(summary "$WORK/$kind.json" downloaded)" 0 \
		"$kind: none is downloaded"
	like "$(grep '"type":"error"' "$WORK/$kind.json" |
		grep -c "$why")" '^3$' "$kind: each says why ($why)"
	like "$(grep -c '"key":"p/big.bin"' "$WORK/$kind.json")" '^1$' \
		"$kind: the ranged object is one of them"
	is "$(strays "$d")" "" "$kind: no temporary file, none past its size"
	is "$(grep -c Sanitizer "$WORK/$kind.err")" 0 \
		"$kind: no sanitizer report"
	check "$kind: a lie was told" grep -q "^lie $kind" "$WORK/$kind.log"
	"$FERRY" sync "s3://$B/p" "$d" --multipart-threshold 8M \
		--part-size 5M -q
	is "$?" 0 "$kind: the next honest pull exits 0"
	check "$kind: ... and the folder equals the tree" diff -r "$T" "$d"
}

lie longbody 'bytes.*fault of the server'
lie hugelength 'Content-Length.*fault of the server'
lie badrange 'fault of the server'
lie hugemtime 'Last-Modified\|x-amz-meta-ferry-mtime.*fault of the server'

# a HEAD that lies: a pull that must ask the server about a local file (a
# multipart object, same size, no manifest) fails it, and changes nothing
d=$WORK/pull-head
cp -a "$T" "$d"
touch -d '2001-01-01' "$d/big.bin"
start_proxy head --lie-reply hugemtime --rate 0
timeout 120 "$FERRY" sync "s3://$B/p" "$d" --endpoint-url "$PROXY" \
	--retries 2 --multipart-threshold 8M --part-size 5M \
	--json >"$WORK/head.json" 2>"$WORK/head.err"
rc=$?
stop_proxy
is "$rc" 1 "a lying HEAD: the pull exits 1"
like "$(grep '"type":"error"' "$WORK/head.json")" \
	'p/big.bin.*fault of the server' \
	"a lying HEAD: the error names the object and the server's fault"
check "a lying HEAD: the local file is left as it was" cmp "$T/big.bin" \
	"$d/big.bin"

done_testing
