#!/usr/bin/env bash
# --metrics-file: after each run of sync or apply, success or not, its
# numbers in Prometheus's text format for node_exporter's textfile
# collector, read back here by a real parser of that format (Debian's
# python3-prometheus-client, text_string_to_metric_families; promtool
# comes only in the whole prometheus server package, 19 MB to download).
# The values are the summary's; the file is replaced by a rename, never
# left half-written or beside a temporary file; a run that fails, fails
# part-way or is stopped by SIGTERM still writes its file; a path that
# cannot be written fails the run (exit 1) without undoing its work.
. "$(dirname "$0")/lib.sh"

B=metrics-$$
mkbucket "$B"
# a source whose name needs every escape of a label value
T="$WORK/src \"q\" \\b"$'\n'c
M=$WORK/prom
mkdir -p "$T/sub" "$M"
sizes="1 100 4096 70000 123456"
i=0
for s in $sizes; do
	i=$((i + 1))
	head -c "$s" /dev/urandom >"$T/sub/f$i"
done
nfiles=$i
total=$(($(echo "$sizes" | tr ' ' '+')))

# prom FILE SOURCE DESTINATION: parses FILE as the text format (failing
# when it is not, when a metric lacks its HELP or TYPE, or when a sample
# does not name the pair SOURCE, DESTINATION), then prints one line per
# sample: NAME[:KIND or :TABLE] VALUE, integers as integers.
prom() {
	/usr/bin/python3 - "$@" <<'EOF'
import sys
from prometheus_client.parser import text_string_to_metric_families
text = open(sys.argv[1], encoding="utf-8").read()
for fam in text_string_to_metric_families(text):
    assert fam.documentation, "no HELP for " + fam.name
    assert fam.type == "gauge", "TYPE of %s: %s" % (fam.name, fam.type)
    for s in fam.samples:
        assert s.labels["source"] == sys.argv[2], s.labels
        assert s.labels["destination"] == sys.argv[3], s.labels
        sub = s.labels.get("kind") or s.labels.get("table")
        v = s.value
        print("%s%s %s" % (s.name, ":" + sub if sub else "",
                           int(v) if v == int(v) else v))
EOF
}

# val PARSED NAME: the value of the sample NAME in prom's output.
val() {
	printf '%s\n' "$1" | awk -v n="$2" '$1 == n { print $2 }'
}

# 1. a push: every value the summary's, every label the pair's
F=$M/ferry-push.prom
umask 077
"$FERRY" sync --json "$T" "s3://$B/p" --metrics-file "$F" >"$WORK/1.json"
is "$?" 0 "a push with --metrics-file exits 0"
umask 022
p=$(prom "$F" "$T" "s3://$B/p")
is "$?" 0 "... its metrics file parses as the text format, each metric with HELP and TYPE, each sample naming the pair (label values escaped)"
is "$(val "$p" ferry_run_success)" 1 "... success 1"
is "$(val "$p" ferry_run_exit_code)" 0 "... exit code 0"
is "$(val "$p" ferry_run_objects:uploaded)" "$nfiles" \
	"... objects uploaded: the files pushed"
is "$(val "$p" ferry_run_bytes:uploaded)" "$total" "... bytes: their sum"
is "$(val "$p" ferry_run_objects:uploaded):$(val "$p" ferry_run_objects:skipped):$(val "$p" ferry_run_failures)" \
	"$(summary "$WORK/1.json" uploaded):$(summary "$WORK/1.json" skipped):$(summary "$WORK/1.json" failed)" \
	"... the same counts as the JSON summary"
# both to the millisecond: the parser gives 0.13 for the file's 0.130
is "$(val "$p" ferry_run_duration_seconds | awk '{ printf "%.3f", $1 }')" \
	"$(summary "$WORK/1.json" seconds | awk '{ printf "%.3f", $1 }')" \
	"... and the same duration"
is "$(val "$p" ferry_manifest_entries:local):$(val "$p" ferry_manifest_entries:remote)" \
	"$nfiles:$nfiles" "... the manifest's records: the files and the objects"
is "$(val "$p" ferry_manifest_bytes:remote)" "$total" \
	"... and the bytes they hold"
end=$(val "$p" ferry_run_end_timestamp_seconds)
now=$(date +%s)
check "... its end time is now" test "$end" -le "$now" -a "$end" -ge $((now - 60))
is "$(stat -c %a "$F")" 644 "... readable by the collector (0644, under umask 077)"
is "$(ls -A "$M")" ferry-push.prom "... and no temporary file is left beside it"

# 2. nothing changed: a second run uploads nothing; the file is replaced
# by a rename (another inode), not rewritten in place
ino=$(stat -c %i "$F")
"$FERRY" sync -q "$T" "s3://$B/p" --metrics-file "$F"
is "$?" 0 "an unchanged second run exits 0"
p=$(prom "$F" "$T" "s3://$B/p")
is "$(val "$p" ferry_run_objects:uploaded):$(val "$p" ferry_run_objects:skipped):$(val "$p" ferry_run_success)" \
	"0:$nfiles:1" "... its file says 0 uploaded, all skipped, success 1"
check "... a new file renamed over the old one" test "$(stat -c %i "$F")" != "$ino"
is "$(ls -A "$M")" ferry-push.prom "... no temporary file left"

# 2b. a chmod alone: the object is given its new metadata, no byte sent,
# and the file says so under its own kind
chmod 600 "$T/sub/f1"
"$FERRY" sync -q "$T" "s3://$B/p" --metrics-file "$F"
is "$?" 0 "a run after a chmod exits 0"
p=$(prom "$F" "$T" "s3://$B/p")
is "$(val "$p" ferry_run_objects:metadata):$(val "$p" ferry_run_objects:uploaded)" \
	"1:0" "... its file says 1 given new metadata, 0 uploaded"

