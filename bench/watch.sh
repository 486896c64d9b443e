#!/bin/bash
#
# bench/watch.sh: ferry sync --watch on a fresh Ceph gateway
# (tests/server/s3server, memstore).
#   (a) latency from a file's close (close_write) to its object in the
#       bucket, p50 and p99 (bench/watchlat.py): a writer makes N new
#       files of 1 KiB at 10 and at 100 per second in a watched folder,
#       with --watch-settle 1s and with the default (2s); RUNS runs each,
#       each on a fresh prefix, medians of the runs printed;
#   (b) an idle watcher on a tree of FILES files in FOLDERS folders
#       (default 100,000 in 10,000): once its first run has ended, its
#       CPU (utime+stime from /proc/PID/stat) over IDLE seconds (default
#       60), and its VmRSS and VmHWM (/proc/PID/status).
# MinIO's mc (mc mirror --watch) is in neither Debian nor npm (npm's "mc"
# is a memcache client): it is not measured beside.
#
#   bash bench/watch.sh [FERRY]          # FERRY: ./ferry
#   BENCH_RUNS=3 BENCH_N=200 BENCH_FILES=100000 BENCH_FOLDERS=10000 \
#     BENCH_IDLE=60 bash bench/watch.sh
#
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
FERRY=${1:-$TOP/ferry}
RUNS=${BENCH_RUNS:-3}
N=${BENCH_N:-200}
FILES=${BENCH_FILES:-100000}
FOLDERS=${BENCH_FOLDERS:-10000}
IDLE=${BENCH_IDLE:-60}
S=$TOP/tests/server/s3server
W=$(mktemp -d "${TMPDIR:-/tmp}/ferry-watch.XXXXXX")
WPID=
trap '[ -n "$WPID" ] && kill "$WPID" 2>/dev/null; "$S" stop "$W/srv" --purge >/dev/null 2>&1; rm -rf "$W"' EXIT
"$S" start "$W/srv" >/dev/null 2>&1 || { echo start failed; exit 1; }
. "$W/srv/env"
export FERRY_STATE_DIR=$W/state
python3 -S "$TOP/tests/integration/s3.py" mb wbench >/dev/null
echo "# $(date -u +%FT%TZ) load average: $(cut -d' ' -f1-3 /proc/loadavg)"

# (a) latency
med() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
for settle in 1 2; do
	for rate in 10 100; do
		: >"$W/lat"
		for r in $(seq "$RUNS"); do
			d=$W/lat-$settle-$rate-$r
			mkdir -p "$d"
			echo seed >"$d/seed"
			python3 "$TOP/bench/watchlat.py" "$d" wbench \
				"l$settle-$rate-$r/" "$N" "$rate" -- "$FERRY" sync \
				"$d" "s3://wbench/l$settle-$rate-$r" --watch \
				--watch-settle "$settle" --json >>"$W/lat" ||
				echo "# run failed" >&2
		done
		sed 's/^/#   /' "$W/lat"
		printf 'latency settle %ss rate %3s/s: p50 %s s p99 %s s (median of %s runs of %s files)\n' \
			"$settle" "$rate" "$(awk '{ print $8 }' "$W/lat" | med)" \
			"$(awk '{ print $10 }' "$W/lat" | med)" "$RUNS" "$N"
	done
done

# (b) idle
python3 - "$W/big" "$FILES" "$FOLDERS" <<'PY'
import os, sys
root, files, folders = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for i in range(files):
    d = os.path.join(root, "d%03d" % (i % folders // 100), "e%05d" % (i % folders))
    if i < folders:
        os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "f%06d" % i), "wb") as f:
        f.write(b"%d\n" % i)
PY
echo "# tree: $(find "$W/big" -type f | wc -l) files, $(find "$W/big" -mindepth 1 -type d | wc -l) folders"
"$FERRY" sync "$W/big" s3://wbench/big --watch --json --jobs 32 \
	>"$W/big.json" 2>"$W/big.err" &
WPID=$!
t0=$(date +%s)
until grep -q '"type":"summary"' "$W/big.json"; do
	kill -0 "$WPID" 2>/dev/null || { echo "the watcher ended"; exit 1; }
	sleep 1
done
echo "# first run: $(($(date +%s) - t0)) s, $(grep -o '"watched":[0-9]*' "$W/big.json" | tail -1)"
sleep 5
tick=$(getconf CLK_TCK)
cpu() { awk '{ print $14 + $15 }' "/proc/$WPID/stat"; }
c0=$(cpu)
sleep "$IDLE"
c1=$(cpu)
kill -0 "$WPID" 2>/dev/null || { echo "the watcher ended"; exit 1; }
printf 'idle over %s s: CPU %s s (%s%%), %s, %s\n' "$IDLE" \
	"$(echo "scale=2; ($c1 - $c0) / $tick" | bc)" \
	"$(echo "scale=3; 100 * ($c1 - $c0) / $tick / $IDLE" | bc)" \
	"$(grep VmRSS "/proc/$WPID/status" | tr -s ' \t' ' ')" \
	"$(grep VmHWM "/proc/$WPID/status" | tr -s ' \t' ' ')"
kill -TERM "$WPID"
wait "$WPID"
echo "# watcher exit: $?; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
WPID=
