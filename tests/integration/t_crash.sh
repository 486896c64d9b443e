#!/usr/bin/env bash
# kill -9 at three moments of a push, then a rerun: the bucket equals the
# tree, bytes match, no multipart upload of ours is left open.  And
# SIGINT: a clean stop with exit 3.  A large upload killed midway resumes:
# the rerun sends only the missing parts; one whose file changed, or cut
# into another part size, starts again.
. "$(dirname "$0")/lib.sh"

B=crash-$$
T=$WORK/tree
mkbucket "$B"
python3 "$TOP/tests/integration/gen_tree.py" "$T" 300 5
big=$(mib 40 16)
head -c $((big << 20)) /dev/urandom >"$T/big1.bin"
head -c $((big << 20)) /dev/urandom >"$T/big2.bin"

open_uploads() {
	s3 uploads "$B"
}

for delay in 0.3 1.0 2.0; do
	"$FERRY" sync "$T" "s3://$B/c" --quiet --jobs 4 &
	pid=$!
	sleep "$delay"
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	echo "# killed after $delay s; uploads open: $(open_uploads)"
	"$FERRY" sync "$T" "s3://$B/c" --json >"$WORK/re.json"
	is "$?" 0 "the rerun after kill -9 at $delay s exits 0"
	check "... and the bucket equals the tree" python3 \
		"$TOP/tests/integration/bucket_equals_tree.py" "$T" "$B" c/
	is "$(open_uploads)" 0 "... with no multipart upload left open"
	# start over for the next moment
	s3 rm "$B" c/
	rm -rf "$FERRY_STATE_DIR"
done
for f in big1.bin big2.bin; do
	"$FERRY" sync "$T" "s3://$B/c" --quiet
	s3 get "$B" "c/$f" "$WORK/$f"
	check "$f is byte-identical" cmp -s "$WORK/$f" "$T/$f"
done

s3 rm "$B" c/
rm -rf "$FERRY_STATE_DIR"
# SIGINT while the second part of each large file is held by a proxy
# (5 s): the run is always mid-upload when the signal comes, and lets the
# held parts end before it aborts the uploads.
start_proxy int --always --kinds delay --delay 5 --only-methods PUT \
	--match "partNumber=([2-9]|[1-9][0-9])&"
"$FERRY" sync "$T" "s3://$B/c" --json --jobs 2 --endpoint-url "$PROXY" \
	>"$WORK/int.json" 2>"$WORK/int.err" &
pid=$!
held int
kill -INT "$pid"
wait "$pid"
is "$?" 3 "SIGINT stops the run with exit 3"
like "$(cat "$WORK/int.err")" \
	'interrupted: letting [0-9]+ requests? in flight end .*interrupt again' \
	"... saying that it lets the requests in flight end"
stop_proxy
is "$(open_uploads)" 0 "... aborting its multipart uploads"
check "... and the summary line is written" grep -q '"type":"summary"' \
	"$WORK/int.json"
"$FERRY" sync "$T" "s3://$B/c" --quiet
is "$?" 0 "a rerun after SIGINT completes"

# A second SIGINT while the held parts drain stops at once (the first
# lets them end: 5 s); a rerun through the same endpoint (the same
# manifest) then completes, leaving no upload open.
s3 rm "$B" c/
rm -rf "$FERRY_STATE_DIR"
start_proxy int2 --always --kinds delay --delay 5 --only-methods PUT \
	--match "partNumber=([2-9]|[1-9][0-9])&" --max-faults 2
"$FERRY" sync "$T" "s3://$B/c" --jobs 2 --endpoint-url "$PROXY" -q &
pid=$!
held int2
kill -INT "$pid"
sleep 0.5
kill -INT "$pid"
wait "$pid"
is "$?" 130 "a second SIGINT ends the run at once: killed by it, not exit 3"
"$FERRY" sync "$T" "s3://$B/c" --endpoint-url "$PROXY" --quiet
is "$?" 0 "a rerun after two SIGINTs completes"
stop_proxy
is "$(open_uploads)" 0 "... with no multipart upload left open"

# SIGINT during a pull whose large files' ranges are held (3 s): the
# ranges in flight are let end, and the files they were making are
# dropped, as a push drops what it read, neither put at their names nor
# left under temporary ones; a pull after it completes.
start_proxy pint --always --kinds delay --delay 3 --only-methods GET \
	--match "/c/big[12][.]bin"
"$FERRY" sync "s3://$B/c" "$WORK/pint" --jobs 4 --endpoint-url "$PROXY" \
	-q 2>"$WORK/pint.err" &
pid=$!
held pint
kill -INT "$pid"
wait "$pid"
is "$?" 3 "SIGINT during a pull of ranges stops it with exit 3"
check "... with neither large file at its name" \
	test ! -e "$WORK/pint/big1.bin" -a ! -e "$WORK/pint/big2.bin"
is "$(find "$WORK/pint" -name '.ferry-tmp-*' | wc -l)" 0 \
	"... and no temporary file left"
stop_proxy
"$FERRY" sync "s3://$B/c" "$WORK/pint" -q
is "$?" 0 "a pull after it completes"
check "... big1.bin is byte-identical" cmp -s "$WORK/pint/big1.bin" \
	"$T/big1.bin"

