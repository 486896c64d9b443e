#!/usr/bin/env bash
# Files put off to the end of a push: a file found changed since the scan
# gets one more try once nothing is left to plan.  Those put off must not
# hold the planning back: 40 files changed while the push waits for its
# listing (held at the proxy until they are) are more than the transfers
# planned ahead (twice --jobs 16); the run goes on, sends the other files,
# then each changed one as it now is, and ends.  A watcher on a busy tree
# met this: it spun, sending nothing, until it was killed.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

B=putoff-$$
T=$WORK/tree
mkbucket "$B"
mkdir -p "$T/a" "$T/b"
for i in $(seq -w 1 40); do
	head -c 1000 /dev/urandom >"$T/a/f$i"
done
for i in $(seq -w 1 20); do
	head -c 1000 /dev/urandom >"$T/b/g$i"
done

GO=$WORK/changed
start_proxy hold --always --kinds delay --only-methods GET --hold "$GO" \
	--max-faults 1
timeout 120 "$FERRY" sync "$T" "s3://$B/p" --endpoint-url "$PROXY" -j 16 \
	--json -v >"$WORK/p.json" 2>"$WORK/p.err" &
pid=$!
for _ in $(seq 300); do
	grep -q '^fault delay GET' "$WORK/hold.log" 2>/dev/null && break
	sleep 0.1
done
check "the listing is held at the proxy" grep -q '^fault delay GET' \
	"$WORK/hold.log"
# the scan has read the tree by now (it goes on while the listing waits);
# each of the 40 gets 24 bytes more
sleep 1
for f in "$T"/a/f*; do
	echo "changed after the scan" >>"$f"
done
touch "$GO"
wait "$pid"
rc=$?
is "$rc" 0 "40 files changed after the scan: the push ends, exit 0"
n=$(grep -c 'changed since it was scanned.*trying again at the end' \
	"$WORK/p.err")
check "... more than 32 of them put off to the end (saw $n)" \
	test "$n" -gt 32
is "$(summary "$WORK/p.json" uploaded)" 60 "... and all 60 files uploaded"
check "... each as it now is" python3 \
	"$TOP/tests/integration/bucket_equals_tree.py" "$T" "$B" p/
stop_proxy

# Files gone after the scan fail once each: a transfer that ended is not
# started again before the engine sweeps it (each start read the file
# again and, for a single PUT, held a new buffer, the old one leaked).
# strace counts the opens of the gone files.
T2=$WORK/tree2
mkdir -p "$T2"
for i in $(seq -w 1 30); do
	head -c 3000 /dev/urandom >"$T2/h$i"
done
GO2=$WORK/gone
start_proxy hold2 --always --kinds delay --only-methods GET --hold "$GO2" \
	--max-faults 1
traced "$WORK/gone.trace" -e trace=openat -- timeout 120 \
	"$FERRY" sync "$T2" "s3://$B/g" --endpoint-url "$PROXY" -j 16 \
	>"$WORK/g.out" 2>"$WORK/g.err" &
pid=$!
for _ in $(seq 300); do
	grep -q '^fault delay GET' "$WORK/hold2.log" 2>/dev/null && break
	sleep 0.1
done
sleep 1
rm "$T2"/h1*
touch "$GO2"
wait "$pid"
is "$?" 1 "10 files gone after the scan: the push exits 1"
is "$(grep -c 'cannot open: No such file' "$WORK/g.err")" 10 \
	"... each said once"
n=$(grep -c 'h1[0-9]*", O_RDONLY.*ENOENT' "$WORK/gone.trace")
check "... and each looked for once, not again and again (saw $n)" \
	test "$n" -le 10
stop_proxy
