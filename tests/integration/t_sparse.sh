#!/usr/bin/env bash
# Sparse files.  A push reads a file's data only: its holes go up as the
# zeros they read as, made in memory, for the hash, the MD5s and the body
# alike.  What ferry read is the kernel's count of the bytes its read and
# pread calls returned (rchar of /proc/PID/io, which a parent's count gains
# from each child it waits for): ferry cannot leave a read out of it (it
# reads files with no mmap).  The bucket holds every byte: a pull gives
# the same file back (cmp).  A pull with --sparse leaves the zeros as
# holes (du), without it writes them.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

B=sparse-$$
T=$WORK/tree
mkdir -p "$T"
mkbucket "$B"
MIB=1048576
SIZE=$(mib 256 64) # the big file's apparent size, MiB (1 GiB: 80 s a server)

# rchar FILE CMD...: runs CMD, writes the bytes it read (rchar) to FILE,
# and returns CMD's exit status.
rchar() {
	local out=$1
	shift
	python3 -c '
import subprocess, sys
def rchar():
    for l in open("/proc/self/io"):
        if l.startswith("rchar:"):
            return int(l.split()[1])
before = rchar()
rc = subprocess.run(sys.argv[2:]).returncode
open(sys.argv[1], "w").write("%d\n" % (rchar() - before))
sys.exit(rc)' "$out" "$@"
}

# piece FILE OFFSET MIB: MIB MiB of random bytes at byte OFFSET of FILE.
piece() {
	dd if=/dev/urandom of="$1" bs=$MIB count="$3" seek="$2" \
		oflag=seek_bytes conv=notrunc status=none
}

# The big file: 4 MiB of data in four places, one not on a block
# boundary, and holes between, and at its end.
truncate -s "${SIZE}M" "$T/disk.img"
piece "$T/disk.img" 0 1
piece "$T/disk.img" $((SIZE * MIB / 8 + 12345)) 1
piece "$T/disk.img" $((SIZE * MIB / 2)) 1
piece "$T/disk.img" $((SIZE * MIB * 7 / 8)) 1
# A small one, pulled by one GET: 64 KiB of data in 7 MiB.
truncate -s 7M "$T/small.img"
dd if=/dev/urandom of="$T/small.img" bs=64K count=1 seek=48 conv=notrunc \
	status=none

# The test folder's filesystem must keep holes, or nothing here is shown.
fs=$(df -T "$WORK" | awk 'NR == 2 { print $2 }')
kb=$(du -k "$T/disk.img" | cut -f1)
if ! between "$kb" 4096 4608; then
	not_ok "the test folder $WORK ($fs) keeps holes: a file of ${SIZE} MiB with 4 MiB of data takes $kb KiB"
	done_testing
	exit
fi
ok "the test folder ($fs) keeps holes: $kb KiB on disk for ${SIZE} MiB"

rchar "$WORK/push.read" "$FERRY" sync "$T" "s3://$B/p" -q
is "$?" 0 "the push of the sparse files exits 0"
read=$(cat "$WORK/push.read")
# each byte of data is read by the scan's hash, the MD5s and the upload:
# three times 4 MiB, and a little more (the config, the manifest's lock);
# a file read whole is three times its size
check "... reading about its data from the disk ($((read / 1024)) KiB read for ${SIZE} MiB)" \
	between "$read" $((4 * MIB)) $((16 * MIB))

# one PUT for the big file, hashed and then read again as it is sent
rchar "$WORK/put.read" "$FERRY" sync "$T" "s3://$B/q" -q --multipart-threshold 1G
is "$?" 0 "a push with the big file in one PUT exits 0"
read=$(cat "$WORK/put.read")
check "... reads about its data too ($((read / 1024)) KiB)" \
	between "$read" $((4 * MIB)) $((16 * MIB))
s3 get "$B" q/disk.img "$WORK/q.img"
check "... and the object is the file" cmp "$T/disk.img" "$WORK/q.img"
rm -f "$WORK/q.img"

# pull DIR [OPTION...]: pulls the prefix into DIR.
pull() {
	local d=$1
	shift
	"$FERRY" sync "s3://$B/p" "$d" -q "$@"
}

pull "$WORK/sparse" --sparse
is "$?" 0 "a pull with --sparse exits 0"
check "... the big file's bytes are the pushed ones" cmp "$T/disk.img" "$WORK/sparse/disk.img"
check "... the small file's too" cmp "$T/small.img" "$WORK/sparse/small.img"
kb=$(du -k "$WORK/sparse/disk.img" | cut -f1)
check "... the big file takes its data's room: $kb KiB (4096 of data)" between "$kb" 4096 4608
kb=$(du -k "$WORK/sparse/small.img" | cut -f1)
check "... the small file too, its hole at the end kept: $kb KiB (64 of data)" between "$kb" 64 128

# verify --full of the pull reads the file again: its data only.  (The
# big file is left out: verify takes the pull's range size for the part
# size of its multipart ETag, and reports drift, sparse or not.)
rchar "$WORK/verify.read" "$FERRY" verify "s3://$B/p" "$WORK/sparse" --full \
	--exclude disk.img >"$WORK/verify.out" 2>&1
rc=$?
is "$rc" 0 "verify --full of the small file's pull exits 0"
[ "$rc" = 0 ] || sed "s/^/# /" "$WORK/verify.out"
read=$(cat "$WORK/verify.read")
check "... reading its data, not its 7 MiB ($((read / 1024)) KiB)" \
	between "$read" $((64 << 10)) $((1 * MIB))

# ranged GETs cut off in their body are asked again and written over
start_proxy cut --always --kinds cut --only-methods GET --match 'disk\.img' \
	--max-faults 1
pull "$WORK/cut" --sparse --endpoint-url "$PROXY"
is "$?" 0 "a pull with --sparse whose ranged GETs are cut off exits 0"
is "$(grep -c "^fault cut" "$WORK/cut.log")" 1 "... after a cut GET"
stop_proxy
check "... the big file's bytes are the pushed ones" cmp "$T/disk.img" "$WORK/cut/disk.img"
kb=$(du -k "$WORK/cut/disk.img" | cut -f1)
check "... in less room than written whole: $kb KiB" test "$kb" -lt $((SIZE * 1024))

pull "$WORK/dense"
is "$?" 0 "a pull without --sparse exits 0"
check "... the big file's bytes are the pushed ones" cmp "$T/disk.img" "$WORK/dense/disk.img"
kb=$(du -k "$WORK/dense/disk.img" | cut -f1)
check "... written whole: $kb KiB for ${SIZE} MiB" test "$kb" -ge $((SIZE * 1024))
kb=$(du -k "$WORK/dense/small.img" | cut -f1)
check "... the small file too: $kb KiB for 7 MiB" test "$kb" -ge $((7 * 1024))

done_testing
