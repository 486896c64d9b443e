#!/usr/bin/env bash
# A server that stops answering: each retry is said on stderr (a "retry"
# event with --json), and a run in which no request has succeeded for
# --stall-timeout ends with exit 3 and says why, deleting nothing.  A
# listener on loopback that accepts connections and never answers, a
# closed port, and the fault proxy holding some requests, or every upload,
# without a word.  Short --read-timeout and --stall-timeout keep it quick.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

PATH=/usr/bin:$PATH
SILENT_PID=
trap 'stop_proxy; [ -n "$SILENT_PID" ] && kill "$SILENT_PID" 2>/dev/null;
	rm -rf "$WORK"' EXIT

# elapsed START: seconds since START (from date +%s.%N), to 0.1 s.
elapsed() {
	awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'
}

# below SECS LIMIT DESCRIPTION
below() {
	check "$3 ($1 s)" awk -v s="$1" -v l="$2" 'BEGIN { exit !(s < l) }'
}

# silent_listener: a port on loopback that accepts connections, reads
# what comes, and never answers; sets SILENT_PORT and SILENT_PID.
silent_listener() {
	python3 -c '
import socket, sys, threading
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 0))
s.listen(128)
open(sys.argv[1], "w").write("%d\n" % s.getsockname()[1])
def drop(c):
    while c.recv(65536):
        pass
log = open(sys.argv[2], "a", buffering=1)
while True:
    c, _ = s.accept()
    log.write("accepted\n")
    threading.Thread(target=drop, args=(c,), daemon=True).start()
' "$WORK/silent.port" "$WORK/silent.log" &
	SILENT_PID=$!
	SILENT_PORT=$(port_file "$WORK/silent.port")
}

B=stall-$$
T=$WORK/tree
mkbucket "$B"
python3 "$TOP/tests/integration/gen_tree.py" "$T" 40 21

# (a) a server that accepts and never answers
silent_listener
URL=http://127.0.0.1:$SILENT_PORT
t0=$(date +%s.%N)
timeout 60 "$FERRY" sync "$T" "s3://$B/a" --endpoint-url "$URL" \
	--read-timeout 2 --stall-timeout 6 >"$WORK/a.out" 2>"$WORK/a.err"
is "$?" 3 "a server that never answers: exit 3"
secs=$(elapsed "$t0")
below "$secs" 15 "... within the stall timeout and a few seconds"
err=$(cat "$WORK/a.err")
like "$err" \
	"^ferry: retrying GET s3://$B/a/ \(attempt 2/10\): the server did not answer within 2 s" \
	"... the first retry is said"
like "$err" \
	"no request has succeeded for 6 s: the server at $URL is not answering" \
	"... and why the run ended"
n=$(grep -c '^ferry: .*retr' "$WORK/a.err")
check "... at most a line every few seconds ($n lines)" [ "$n" -ge 1 -a "$n" -le 4 ]

timeout 60 "$FERRY" sync "$T" "s3://$B/a" --endpoint-url "$URL" \
	--read-timeout 2 --stall-timeout 5 --json >"$WORK/a.json" \
	2>"$WORK/a.jerr"
is "$?" 3 "... with --json: exit 3"
ev=$(grep '"type":"retry"' "$WORK/a.json" | head -n 1)
like "$ev" "\"method\":\"GET\",\"bucket\":\"$B\",\"key\":\"\",\"attempt\":2,\"of\":10,\"reason\":\"the server did not answer within 2 s\"" \
	"... a retry event"
like "$(grep '"type":"error"' "$WORK/a.json")" "no request has succeeded" \
	"... and the error event says why"
check "... every line valid against the event schema" json_valid "$WORK/a.json"

timeout 60 "$FERRY" sync "$T" "s3://$B/a" --endpoint-url "$URL" -q \
	--read-timeout 2 --stall-timeout 5 >/dev/null 2>"$WORK/a.qerr"
is "$?" 3 "... with -q: exit 3"
is "$(grep -c retr "$WORK/a.qerr")" 0 "... and no retry line"
like "$(cat "$WORK/a.qerr")" "no request has succeeded" "... but the reason"
# ... and SIGTERM while the listing waits ends the run at once
: >"$WORK/silent.log"
"$FERRY" sync "$T" "s3://$B/a" --endpoint-url "$URL" \
	>/dev/null 2>"$WORK/a.terr" &
pid=$!
for _ in $(seq 100); do
	[ -s "$WORK/silent.log" ] && break
	sleep 0.1