# 3. a run that fails: the bucket does not exist
F3=$M/ferry-nobucket.prom
"$FERRY" sync -q "$T" "s3://$B-none/p" --metrics-file "$F3" 2>"$WORK/3.err"
rc=$?
check "a push to a bucket that does not exist fails" test "$rc" -ne 0
p=$(prom "$F3" "$T" "s3://$B-none/p")
is "$(val "$p" ferry_run_success):$(val "$p" ferry_run_exit_code)" "0:$rc" \
	"... and still writes its file: success 0, its exit code"

# 4. a run that fails part-way: one object's PUT always refused (500)
echo changed >"$T/sub/bad"
echo more >"$T/sub/good"
start_proxy part --always --kinds 500 --only-methods PUT --match "/sub/bad"
"$FERRY" sync -q "$T" "s3://$B/p" --endpoint-url "$PROXY" --retries 2 \
	--metrics-file "$F" 2>"$WORK/4.err"
rc=$?
stop_proxy
is "$rc" 1 "a push with one object refused exits 1"
p=$(prom "$F" "$T" "s3://$B/p")
is "$(val "$p" ferry_run_success):$(val "$p" ferry_run_exit_code):$(val "$p" ferry_run_failures):$(val "$p" ferry_run_objects:uploaded)" \
	"0:1:1:1" "... its file: success 0, exit code 1, 1 failure, 1 uploaded"
rm "$T/sub/bad" "$T/sub/good"

# 5. SIGTERM during an upload: the run ends cleanly (exit 3) and says so
head -c 300000 /dev/urandom >"$T/sub/slow"
start_proxy term --always --kinds delay --delay 5 --only-methods PUT \
	--match "/sub/slow"
"$FERRY" sync -q "$T" "s3://$B/p" --endpoint-url "$PROXY" \
	--metrics-file "$F" 2>"$WORK/5.err" &
pid=$!
held term
kill -TERM "$pid"
wait "$pid"
rc=$?
stop_proxy
is "$rc" 3 "SIGTERM during a push ends it with exit 3"
p=$(prom "$F" "$T" "s3://$B/p")
is "$(val "$p" ferry_run_success):$(val "$p" ferry_run_exit_code)" "0:3" \
	"... and its file says success 0, exit code 3"
rm "$T/sub/slow"

# 6. a path that cannot be written: the run's work is done and kept, the
# failure said, the exit status 1 (the watch would go blind otherwise)
echo new >"$T/sub/new"
"$FERRY" sync -q "$T" "s3://$B/p" --metrics-file "$WORK/nowhere/x.prom" \
	2>"$WORK/6.err"
is "$?" 1 "an unwritable metrics path: exit 1"
like "$(cat "$WORK/6.err")" "metrics file '$WORK/nowhere/x.prom': No such file or directory \(the run's own work is kept\)" \
	"... saying why, and that the work is kept"
s3 head "$B" p/sub/new >/dev/null
is "$?" 0 "... the work is kept: the object is there"
"$FERRY" sync -q "$T" "s3://$B/p" --metrics-file "$F"
p=$(prom "$F" "$T" "s3://$B/p")
is "$(val "$p" ferry_run_objects:uploaded):$(val "$p" ferry_run_success)" \
	"0:1" "... and the next run finds nothing to upload"

# 7. a dry run changes nothing and writes no metrics, saying so
before=$(cat "$F")
"$FERRY" sync -n "$T" "s3://$B/p" --metrics-file "$F" >/dev/null 2>"$WORK/7.err"
is "$?" 0 "a dry run with --metrics-file exits 0"
is "$(cat "$F")" "$before" "... leaving the metrics file as it was"
like "$(cat "$WORK/7.err")" "a dry run changes nothing and writes no metrics" \
	"... and says so"

# 8. a pull, an apply; ls takes no --metrics-file
D=$WORK/dst
mkdir -p "$D"
"$FERRY" sync -q "s3://$B/p" "$D" --metrics-file "$M/pull.prom"
is "$?" 0 "a pull with --metrics-file exits 0"
p=$(prom "$M/pull.prom" "s3://$B/p" "$D")
is "$(val "$p" ferry_run_objects:downloaded):$(val "$p" ferry_run_bytes:downloaded)" \
	"$(find "$D" -type f | wc -l):$(find "$D" -type f -printf '%s\n' | awk '{ n += $1 } END { print n }')" \
	"... its file counts the files downloaded and their bytes"
echo applied >"$T/sub/applied"
"$FERRY" plan "$T" "s3://$B/p" >"$WORK/plan" 2>/dev/null
"$FERRY" apply -q "$WORK/plan" --metrics-file "$M/apply.prom"
is "$?" 0 "an apply with --metrics-file exits 0"
p=$(prom "$M/apply.prom" "$T" "s3://$B/p")
is "$(val "$p" ferry_run_objects:uploaded)" 1 "... its file counts its upload"
like "$(cat "$M/apply.prom")" 'command="apply"' "... naming the command"
"$FERRY" ls "s3://$B/p" --metrics-file "$M/ls.prom" >/dev/null 2>"$WORK/8.err"
is "$?" 2 "ls with --metrics-file is a usage error"
like "$(cat "$WORK/8.err")" "only sync and apply" "... saying which commands take it"
is "$(cd "$M" && find . -mindepth 1 | sort | tr '\n' ' ')" \
	"./apply.prom ./ferry-nobucket.prom ./ferry-push.prom ./pull.prom " \
	"in the end, the metrics folder holds the files written, nothing else"

done_testing
