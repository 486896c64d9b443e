#!/usr/bin/env bash
# A pull into a file system that fills up: the error is reported, naming
# ENOSPC, the run exits non-zero, and no temporary file or half-written
# file is left: every file present holds its object's bytes.  Needs root
# (a small tmpfs is mounted); skipped otherwise.
. "$(dirname "$0")/lib.sh"

B=diskfull-$$
T=$WORK/tree
D=$WORK/small
mkbucket "$B"
mkdir -p "$T/sub" "$D"
for i in $(seq 1 12); do
	head -c $((256 << 10)) /dev/urandom >"$T/f$i.bin"
done
head -c $((3 << 20)) /dev/urandom >"$T/sub/big.bin"
"$FERRY" sync "$T" "s3://$B/p" --quiet
is "$?" 0 "6 MiB of objects go up"

if [ "$(id -u)" -ne 0 ] || ! mount -t tmpfs -o size=2m tmpfs "$D" 2>/dev/null; then
	ok "# SKIP not root, or no tmpfs can be mounted"
	done_testing
	exit
fi
trap 'umount "$D" 2>/dev/null; rm -rf "$WORK"' EXIT

"$FERRY" sync "s3://$B/p" "$D" --json --jobs 4 --multipart-threshold 1M \
	--part-size 5M >"$WORK/pull.json" 2>"$WORK/pull.err"
rc=$?
check "a pull into a full file system exits non-zero ($rc)" test "$rc" -ne 0
like "$(grep '"type":"error"' "$WORK/pull.json")" \
	"No space left on device|ENOSPC" "the error names ENOSPC"
check "... and says so on stderr" grep -q "No space left on device" \
	"$WORK/pull.err"
is "$(find "$D" -name '.ferry-tmp-*' | wc -l)" 0 "no temporary file is left"
same=$(cd "$D" && find . -type f | while IFS= read -r f; do
	cmp -s "$f" "$T/$f" || echo "$f"
done)
is "$same" "" "every file present holds its object's bytes"
n=$(find "$D" -type f | wc -l)
check "some files did fit ($n)" test "$n" -ge 1
is "$(summary "$WORK/pull.json" downloaded)" "$n" \
	"the summary counts just the files written"

done_testing
