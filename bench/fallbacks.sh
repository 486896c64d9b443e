#!/bin/bash
#
# bench/fallbacks.sh: the requests of the operations whose safety
# conditions Swift refuses (DeleteObjects with ETags, conditional PUTs,
# conditional multipart copies), one run each against a fresh server,
# counted at the server (tests/server/count-requests).  The counts do not
# vary with load; bench/RESULTS.md has Ceph's and Swift's side by side.
#
#   bash bench/fallbacks.sh ceph|swift [FERRY]      # FERRY: ./ferry
#   DUMP=1 bash bench/fallbacks.sh swift            # also kind, method, status
#
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
KIND=${1:-} FERRY=${2:-$TOP/ferry}
case $KIND in
ceph) S=$TOP/tests/server/s3server ;;
swift) S=$TOP/tests/server/swiftserver ;;
*) echo "usage: bash bench/fallbacks.sh ceph|swift [FERRY]" >&2; exit 2 ;;
esac
C=$TOP/tests/server/count-requests
W=$(mktemp -d "${TMPDIR:-/tmp}/ferry-fallbacks.XXXXXX")
trap '"$S" stop "$W/srv" --purge >/dev/null 2>&1; rm -rf "$W"' EXIT
"$S" start "$W/srv" >/dev/null 2>&1 || { echo start failed; exit 1; }
. "$W/srv/env"
export FERRY_STATE_DIR=$W/state
AWS=(/usr/bin/aws --endpoint-url "$AWS_ENDPOINT_URL")
python3 $TOP/bench/gen.py tree "$W/t" 200 4 1K 16K 3 >/dev/null
python3 $TOP/bench/gen.py big "$W/big" 1 40M 3 >/dev/null
for b in fbk fbmir fbpln; do "${AWS[@]}" s3 mb s3://$b >/dev/null; done
# step NAME CMD...: run CMD, print its request counts on one line
step() {
	local name=$1 s rc
	shift
	s=$("$C" --lines "$FERRY_TEST_LOG")
	"$@" >"$W/out" 2>&1
	rc=$?
	printf '%-34s rc %s  %s\n' "$name" "$rc" "$("$C" "$FERRY_TEST_LOG" "$s" | awk '$2 != 0 { printf "%s %s  ", $1, $2 }')"
	if [ -n "${DUMP:-}" ]; then
		"$C" --dump "$FERRY_TEST_LOG" "$s" | awk '{ print $1, $2, $4 }' |
			sort | uniq -c | sort -rn
	fi
}
step "push 200 files" "$FERRY" sync "$W/t" s3://fbk/data --jobs 16 -q
cp "$W/big/"* "$W/t/"
step "push 1 file of 40M (multipart)" "$FERRY" sync "$W/t" s3://fbk/data --jobs 16 -q
rm -f "$W/t"/big-*
# 100 of the 200 files go
find "$W/t" -type f | sort | sed -n '1~2p' | xargs rm -f
step "push --delete of 101 keys" "$FERRY" sync "$W/t" s3://fbk/data --jobs 16 -q --delete --force
# mirror of the bucket with a multipart object: server-side copies
rm -rf "$W/t2"; cp -a "$W/t" "$W/t2"; cp "$W/big/"* "$W/t2/"
"$FERRY" sync "$W/t2" s3://fbk/data --jobs 16 -q --delete --force
step "mirror 101 keys, 1 multipart" "$FERRY" sync s3://fbk/data s3://fbmir/data --jobs 16 -q
find "$W/t2" -type f -name 'f*' | sort | sed -n '1~2p' | xargs rm -f
"$FERRY" sync "$W/t2" s3://fbk/data --jobs 16 -q --delete --force
step "mirror --delete of 50 keys" "$FERRY" sync s3://fbk/data s3://fbmir/data --jobs 16 -q --delete --force
# plan + apply of a push of 100 new files, then of 100 deletes
python3 $TOP/bench/gen.py tree "$W/p" 100 2 1K 16K 4 >/dev/null
step "plan of a push of 100 files" sh -c "'$FERRY' plan '$W/p' s3://fbpln/data > '$W/plan1'"
step "apply: 100 PUTs" "$FERRY" apply "$W/plan1" --jobs 16 -q
mkdir -p "$W/empty"; touch "$W/empty/keep"
step "plan of 100 deletes" sh -c "'$FERRY' plan '$W/empty' s3://fbpln/data --delete --force > '$W/plan2'"
step "apply: 100 deletes" "$FERRY" apply "$W/plan2" --jobs 16 -q
