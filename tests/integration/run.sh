#!/bin/sh
# Runs the integration suite against each real S3 server named in
# FERRY_TEST_SERVERS (default "ceph swift"): for each, starts it on
# loopback with the project's own script (tests/server/s3server for a Ceph
# gateway, tests/server/swiftserver for OpenStack Swift with s3api), runs
# every tests/integration/t_*.sh against it (TAP), stops it, and prints
# that server's counts; then the total, "N passed, M failed, K skipped".
# A skip is a test that names a limitation of the server (lib.sh's
# skip_on).  Each script's time goes into a comment line, to show where
# the time goes.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
SERVERS=${FERRY_TEST_SERVERS:-ceph swift}

# More than one server: each suite runs side by side with the others, in
# a run of this script of its own (its own namespace, server and ports),
# since the suites spend much of their time waiting on the servers.  The
# first one's log is printed as it goes, the others' when it ends;
# FERRY_TEST_SERIAL=1 runs them one after another instead.
side_by_side() {
	logs=$(mktemp -d "${TMPDIR:-/tmp}/ferry-suites.XXXXXX")
	first=$1
	shift
	pids=
	trap 'kill $pids 2>/dev/null; wait; rm -rf "$logs"; exit 130' INT TERM
	for name in "$@"; do
		FERRY_TEST_SERVERS=$name sh "$0" >"$logs/$name" 2>&1 &
		pids="$pids $!"
	done
	FERRY_TEST_SERVERS=$first sh "$0" 2>&1 | tee "$logs/$first"
	wait
	for name in "$@"; do
		cat "$logs/$name"
	done
	# each run ends in its counts: their sum is this one's
	for name in "$first" "$@"; do
		tail -n 1 "$logs/$name"
	done | awk -v want=$(($# + 1)) '
	    $2 == "passed," { p += $1; f += $3; s += $5; n++ }
	    END {
		printf "%d passed, %d failed, %d skipped\n", p, f, s
		exit !(n == want && f == 0 && p > 0)
	    }'
	rc=$?
	rm -rf "$logs"
	return $rc
}
# shellcheck disable=SC2086
if [ "$(echo $SERVERS | wc -w)" -gt 1 ] && [ "${FERRY_TEST_SERIAL:-}" != 1 ]
then
	side_by_side $SERVERS
	exit
fi

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
STATE=
SERVER=
PYBIN=

stop() {
	[ -z "$STATE" ] || "$SERVER" stop "$STATE" --purge >/dev/null 2>&1 || true
	STATE=
}
trap 'stop; [ -z "$PYBIN" ] || rm -rf "$PYBIN"' EXIT

# The tests, their helpers and the servers start Python thousands of
# times: Debian's python3 goes first in PATH, ahead of a per-user shim
# (pyenv's costs about 0.4 s of CPU a start, ten times Python's own).
if [ -x /usr/bin/python3 ] && [ "$(command -v python3)" != /usr/bin/python3 ]
then
	PYBIN=$(mktemp -d "${TMPDIR:-/tmp}/ferry-python.XXXXXX")
	ln -s /usr/bin/python3 "$PYBIN/python3"
	PATH=$PYBIN:$PATH
	export PATH
fi
trap 'stop; exit 130' INT TERM

# cpu_between FILE1 FILE2: the CPU seconds (user + system) that this
# shell's finished children used between "times >FILE1" and "times
# >FILE2" (times must run in this shell itself: in a subshell, children
# count from zero).
cpu_between() {
	cat "$1" "$2" | awk 'FNR % 2 == 0 {
		split($1, u, /[ms]/)
		split($2, y, /[ms]/)
		n[++k] = u[1] * 60 + u[2] + y[1] * 60 + y[2]
	} END { printf "%.1f\n", n[2] - n[1] }'
}

# cpu_server: the CPU time (in clock ticks) of the server's daemons so
# far, from the pid files in $STATE/run.
cpu_server() {
	cat "$STATE"/run/*.pid 2>/dev/null | while read -r pid; do
		cat "/proc/$pid/stat" 2>/dev/null
	done | awk '{ sub(/^.*\) /, ""); n += $12 + $13 } END { print n + 0 }'
}

# run_suite NAME: every t_*.sh against the server whose env is sourced;
# adds to passed, failed and skipped.  Each script's wall time goes into a
# comment, with the CPU seconds that its own processes (ferry, the
# checks, the helpers) and the server's daemons spent meanwhile.
run_suite() {
	hz=$(getconf CLK_TCK 2>/dev/null || echo 100)
	for t in "$TOP"/tests/integration/t_*.sh; do
		[ -n "${ONLY:-}" ] && case "$t" in *"$ONLY"*) ;; *) continue ;; esac
		echo "# $(basename "$t") ($1)"
		t0=$(date +%s)
		s0=$(cpu_server)
		times >"$STATE/times0"
		out=$(bash "$t" 2>&1)
		rc=$?
		printf '%s\n' "$out"
		times >"$STATE/times1"
		s=$((($(cpu_server) - s0) * 10 / hz))
		echo "# $(basename "$t") ($1) took $(($(date +%s) - t0)) s" \
		    "(CPU $(cpu_between "$STATE/times0" "$STATE/times1") s, server $((s / 10)).$((s % 10)) s)"
		s=$(printf '%s\n' "$out" | grep -c '^ok [0-9]* # skip')
		p=$(($(printf '%s\n' "$out" | grep -c '^ok ') - s))
		f=$(printf '%s\n' "$out" | grep -c '^not ok ')
		if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
			echo "not ok - $(basename "$t") ($1) exited $rc"
			echo "# $(basename "$t") ($1): exited $rc" >>"$STATE/failures"
			f=1
		fi
		printf '%s\n' "$out" | grep '^not ok ' |
		    sed "s/^/# $(basename "$t") ($1): /" >>"$STATE/failures"
		passed=$((passed + p))
		failed=$((failed + f))
		skipped=$((skipped + s))
	done
}

# How full the Ceph gateway's store got: the suite must fit it (memstore
# is sized by tests/server/s3server from the memory the machine can spare).
ceph_store() {
	ceph -c "$STATE/ceph.conf" daemon osd.0 perf dump 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)["osd"]
print("# the gateway store: %d of %d MiB used" % (
    d["stat_bytes_used"] >> 20, d["stat_bytes"] >> 20))' 2>/dev/null
}

total_p=0
total_f=0
total_s=0
for name in $SERVERS; do
	case $name in
	ceph) SERVER="$TOP/tests/server/s3server" ;;
	swift) SERVER="$TOP/tests/server/swiftserver" ;;
	*)
		echo "integration: unknown server '$name' (ceph or swift)" >&2
		exit 2
		;;
	esac
	echo "# == $name"
	t0=$(date +%s)
	STATE=$(mktemp -d "${TMPDIR:-/tmp}/ferry-$name.XXXXXX")
	if ! "$SERVER" start "$STATE"; then
		echo "integration: the test S3 server ($name) did not start" >&2
		exit 1
	fi
	passed=0
	failed=0
	skipped=0
	# The server's environment, for its tests only.
	(
		# shellcheck disable=SC1091
		. "$STATE/env"
		run_suite "$name"
		echo "$passed $failed $skipped" >"$STATE/counts"
	)
	[ "$name" != ceph ] || ceph_store
	read -r passed failed skipped <"$STATE/counts" || failed=1
	# the failures again, by script, where a log's tail shows them
	[ ! -s "$STATE/failures" ] || cat "$STATE/failures"
	stop
	echo "# $name: $passed passed, $failed failed, $skipped skipped in $(($(date +%s) - t0)) s"
	total_p=$((total_p + passed))
	total_f=$((total_f + failed))
	total_s=$((total_s + skipped))
done
echo "$total_p passed, $total_f failed, $total_s skipped"
[ "$total_f" -eq 0 ] && [ "$total_p" -gt 0 ]
