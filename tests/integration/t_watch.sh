#!/usr/bin/env bash
# sync --watch: a watcher follows a tree through 10,000 random changes
# (2,000 on Swift and under FERRY_TEST_LIGHT) from a fixed seed (bursts,
# folders renamed and replaced by files, mkdir -p deep), queue overflows
# (simulated: the read of every 3,000th event taken for one, every 500th
# with 2,000 changes: FERRY_WATCH_TEST_OVERFLOW) and a server outage
# in the middle (the fault proxy refusing every request for a while); after
# quiet the bucket equals the tree, verify --full is clean and a one-off
# run finds nothing to do.  A second watcher of the pair is refused;
# SIGTERM during a run lets it end and exits 0; a source folder moved
# away or emptied holds the deletes.
. "$(dirname "$0")/lib.sh"

B=watch-$$
T=$WORK/tree
mkbucket "$B"
python3 "$TOP/tests/integration/gen_tree.py" "$T" 200 3 >/dev/null

# the changes in each part: 10,000 in all against the Ceph gateway, 2,000
# against Swift (whose Python servers take about three times the
# gateway's CPU a request; what the watcher does with them is the same)
# and under the sanitizers
changes() {
	if [ "${FERRY_TEST_SERVER:-ceph}" = swift ]; then
		echo "$2"
	else
		light "$1" "$2"
	fi
}

