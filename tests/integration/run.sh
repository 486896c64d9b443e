#!/bin/sh
# Runs the integration suite: starts a Ceph S3 gateway on loopback with the
# project's own script, runs every tests/integration/t_*.sh against it
# (TAP), stops the gateway, and prints "N passed, M failed".  Each
# script's time goes into a comment line, to show where the time goes.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)

# The suite runs in a network namespace that has loopback alone, so that a
# request to any other address fails at connect() before a packet leaves
# (lib.sh also turns the instance metadata service off).  Making one needs
# root, as CI and the README's set-up run; a failure to make it fails the
# run.  Without root the suite says so and keeps to lib.sh's guard.
if [ "${FERRY_TEST_NETNS:-}" != 1 ]; then
	if [ "$(id -u)" -eq 0 ]; then
		exec unshare --net env FERRY_TEST_NETNS=1 sh -c \
		    'ip link set lo up && exec sh "$0" "$@"' "$0" "$@"
	fi
	echo "# not root: the suite runs without a network namespace of its own"
fi
: "${FERRY:=$TOP/ferry}"
export FERRY
STATE=$(mktemp -d "${TMPDIR:-/tmp}/ferry-s3.XXXXXX")
SERVER="$TOP/tests/server/s3server"

stop() {
	"$SERVER" stop "$STATE" --purge >/dev/null 2>&1 || true
}
trap stop EXIT INT TERM

if ! "$SERVER" start "$STATE"; then
	echo "integration: the test S3 gateway did not start" >&2
	exit 1
fi
# shellcheck disable=SC1091
. "$STATE/env"

passed=0
failed=0
for t in "$TOP"/tests/integration/t_*.sh; do
	[ -n "${ONLY:-}" ] && case "$t" in *"$ONLY"*) ;; *) continue ;; esac
	echo "# $(basename "$t")"
	t0=$(date +%s)
	out=$(bash "$t" 2>&1)
	rc=$?
	printf '%s\n' "$out"
	echo "# $(basename "$t") took $(($(date +%s) - t0)) s"
	p=$(printf '%s\n' "$out" | grep -c '^ok ')
	f=$(printf '%s\n' "$out" | grep -c '^not ok ')
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "not ok - $(basename "$t") exited $rc"
		f=1
	fi
	passed=$((passed + p))
	failed=$((failed + f))
done
# How full the gateway's store got: the suite must fit it (memstore is
# sized by tests/server/s3server from the memory the machine can spare).
ceph -c "$STATE/ceph.conf" daemon osd.0 perf dump 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)["osd"]
print("# the gateway store: %d of %d MiB used" % (
    d["stat_bytes_used"] >> 20, d["stat_bytes"] >> 20))' 2>/dev/null
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
