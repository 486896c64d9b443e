#!/usr/bin/env bash
# Cold listings (no manifest) in ranges cost about the pages of one
# stream: a prefix of N keys in numbered folders (the bench's shape) is
# listed by ferry ls in ranges, and by 4 range shards pulling with no
# manifest; each lists exactly what one stream lists, and the requests
# the proxy counts stay within 1.3 times one stream's pages, plus 6.
# Then folders of a page and more whose files are numbered across them:
# a few requests a folder, not a range for every empty stretch of its
# file numbers.
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"
export LC_ALL=C

B=coldlist-$$
N=10000
mkbucket "$B"
mkdir -p "$WORK/deep"
python3 - "$WORK/deep" "$N" <<'PY'
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    d = os.path.join(root, "d%03d" % (i % 100))
    os.makedirs(d, exist_ok=True)
    open(os.path.join(d, "f%06d.bin" % i), "w").close()
PY
"$FERRY" sync -q --jobs 32 "$WORK/deep" "s3://$B/deep"
is "$?" 0 "$N empty keys in 100 folders go up"

start_proxy lists --rate 0 --list-delay 0.05
LOG=$WORK/lists.log
# pages FROM: the listing requests the proxy saw after line FROM
pages() {
	tail -n +"$(($1 + 1))" "$LOG" | grep -c '^list '
}
keys() {
	python3 -c '
import json, sys
for l in sys.stdin:
    d = json.loads(l)
    if "key" in d:
        print(d["key"])' | sort
}
# list_into OUT SERIAL NAME: ferry ls of s3://$B/NAME/ through the proxy
# (one stream when SERIAL is 1), its keys into OUT, its requests in $got
list_into() {
	local from
	from=$(wc -l <"$LOG")
	FERRY_LIST_SERIAL=$2 "$FERRY" ls --json --endpoint-url "$PROXY" \
		"s3://$B/$3/" | keys >"$1"
	got=$(pages "$from")
}

list_into "$WORK/serial" 1 deep
one=$got
is "$(wc -l <"$WORK/serial")" "$N" "one stream lists $N keys in $one pages"
# the budget: 1.3 times one stream's pages, and 6: the first page, read
# before any cut, and the ranges past the last key.  With no manifest the
# end of the listing is not known: the folders' digits are read up to
# d999 where the keys end at d099, and the ranges to the end double in
# width, so about log2(10) + 1 of them lie past the last key, each a
# request that lists nothing
max=$((one * 13 / 10 + 6))

# 1. ferry ls, cold: one listing cut in ranges as its pages come
list_into "$WORK/ranged" 0 deep
check "a listing in ranges lists the same keys as one stream" \
	cmp -s "$WORK/serial" "$WORK/ranged"
check "... and fetched ranges after a key" \
	grep -q 'start-after=' "$LOG"
check "... in $got requests, at most $max (1.3 x $one + 6)" \
	test "$got" -le "$max"

# 2. 4 range shards, each a cold pull (no manifest) of its own range
R=$WORK/ranges.json
"$FERRY" ls --ranges 4 "s3://$B/deep" >"$R"
is "$?" 0 "ferry ls --ranges 4 cuts the prefix"
from=$(wc -l <"$LOG")
: >"$WORK/sharded"
for i in 0 1 2 3; do
	"$FERRY" sync -n --json --shard "$i/4" --shard-ranges "$R" \
		--endpoint-url "$PROXY" "s3://$B/deep" "$WORK/sh$i" |
		python3 -c '
import json, sys
for l in sys.stdin:
    d = json.loads(l)
    if d.get("type") == "plan":
        print(d["key"])' >>"$WORK/sharded"
done
got=$(pages "$from")
sort -o "$WORK/sharded" "$WORK/sharded"
check "4 cold range shards plan every key once ($(wc -l <"$WORK/sharded"))" \
	cmp -s "$WORK/serial" "$WORK/sharded"
check "... in $got requests, at most $max (1.3 x $one + 6)" \
	test "$got" -le "$max"

# 3. folders of a page and more, the files numbered across them
# (d0001/f00001500, ...): the rest of a folder is not cut in its file
# numbers' digits, where it holds nothing, but at the folder's end
mkdir -p "$WORK/across"
python3 - "$WORK/across" <<'PY'
import os, sys
for i in range(6000):
    d = os.path.join(sys.argv[1], "d%04d" % (i // 1500))
    os.makedirs(d, exist_ok=True)
    open(os.path.join(d, "f%08d" % i), "w").close()
PY
"$FERRY" sync -q --jobs 32 "$WORK/across" "s3://$B/across"
is "$?" 0 "6000 empty keys in 4 folders of 1500 go up"
list_into "$WORK/serial2" 1 across
one=$got
list_into "$WORK/ranged2" 0 across
check "folders numbered across: ranges list what one stream lists" \
	cmp -s "$WORK/serial2" "$WORK/ranged2"
# each folder: its pages, a page to find its end and a range two pages
# on that finds nothing; then the ranges past the last folder, the
# folders' digits read up to d9999 where the keys end at d0003
max=$((one + 4 * 3 + 13))
check "... in $got requests, at most $max ($one + 4 x 3 + 13)" \
	test "$got" -le "$max"

# 4. warm: a push whose manifest knows the keys cuts its listing where
# they were, about a page a range; with --jobs 2 only 8 ranges may fetch
# at once, so the 12 ranges of the 10000 keys are made as the reader
# gets near them, not all at first
M=$WORK/warm-manifest
"$FERRY" sync -q --jobs 32 --manifest "$M" --endpoint-url "$PROXY" \
	"$WORK/deep" "s3://$B/deep"
is "$?" 0 "a first push records the keys (the same bytes: nothing sent)"
from=$(wc -l <"$LOG")
"$FERRY" sync --json --jobs 2 --manifest "$M" --endpoint-url "$PROXY" \
	"$WORK/deep" "s3://$B/deep" >"$WORK/warm.json"
is "$?" 0 "an unchanged push with --jobs 2 lists its 12 ranges"
got=$(pages "$from")
is "$(summary "$WORK/warm.json" uploaded) $(summary "$WORK/warm.json" deleted)" \
	"0 0" "... finds every key listed: nothing uploaded, nothing deleted"
check "... in $got requests: one a range (12), a few more for the last" \
	test "$got" -ge 12 -a "$got" -le 15
stop_proxy

done_testing