# a pass-through proxy, so that the outage can be put in its place
start_proxy pass --rate 0
port=${PROXY##*:}

# waits (at most $1 s) until the bucket equals the tree
wait_equal() {
	local i
	for i in $(seq "$1"); do
		python3 "$TOP/tests/integration/bucket_equals_tree.py" \
			"$T" "$B" w/ >/dev/null 2>&1 && return 0
		sleep 1
	done
	python3 "$TOP/tests/integration/bucket_equals_tree.py" "$T" "$B" w/ \
		2>&1 | head -10 | sed 's/^/# /'
	tail -5 "$WORK/w.err" | sed 's/^/# /'
	return 1
}

# the watcher, in place of the (sub)shell that calls it.  The changes
# below rename and delete folders at random, and what a window gathers
# depends on how fast the machine is: on a loaded one, a window after
# the outage held more deletes than half the bucket, which the default
# guard (50%) rightly refused, run after run.  The guard is not what
# this part checks (the per-hour count is, below): --max-delete 100%.
watch() {
	FERRY_WATCH_TEST_OVERFLOW=$(changes 3000 500) \
		exec "$FERRY" sync "$T" "s3://$B/w" --endpoint-url "$PROXY" \
		--watch --watch-settle 1 --delete --max-delete 100% --retries 3 \
		--json "$@"
}

t0=$(date +%s)
watch >"$WORK/w.json" 2>"$WORK/w.err" &
wpid=$!
check "the watcher's first run ends and it watches" \
	wait_line "$WORK/w.json" 20 '"type":"summary"'
check "... its watches set" wait_line "$WORK/w.json" 5 '"event":"watching"'
check "... and the bucket equals the tree" wait_equal 10

# a second watcher of the same pair
(watch >"$WORK/w2.json" 2>"$WORK/w2.err")
is "$?" 4 "a second watcher of the pair is refused (exit 4)"
like "$(cat "$WORK/w2.err")" "another ferry sync --watch" \
	"... and says another watcher holds it"

python3 "$TOP/tests/integration/watch_mutate.py" "$T" "$(changes 4000 800)" 1 >"$WORK/m1"
echo "# first changes ($(($(date +%s) - t0)) s): $(cat "$WORK/m1")"

# the outage: every request refused or cut, while changes go on
stop_proxy
start_proxy down --always --kinds 503,reset --port "$port"
python3 "$TOP/tests/integration/watch_mutate.py" "$T" "$(changes 2000 400)" 2 >"$WORK/m2"
echo "# changes during the outage ($(($(date +%s) - t0)) s): $(cat "$WORK/m2")"
sleep 3
stop_proxy
start_proxy pass2 --rate 0 --port "$port"
check "the outage was met: a run did not end synced and was tried again" \
	grep -q '"event":"held","reason":"the run did not end synced' \
	"$WORK/w.json"
python3 "$TOP/tests/integration/watch_mutate.py" "$T" "$(changes 4000 800)" 3 >"$WORK/m3"
echo "# changes after it ($(($(date +%s) - t0)) s): $(cat "$WORK/m3")"

# on a loaded machine the runs after the outage take a while to catch up
# 10,000 changes, and a run tried again in the outage may wait out its
# backoff (up to 60 s): a bound, not a sleep
check "after quiet, the bucket equals the tree" wait_equal 120
echo "# in step at $(($(date +%s) - t0)) s"
check "a simulated overflow called for a full run, and said so" \
	grep -q '"reason":"the inotify queue overflowed' "$WORK/w.json"
# one every 10 s: a fast machine may be in step sooner
check "heartbeats were written" \
	wait_line "$WORK/w.json" 15 '"event":"heartbeat"'

# SIGTERM while a run is going on: it ends, then the watcher exits 0.
# The run is to send 300 new files: made outside the tree and moved in
# at once, so that no run can begin with a part of them (files written
# one by one into the tree, on a loaded machine, can still be being
# written when a run begins: that run does not send the rest, rightly).
mkdir "$WORK/last"
python3 -c 'import os, sys
for i in range(300):
    open(os.path.join(sys.argv[1], "last-%d" % i), "wb").write(os.urandom(2000))' \
	"$WORK/last"
runs=$(grep -c '"event":"run"' "$WORK/w.json")
mv "$WORK/last" "$T/last"
# the run after the move; a run going on at the move may end first
for i in $(seq 600); do
	[ "$(grep -c '"event":"run"' "$WORK/w.json")" -gt "$runs" ] && break
	sleep 0.1
done
echo "# SIGTERM at $(($(date +%s) - t0)) s"
term "$wpid"
is "$?" 0 "SIGTERM during a run: the watcher exits 0"
grep -o '"type":"watch","event":"[a-z]*"\(,"reason":"[^"]*"\)\?\|"type":"summary".*' \
	"$WORK/w.json" | grep -v heartbeat | cut -c1-150 | tail -40 | sed 's/^/# /' 
check "... having said it stops" grep -q '"event":"stop"' "$WORK/w.json"
check "... and the run it was in ended: the bucket equals the tree" \
	wait_equal 1
check "every line of the watcher is valid against the event schema" \
	json_valid "$WORK/w.json"

echo "# stopped at $(($(date +%s) - t0)) s"
"$FERRY" verify --full "$T" "s3://$B/w" --endpoint-url "$PROXY" \
	>"$WORK/v.out" 2>"$WORK/v.err"
is "$?" 0 "verify --full finds the bucket in step"
"$FERRY" sync "$T" "s3://$B/w" --endpoint-url "$PROXY" --delete --json \
	>"$WORK/once.json" 2>&1
is "$?" 0 "a one-off run afterwards exits 0"
like "$(grep '"type":"summary"' "$WORK/once.json")" \
	'"uploaded":0,.*"deleted":0,' "... and finds nothing to do"
like "$(grep -c '"type":"upload"\|"type":"delete"' "$WORK/once.json")" '^0$' \
	"... no upload, no delete"

# the source folder moved away, then emptied: the deletes are held
nobj=$(s3 ls "$B" w/ | wc -l)
watch >"$WORK/g.json" 2>"$WORK/g.err" &
wpid=$!
wait_line "$WORK/g.json" 20 '"event":"watching"' >/dev/null
wait_line "$WORK/g.json" 20 '"type":"summary"' >/dev/null
mv "$T" "$T.away"
check "a source folder moved away holds every run, and says so" \
	wait_line "$WORK/g.json" 10 'the source folder is gone'
is "$(s3 ls "$B" w/ | wc -l)" "$nobj" "... and no object is deleted"
# its CPU ticks (user and system) while the folder stays gone: a loop
# that waits for the next try, not one that spins until it
ticks() {
	sed 's/^.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'
}
c0=$(ticks "$wpid")
sleep 3
c1=$(ticks "$wpid")
check "... and waits idle meanwhile ($((c1 - c0)) ticks in 3 s)" \
	test $((c1 - c0)) -lt "$(($(getconf CLK_TCK) / 10))"
mkdir "$T"
touch "$T/.x" && rm "$T/.x"
check "an empty source folder in its place holds its deletes, and says so" \
	wait_line "$WORK/g.json" 15 'the source folder is empty'
sleep 2
is "$(s3 ls "$B" w/ | wc -l)" "$nobj" "... and no object is deleted"
term "$wpid"
is "$?" 0 "SIGTERM at rest: exit 0"
# --max-delete 3 counts per hour: 2 deletes go, the next 2 are refused
T2=$WORK/tree2
mkdir -p "$T2"
for i in 1 2 3 4 5 6; do echo "$i" >"$T2/f$i"; done
"$FERRY" sync "$T2" "s3://$B/h" --watch --watch-settle 1 --delete \
	--max-delete 3 --json >"$WORK/h.json" 2>"$WORK/h.err" &
hpid=$!
wait_line "$WORK/h.json" 20 '"event":"watching"' >/dev/null
wait_line "$WORK/h.json" 20 '"type":"summary"' >/dev/null
rm "$T2/f1" "$T2/f2"
check "a window's 2 deletes within --max-delete 3 go" \
	wait_line "$WORK/h.json" 15 '"deleted":2,'
rm "$T2/f3" "$T2/f4"
check "... the next window's 2 are refused: 3 an hour" \
	wait_line "$WORK/h.json" 15 'refusing 2 deletes: more deletes than'
is "$(s3 ls "$B" h/ | wc -l)" 4 "... and the bucket keeps those 2"
term "$hpid"
is "$?" 0 "... SIGTERM: exit 0"
echo "# wall time $(($(date +%s) - t0)) s"
done_testing
