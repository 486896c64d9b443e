#!/usr/bin/env bash
# A far-away server: the fault proxy adds latency each way (--latency) in
# front of the gateway.  Without --jobs the requests in flight start at
# 128 (REMOTE_JOBS_START) and, on a path of 3 s round trips that 128 in
# flight cannot fill (the proxy and the server answer more than 43 a
# second, even on a loaded machine), grow past it, as ferry's
# concurrency events say, the proxy counting more than 16 at once; with
# --jobs 16 they stay at 16 and nothing is told.  A server that answers 503 SlowDown to some requests
# makes the controller halve (its events say slowdown, each half the
# number before it), climbs back, and the run completes with every
# object there; one that refuses a steady share does not drive it to one
# or two.  Deletes sent one by one grow as transfers do.  Requests are
# counted, never timed.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

B=far-$$
T=$WORK/tree
mkbucket "$B"
python3 "$TOP/tests/integration/gen_tree.py" "$T" 400 37 8192

# peak NAME: the most requests the proxy NAME held at once
peak() {
	grep -o 'inflight=[0-9]*' "$WORK/$1.log" | cut -d= -f2 | sort -n |
		tail -n 1
}

# decisions FILE: FILE's concurrency events as reason:in_flight, in order
decisions() {
	python3 -c '
import json, sys
print(" ".join("%s:%d" % (e["reason"], e["in_flight"])
               for e in map(json.loads, open(sys.argv[1]))
               if e["type"] == "concurrency"))' "$1"
}

# told FILE REASON: the in_flight of FILE's concurrency events for
# REASON, in order, one a line
told() {
	decisions "$1" | tr ' ' '\n' | sed -n "s/^$2://p"
}

# (a) 3 s round trips, no --jobs: more than 16 in flight, and growing
# (at 80 ms, 128 in flight already ask more than the Python proxy in
# front of the gateway answers, and the controller rightly holds them:
# its requests wait in the proxy's queue; at 1 s, Swift on a machine
# busy with other suites answered fewer than 128 PUTs a second, and the
# controller held there too, "queueing")
start_proxy far --rate 0 --latency 1500
"$FERRY" sync --json "$T" "s3://$B/a" --endpoint-url "$PROXY" \
	>"$WORK/a.json" 2>"$WORK/a.err"
is "$?" 0 "a push of 400 files, 3 s a round trip, without --jobs"
check "its events are valid" json_valid "$WORK/a.json"
is "$(summary "$WORK/a.json" uploaded)" 400 "... each file uploaded"
most=$(told "$WORK/a.json" growing | sort -n | tail -n 1)
[ -n "$most" ] || echo "# its decisions: $(decisions "$WORK/a.json")"
check "the controller grew past its start, 128 (to ${most:-none})" \
	test "${most:-0}" -gt 128
n=$(peak far)
check "the proxy held more than 16 requests at once ($n)" test "${n:-0}" -gt 16
stop_proxy

# (b) the same with --jobs 16: a fixed number, no decision told
start_proxy fixed --rate 0 --latency 40
"$FERRY" sync --json --jobs 16 "$T" "s3://$B/b" --endpoint-url "$PROXY" \
	>"$WORK/b.json" 2>"$WORK/b.err"
is "$?" 0 "the same push with --jobs 16"
n=$(peak fixed)
check "the proxy held 16 requests at once at most ($n)" test "${n:-99}" -le 16
is "$(grep -c '"type":"concurrency"' "$WORK/b.json")" 0 \
	"... and no concurrency event"
stop_proxy

# (c) a server that answers 503 SlowDown to some uploads, twelve at most
start_proxy slow --rate 0.05 --kinds 503 --only-methods PUT --latency 20 \
	--seed 5 --max-faults 12
"$FERRY" sync --json "$T" "s3://$B/c" --endpoint-url "$PROXY" \
	>"$WORK/c.json" 2>"$WORK/c.err"
is "$?" 0 "a push through a server that answers 503 SlowDown"
check "its events are valid" json_valid "$WORK/c.json"
is "$(summary "$WORK/c.json" failed)" 0 "... no object failed"
check "... every object is there" python3 \
	"$TOP/tests/integration/bucket_equals_tree.py" "$T" "$B" c/
check "... SlowDown was answered ($(grep -c 'fault 503' "$WORK/slow.log"))" \
	test "$(grep -c 'fault 503' "$WORK/slow.log")" -gt 0
cuts=$(told "$WORK/c.json" slowdown | tr '\n' ' ')
check "the controller halved on SlowDown (to ${cuts:-never})" test -n "$cuts"
# each cut falls below what was allowed before it
fell=$(python3 -c '
import json, sys
prev, ok = 128, 0
for l in open(sys.argv[1]):
    e = json.loads(l)
    if e["type"] != "concurrency":
        continue
    if e["reason"] == "slowdown":
        ok += 1 if e["in_flight"] == max(prev // 2, 1) else -1000
    prev = e["in_flight"]
print(ok)' "$WORK/c.json")
check "... each time to half the number before it ($fell cuts)" \
	test "$fell" -gt 0
up=$(told "$WORK/c.json" recovering | tr '\n' ' ')
check "... and climbed back after (${up:-never})" test -n "$up"
stop_proxy

# (d) a server that refuses a steady 10% of uploads, however many come:
# fewer requests do not help, and the number in flight is not driven down
# to one or two
start_proxy steady --rate 0.1 --kinds 503 --only-methods PUT --latency 20 \
	--seed 7
"$FERRY" sync --json "$T" "s3://$B/d" --endpoint-url "$PROXY" \
	>"$WORK/d.json" 2>"$WORK/d.err"
is "$?" 0 "a push through a server that refuses a steady share"
is "$(summary "$WORK/d.json" failed)" 0 "... no object failed"
check "... every object is there" python3 \
	"$TOP/tests/integration/bucket_equals_tree.py" "$T" "$B" d/
n=$(grep -c 'fault 503' "$WORK/steady.log")
check "... SlowDown was answered ($n times)" test "$n" -gt 20
low=$(python3 -c '
import json, sys
print(min([16] + [json.loads(l)["in_flight"] for l in open(sys.argv[1])
                  if json.loads(l)["type"] == "concurrency"]))' "$WORK/d.json")
check "... the fewest in flight allowed stayed above 4 ($low)" \
	test "$low" -gt 4
stop_proxy

# (e) deletes one by one (a server without DeleteObjects) follow the
# controller too: 150 of a's 400 objects, a HEAD and a DELETE each
mkdir "$WORK/e"
cp -r "$T/." "$WORK/e/"
find "$WORK/e" -type f -print0 | sort -z | head -z -n 150 | xargs -0 rm -f
start_proxy single --always --kinds 501 --only-methods POST --match delete \
	--latency 40
"$FERRY" sync --json --delete "$WORK/e" "s3://$B/a" --endpoint-url "$PROXY" \
	>"$WORK/e.json" 2>"$WORK/e.err"
is "$?" 0 "a push deleting 150 objects one by one, 80 ms a round trip"
is "$(summary "$WORK/e.json" deleted)" 150 "... each deleted"
n=$(peak single)
check "... more than 16 of those requests at once ($n)" test "${n:-0}" -gt 16
stop_proxy

done_testing
