#!/usr/bin/env bash
# A pull into a file system that fills up: the error is reported, naming
# ENOSPC, the run exits non-zero, and no temporary file or half-written
# file is left: every file present holds its object's bytes.  The same
# when it runs out of inodes, so that files cannot be made for GETs
# already sent (a file is made once its request is on its way).  Needs
# root (small tmpfs are mounted); skipped otherwise.
. "$(dirname "$0")/lib.sh"

# differing DIR SRC: the files under DIR whose bytes are not SRC's
differing() {
	(cd "$1" && find . -type f | while IFS= read -r f; do
		cmp -s "$f" "$2/$f" || echo "$f"
	done)
}

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
is "$(differing "$D" "$T")" "" "every file present holds its object's bytes"
n=$(find "$D" -type f | wc -l)
check "some files did fit ($n)" test "$n" -ge 1
is "$(summary "$WORK/pull.json" downloaded)" "$n" \
	"the summary counts just the files written"

# 40 small objects in two folders into a tmpfs of 16 inodes: the folders
# are made, then files until none is left
I=$WORK/inodes
mkdir -p "$T/many/x" "$T/many/y" "$I"
for i in $(seq 1 20); do
	printf 'x%s' "$i" >"$T/many/x/$i"
	printf 'y%s' "$i" >"$T/many/y/$i"
done
"$FERRY" sync "$T/many" "s3://$B/m" --quiet
is "$?" 0 "40 small objects go up"
mount -t tmpfs -o size=2m,nr_inodes=16 tmpfs "$I" ||
	{ ok "# SKIP a tmpfs of 16 inodes cannot be mounted"; done_testing; exit; }
trap 'umount "$D" "$I" 2>/dev/null; rm -rf "$WORK"' EXIT
"$FERRY" sync "s3://$B/m" "$I" --json >"$WORK/inodes.json" 2>"$WORK/inodes.err"
rc=$?
is "$rc" 1 "a pull that runs out of inodes exits 1, some files failed"
like "$(grep '"type":"error"' "$WORK/inodes.json" | head -1)" \
	"cannot create a temporary file for [xy]/[0-9]+: No space left on device" \
	"the error says which file could not be made, and why"
is "$(find "$I" -name '.ferry-tmp-*' | wc -l)" 0 "no temporary file is left"
is "$(differing "$I" "$T/many")" "" "every file made holds its object's bytes"
n=$(find "$I" -type f | wc -l)
check "some files were made ($n), not all" test "$n" -ge 1 -a "$n" -lt 40
is "$(summary "$WORK/inodes.json" downloaded)" "$n" \
	"the summary counts just the files made"
is "$(summary "$WORK/inodes.json" failed)" "$((40 - n))" \
	"... and the others as failed"

done_testing