# Resumable multipart uploads: 40 MiB in 8 parts of 5 MiB.
R=$WORK/resume
mkdir -p "$R"
head -c $((40 << 20)) /dev/urandom >"$R/big.bin"
MP=(--part-size 5M --jobs 2)

# parts_put MARK: UploadPart requests of r/big.bin answered 200 since MARK.
parts_put() {
	"$COUNT" --no-settle --dump "$FERRY_TEST_LOG" "$1" |
		grep -c "^put PUT /$B/r/big.bin?partNumber=[0-9]*&uploadId=[^ ]* 200 "
}

# kill_after N: pushes $R, killed with SIGKILL once N parts are up.  The
# push goes through a proxy that holds every later part for 30 s, so that
# the kill always lands with the upload unfinished, however fast the
# first parts went; the proxy goes with the push, and the parts it held
# never reach the gateway.
kill_after() {
	local m pid i
	m=$(mark)
	start_proxy hold --always --kinds delay --delay 30 --only-methods PUT \
		--match "partNumber=($(seq -s '|' $(($1 + 1)) 99))&"
	"$FERRY" sync "$R" "s3://$B/r" "${MP[@]}" --quiet --endpoint-url "$PROXY" &
	pid=$!
	for i in $(seq 600); do
		[ "$(parts_put "$m")" -ge "$1" ] && break
		sleep 0.05
	done
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	stop_proxy
	echo "# killed with $(parts_put "$m") parts up"
}

# rerun TAG: the rerun, with its request counts in $WORK/TAG.{json,count}.
# It goes to the endpoint the push went to (the manifest knows an upload
# by it): a proxy on the same port that passes everything.
rerun() {
	local m
	m=$(mark)
	start_proxy pass --max-faults 0 --port "${PROXY##*:}"
	"$FERRY" sync "$R" "s3://$B/r" "${MP[@]}" --json -v \
		--endpoint-url "$PROXY" >"$WORK/$1.json" 2>"$WORK/$1.err"
	echo $? >"$WORK/$1.rc"
	stop_proxy
	"$COUNT" --settle "$FERRY_TEST_LOG" "$m" >"$WORK/$1.count"
	echo "# $(tr '\n' ' ' <"$WORK/$1.count")"
}

kind() {
	awk -v k="$2" '$1 == k { print $2 }' "$WORK/$1.count"
}

same_object() {
	rm -f "$WORK/back"
	s3 get "$B" r/big.bin "$WORK/back" &&
		cmp -s "$WORK/back" "$R/big.bin"
}

kill_after 3
is "$(open_uploads)" 1 "a push killed midway leaves its upload open"
rerun resumed
is "$(cat "$WORK/resumed.rc")" 0 "the rerun exits 0"
n=$(kind resumed put)
if [ "$n" -ge 1 ] && [ "$n" -le 5 ]; then
	ok "the rerun sends only the missing parts ($n of 8)"
else
	not_ok "the rerun sends only the missing parts (sent $n of 8)"
fi
like "$(cat "$WORK/resumed.err")" "resuming an earlier upload, [3-7] of 8" \
	"... saying it resumes"
is "$(kind resumed delete)" 0 "... and aborts nothing"
check "the object is byte-identical to the file" same_object
is "$(open_uploads)" 0 "no upload is left open"

# the file changes between the kill and the rerun
s3 rm "$B" r/
kill_after 3
head -c $((40 << 20)) /dev/urandom >"$R/big.bin"
rerun changed
is "$(cat "$WORK/changed.rc")" 0 "after the file changed, the rerun exits 0"
is "$(kind changed put)" 8 "... sends all 8 parts"
like "$(cat "$WORK/changed.err")" "cannot go on: the file changed" \
	"... saying why it starts again"
is "$(kind changed delete)" 1 "... aborting the earlier upload"
check "the object holds the new content" same_object
is "$(open_uploads)" 0 "no upload is left open"

# another part size
s3 rm "$B" r/
kill_after 3
MP=(--part-size 8M --jobs 2)
rerun resized
is "$(cat "$WORK/resized.rc")" 0 "with another part size, the rerun exits 0"
is "$(kind resized put)" 5 "... sends all 5 parts of 8 MiB"
like "$(cat "$WORK/resized.err")" "another part size" "... saying why"
check "the object is byte-identical to the file" same_object
is "$(open_uploads)" 0 "no upload is left open"

# the upload aborted by someone else meanwhile; then an upload the
# manifest keeps for a file that is gone is aborted at the end of a run
s3 rm "$B" r/
kill_after 3
s3 abort "$B" r/big.bin
rerun gone
is "$(cat "$WORK/gone.rc")" 0 "when the upload is gone, the rerun exits 0"
is "$(kind gone put)" 5 "... and sends every part"
check "the object is byte-identical to the file" same_object
s3 rm "$B" r/
kill_after 3
mv "$R/big.bin" "$WORK/big.moved"
rerun vanished
is "$(cat "$WORK/vanished.rc")" 0 "when the file is gone, the rerun exits 0"
is "$(open_uploads)" 0 "... and aborts its upload"
is "$(kind vanished put)" 0 "... sending nothing"

done_testing
