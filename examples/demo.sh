#!/bin/sh
# make demo: start a local S3 gateway (Ceph RGW on loopback), sync a sample
# tree into a bucket, show that an immediate rerun transfers nothing, and
# stop the gateway.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
FERRY="$TOP/ferry"
STATE=$(mktemp -d "${TMPDIR:-/tmp}/ferry-demo.XXXXXX")
SERVER="$TOP/tests/server/s3server"

cleanup() {
	"$SERVER" stop "$STATE" --purge >/dev/null 2>&1 || true
}
trap cleanup EXIT INT TERM

echo "== starting a local S3 gateway (about 20 s)"
"$SERVER" start "$STATE"
# shellcheck disable=SC1091
. "$STATE/env"
export FERRY_STATE_DIR="$STATE/ferry-state"

echo "== a sample tree: 500 files in nested folders, and one of 40 MiB"
python3 "$TOP/tests/integration/gen_tree.py" "$STATE/photos" 500 1 65536
head -c $((40 << 20)) /dev/urandom >"$STATE/photos/video.bin"
/usr/bin/aws --endpoint-url "$FERRY_TEST_ENDPOINT" s3api create-bucket \
	--bucket demo >/dev/null

echo
echo "== ferry sync $STATE/photos s3://demo/photos"
"$FERRY" sync "$STATE/photos" s3://demo/photos

echo
echo "== the same again: nothing changed, so only the listing is sent"
"$FERRY" sync "$STATE/photos" s3://demo/photos --json | tail -n 1

echo
echo "== one file changed, one removed, with --delete"
echo "changed" >>"$STATE/photos/plain 00000.bin"
rm "$STATE/photos/video.bin"
"$FERRY" sync "$STATE/photos" s3://demo/photos --delete -v

echo
echo "== ferry ls s3://demo/photos (first lines)"
"$FERRY" ls s3://demo/photos | head -n 5
echo "== done; stopping the gateway"
