#!/usr/bin/env bash
# kill -9 at three moments of a push, then a rerun: the bucket equals the
# tree, bytes match, no multipart upload of ours is left open.  And
# SIGINT: a clean stop with exit 3.
. "$(dirname "$0")/lib.sh"

B=crash-$$
T=$WORK/tree
mkbucket "$B"
python3 "$TOP/tests/integration/gen_tree.py" "$T" 300 5
head -c $((40 << 20)) /dev/urandom >"$T/big1.bin"
head -c $((40 << 20)) /dev/urandom >"$T/big2.bin"

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
"$FERRY" sync "$T" "s3://$B/c" --json --jobs 2 >"$WORK/int.json" &
pid=$!
sleep 1
kill -INT "$pid"
wait "$pid"
rc=$?
if [ "$rc" -eq 0 ]; then
	ok "# SKIP the run ended before the signal"
else
	is "$rc" 3 "SIGINT stops the run with exit 3"
	is "$(open_uploads)" 0 "... aborting its multipart uploads"
	check "... and the summary line is written" grep -q '"type":"summary"' \
		"$WORK/int.json"
fi
"$FERRY" sync "$T" "s3://$B/c" --quiet
is "$?" 0 "a rerun after SIGINT completes"

done_testing
