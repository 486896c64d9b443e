#!/usr/bin/env bash
# Inputs from outside, bounded: an inventory data file that inflates past
# what its size allows is refused by name, and a read of an inventory
# says how far it got (-v); a filter list or an --sse-c-key file that is
# not a regular file (a device that never ends, a fifo no one writes to)
# or whose line runs on is refused at once, by name.  Each run is under
# timeout 10, so that a hang fails its test rather than the suite.
. "$(dirname "$0")/lib.sh"

S=bnd-src-$$
I=bnd-inv-$$
for b in "$S" "$I"; do
	mkbucket "$b"
done
T=$WORK/tree
mkdir -p "$T/sub"
echo a >"$T/a.txt"
echo b >"$T/sub/b.txt"
"$FERRY" sync "$T" "s3://$S/src" --quiet
is "$?" 0 "the source is pushed"

# an inventory that reads well: -v says what each data file held
sleep 1.1
url=$(python3 "$TOP/tests/integration/inventory.py" make "$S" "$I" good \
	--parts 2)
timeout 10 "$FERRY" sync "s3://$S/src" "$WORK/pull-good" -v \
	--source-inventory "$url" >/dev/null 2>"$WORK/err"
is "$?" 0 "an inventory-fed pull exits 0"
like "$(cat "$WORK/err")" \
	"inventory data file good/data/part-0.csv.gz: read, .* inflated, [0-9]+ rows" \
	"... and -v tells of each data file read"

# bomb BUCKET PREFIX: an inventory of one data file whose gzipped rows
# (20 MiB of versions that are not the latest, each with a long storage
# class) take some 20 KiB; its manifest.json gives their true size and MD5.
bomb() {
	python3 - "$1" "$2" "$S" <<'EOF'
import gzip, hashlib, json, os, sys
sys.path.insert(0, os.path.join(os.environ["TOP"], "tests/integration"))
from s3 import S3
inv, prefix, src = sys.argv[1:4]
row = ('"%s","src%%2Fold","v0","false","false","5",'
       '"2020-01-01T00:00:00.000Z","0123456789abcdef0123456789abcdef","%s"\n'
       % (src, "A" * 200000)).encode()
body = gzip.compress(row * ((20 << 20) // len(row)), 9, mtime=0)
s3 = S3()
key = prefix + "/data/bomb.csv.gz"
r, data = s3.request("PUT", inv, key.encode(), body=body)
s3.check(r, data, "put " + key)
man = {"sourceBucket": src, "destinationBucket": "arn:aws:s3:::" + inv,
       "version": "2016-11-30", "creationTimestamp": "1700000000000",
       "fileFormat": "CSV",
       "fileSchema": "Bucket, Key, VersionId, IsLatest, IsDeleteMarker, "
                     "Size, LastModifiedDate, ETag, StorageClass",
       "files": [{"key": key, "size": len(body),
                  "MD5checksum": hashlib.md5(body).hexdigest()}]}
r, data = s3.request("PUT", inv, (prefix + "/manifest.json").encode(),
                     body=json.dumps(man).encode())
s3.check(r, data, "put manifest")
sys.stderr.write("# bomb: %d bytes gzipped\n" % len(body))
print("s3://%s/%s/manifest.json" % (inv, prefix))
EOF
}
export TOP
burl=$(bomb "$I" bomb)
start=$(date +%s)
timeout 10 "$FERRY" sync "s3://$S/src" "$WORK/pull-bomb" \
	--source-inventory "$burl" >/dev/null 2>"$WORK/err"
rc=$?
is "$rc" 3 "an inventory whose data file inflates past its bound is refused (exit 3, as a damaged one)"
like "$(cat "$WORK/err")" "data file bomb/data/bomb.csv.gz: it inflates to more than [0-9]+ bytes" \
	"... naming the data file and the bound"
check "... within 5 s" test $(($(date +%s) - start)) -le 5
check "... having written nothing" test ! -e "$WORK/pull-bomb/a.txt"

# filter lists and key files that are not regular files
mkfifo "$WORK/fifo"
refused() {
	timeout 10 "$FERRY" sync "$T" "s3://$S/f" "$@" >/dev/null 2>"$WORK/err"
	echo "$?"
}
is "$(refused --exclude-from /dev/zero)" 2 "--exclude-from /dev/zero exits 2"
like "$(cat "$WORK/err")" "/dev/zero: a device, not a regular file" \
	"... at once, saying what it is"
is "$(refused --exclude-from "$WORK/fifo")" 2 \
	"--exclude-from a fifo no one writes to exits 2"
like "$(cat "$WORK/err")" "fifo: a fifo, not a regular file" "... at once, by name"
is "$(refused --files-from "$WORK/fifo")" 2 "--files-from a fifo exits 2"
# the key is read for an https endpoint only; this one is never reached
is "$(refused --sse-c-key "$WORK/fifo" --endpoint-url https://127.0.0.1:9)" 2 \
	"--sse-c-key a fifo exits 2"
like "$(cat "$WORK/err")" "--sse-c-key .*fifo: a fifo, not a regular file" \
	"... at once, by name"
is "$(refused --sse-c-key /dev/zero --endpoint-url https://127.0.0.1:9)" 2 \
	"--sse-c-key /dev/zero exits 2"

# a list past its size bound, sparse: its first line runs on
printf 'ok\n' >"$WORK/huge"
truncate -s 2G "$WORK/huge"
start=$(date +%s)
is "$(refused --include-from "$WORK/huge")" 2 \
	"a 2 GiB list whose second line runs on exits 2"
like "$(cat "$WORK/err")" "huge:2: the line is longer than 4096 bytes" \
	"... naming file and line"
check "... within 2 s, having read only that line" \
	test $(($(date +%s) - start)) -le 2
rm -f "$WORK/huge"

# a regular list is read as before
printf '*.txt\n' >"$WORK/ex"
is "$(refused --exclude-from "$WORK/ex" --dry-run)" 0 \
	"a regular --exclude-from is read"
done_testing