done
t0=$(date +%s.%N)
kill -TERM "$pid"
for _ in $(seq 300); do
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.1
done
kill -KILL "$pid" 2>/dev/null
wait "$pid"
is "$?" 3 "... SIGTERM while the listing waits: exit 3"
below "$(elapsed "$t0")" 4 "... at once"
like "$(cat "$WORK/a.terr")" "interrupted by signal 15" "... and says so"
kill "$SILENT_PID" 2>/dev/null
wait "$SILENT_PID" 2>/dev/null
SILENT_PID=

# (b) a closed port: connections refused, said so, ended by the stall
# timeout before the attempts run out
dead=$(python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])')
t0=$(date +%s.%N)
timeout 60 "$FERRY" sync "$T" "s3://$B/b" --stall-timeout 3 \
	--endpoint-url "http://127.0.0.1:$dead" >"$WORK/b.out" 2>"$WORK/b.err"
is "$?" 3 "a closed port: exit 3"
below "$(elapsed "$t0")" 10 "... within the stall timeout and a few seconds"
err=$(cat "$WORK/b.err")
like "$err" "^ferry: retrying GET s3://$B/b/ \(attempt 2/10\): could not connect: Connection refused" \
	"... the first retry is said"
like "$err" "more retries, the last: GET s3://$B/b/ \(attempt [0-9]+/10\)" \
	"... the others summed up"
like "$err" "no request has succeeded for 3 s: the server at http://127.0.0.1:$dead is not answering" \
	"... and why the run ended"

# (c) every upload is held without an answer, with --delete: the run
# ends with exit 3, and the object the source no longer has is kept
s3 put "$B" c/stale.txt "$T/$(cd "$T" && find . -type f | head -n 1)" \
	>/dev/null
start_proxy c --always --kinds stall --only-methods PUT
t0=$(date +%s.%N)
timeout 60 "$FERRY" sync "$T" "s3://$B/c" --endpoint-url "$PROXY" \
	--delete --max-delete 100% --force --read-timeout 1 \
	--stall-timeout 10 --json >"$WORK/c.json" 2>"$WORK/c.err"
is "$?" 3 "uploads that get no answer, with --delete: exit 3"
below "$(elapsed "$t0")" 20 "... within the stall timeout and a few seconds"
like "$(grep '"type":"retry"' "$WORK/c.json" | head -n 1)" \
	'"method":"PUT".*"attempt":2,"of":10,"reason":"the server did not answer within 1 s"' \
	"... a PUT's retry event"
check "... every line valid against the event schema" json_valid "$WORK/c.json"
like "$(cat "$WORK/c.err")" "no request has succeeded for 10 s" \
	"... and why the run ended"
is "$(s3 ls "$B" c/ | cut -f2)" c/stale.txt "... and nothing was deleted"
stop_proxy

# (d) some requests are held without an answer: they are retried, said
# so, and the run completes
start_proxy d --seed 5 --rate 0.2 --max-faults 6 --kinds stall
timeout 60 "$FERRY" sync "$T" "s3://$B/d" --endpoint-url "$PROXY" \
	--read-timeout 2 --stall-timeout 30 >"$WORK/d.out" 2>"$WORK/d.err"
is "$?" 0 "a server that stalls some requests: exit 0"
stop_proxy
n=$(awk '$1 == "fault" { n++ } END { print n + 0 }' "$WORK/d.log")
check "... the proxy held some ($n)" [ "$n" -ge 1 ]
like "$(cat "$WORK/d.err")" \
	"retr.*: the server did not answer within 2 s" "... the retries are said"
check "... the bucket equals the tree" \
	python3 "$TOP/tests/integration/bucket_equals_tree.py" "$T" "$B" d/

# ... and a plan made through retries holds only plan lines: apply
# takes it
start_proxy p --always --max-faults 1 --kinds stall --only-methods GET
timeout 60 "$FERRY" plan "$T" "s3://$B/p" --endpoint-url "$PROXY" \
	--read-timeout 2 >"$WORK/plan.jsonl" 2>"$WORK/p.err"
is "$?" 0 "a plan whose listing is retried: exit 0"
stop_proxy
like "$(cat "$WORK/p.err")" "retrying GET s3://$B/p/" "... the retry is said"
is "$(grep -c '"type":"retry"' "$WORK/plan.jsonl")" 0 "... not in the plan"
timeout 60 "$FERRY" apply "$WORK/plan.jsonl" >/dev/null 2>"$WORK/apply.err"
is "$?" 0 "... which apply runs"

# (e) the options are checked
"$FERRY" sync "$T" "s3://$B/e" --stall-timeout x >/dev/null 2>&1
is "$?" 2 "--stall-timeout x: usage error"
"$FERRY" sync "$T" "s3://$B/e" --read-timeout 0 >/dev/null 2>&1
is "$?" 2 "--read-timeout 0: usage error"

s3 rm "$B" >/dev/null
done_testing
