#!/usr/bin/env bash
#
# bench/far.sh: a far-away server, simulated.  1,000 files of 1 to 8 KiB
# in 10 folders, pushed into a new prefix and pulled into an empty folder,
# straight to the gateway (0 ms) and through tests/faultproxy.py
# --latency 40 (40 ms each way: an 80 ms round trip, bandwidth not
# limited), by ferry with its defaults, ferry -j 16 (the old default),
# rclone --transfers 64 and aws s3 sync (its own default, 10 in flight).
# Prints a markdown table of median wall seconds over BENCH_RUNS runs,
# the tools in a rotated order from run to run.
#
#   bash bench/far.sh                      # starts its own gateway
#   FAR_ENV=DIR/env bash bench/far.sh      # a gateway already running
#
# Environment (all optional): BENCH_RUNS (3), FAR_LATENCIES (ms each way,
# "0 40"), FAR_TOOLS ("ferry ferry-j16 rclone aws"), FAR_FILES (1000).
set -u

TOP=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${BENCH_RUNS:-3}
LATS=${FAR_LATENCIES:-"0 40"}
TOOLS=${FAR_TOOLS:-"ferry ferry-j16 rclone aws"}
FILES=${FAR_FILES:-1000}
W=$(mktemp -d "${TMPDIR:-/tmp}/ferry-far.XXXXXX")
PROXY_PID=
OWN=

die() {
	echo "far.sh: $*" >&2
	exit 1
}

bye() {
	[ -n "$PROXY_PID" ] && kill "$PROXY_PID" 2>/dev/null
	[ -n "$OWN" ] && "$TOP/tests/server/s3server" stop "$W/s3" >/dev/null
	rm -rf "$W"
}
trap bye EXIT

[ -x "$TOP/ferry" ] || make -C "$TOP" ferry >/dev/null || die "no ferry"
cp "$TOP/ferry" "$W/ferry"
command -v rclone >/dev/null || die "rclone is needed"
[ -x /usr/bin/aws ] || die "Debian's awscli (/usr/bin/aws) is needed"

if [ -z "${FAR_ENV:-}" ]; then
	"$TOP/tests/server/s3server" start "$W/s3" >/dev/null ||
		die "the gateway did not start"
	OWN=1
	FAR_ENV=$W/s3/env
fi
# shellcheck disable=SC1090
. "$FAR_ENV"
EP=$FERRY_TEST_ENDPOINT

export RCLONE_CONFIG="$W/rclone.conf"
: >"$RCLONE_CONFIG"
export RCLONE_CONFIG_X_TYPE=s3 RCLONE_CONFIG_X_PROVIDER=Ceph \
	RCLONE_CONFIG_X_ACCESS_KEY_ID="$AWS_ACCESS_KEY_ID" \
	RCLONE_CONFIG_X_SECRET_ACCESS_KEY="$AWS_SECRET_ACCESS_KEY" \
	RCLONE_CONFIG_X_REGION=us-east-1 RCLONE_CONFIG_X_FORCE_PATH_STYLE=true
cat >"$W/aws.cfg" <<EOF
[default]
region = us-east-1
s3 =
    addressing_style = path
EOF

python3 - "$W/data" "$FILES" <<'EOF'
import os, random, sys
root, n = sys.argv[1], int(sys.argv[2])
r = random.Random(37)
for i in range(n):
    d = os.path.join(root, "d%02d" % (i % 10))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "f%05d" % i), "wb") as f:
        f.write(r.randbytes(r.randint(1024, 8192)))
EOF

B=far-bench-$$
rclone mkdir "X:$B" --s3-endpoint "$EP" >/dev/null 2>&1 ||
	die "cannot create the bucket"
# the tree every pull reads, put there once, untimed
rclone copy "$W/data" "X:$B/seed" --s3-endpoint "$EP" --transfers 32 \
	>/dev/null 2>&1 || die "cannot seed the bucket"

# proxy MS: the endpoint MS away each way (sets URL): the gateway itself
# at 0, else a latency proxy
proxy() {
	[ -n "$PROXY_PID" ] && kill "$PROXY_PID" 2>/dev/null
	PROXY_PID=
	URL=$EP
	[ "$1" = 0 ] && return
	rm -f "$W/proxy.port"
	python3 "$TOP/tests/faultproxy.py" --upstream "$EP" --rate 0 \
		--latency "$1" --log /dev/null --port-file "$W/proxy.port" \
		--lifetime 3600 >/dev/null 2>&1 &
	PROXY_PID=$!
	for _ in $(seq 100); do
		[ -s "$W/proxy.port" ] && break
		sleep 0.1
	done
	URL="http://127.0.0.1:$(cat "$W/proxy.port")"
}

# cmd TOOL SRC DST: sets CMD, TOOL's copy of SRC to DST through $URL
cmd() {
	local s=${2/#s3:\/\//X:} d=${3/#s3:\/\//X:}
	case $1 in
	ferry) CMD=("$W/ferry" sync "$2" "$3" --endpoint-url "$URL" --json) ;;
	ferry-j16) CMD=("$W/ferry" sync "$2" "$3" --endpoint-url "$URL" -q
		-j 16) ;;
	rclone) CMD=(rclone copy "$s" "$d" --s3-endpoint "$URL"
		--transfers 64 --checkers 64) ;;
	aws) CMD=(env "AWS_CONFIG_FILE=$W/aws.cfg" /usr/bin/aws
		--endpoint-url "$URL" s3 sync "$2" "$3" --only-show-errors) ;;
	*) die "unknown tool $1" ;;
	esac
}

# timed TOOL OP MS RUN: one run, its wall seconds appended to the
# results; ferry's last concurrency event kept aside
timed() {
	local tool=$1 op=$2 ms=$3 run=$4 src dst t0 t1 rc
	if [ "$op" = push ]; then
		src=$W/data dst=s3://$B/$tool-$ms-$run
	else
		src=s3://$B/seed dst=$W/pull/$tool-$ms-$run
	fi
	cmd "$tool" "$src" "$dst"
	export FERRY_STATE_DIR="$W/state/$tool-$op-$ms-$run"
	t0=$(date +%s.%N)
	"${CMD[@]}" >"$W/out" 2>"$W/err"
	rc=$?
	t1=$(date +%s.%N)
	[ $rc = 0 ] || die "$tool $op at $ms ms failed: $(tail -n 3 "$W/err")"
	if [ "$op" = pull ]; then
		n=$(find "$dst" -type f | wc -l)
		[ "$n" = "$FILES" ] || die "$tool pulled $n files at $ms ms"
		rm -rf "$dst"
	fi
	echo "$tool $op $ms $(echo "$t1 - $t0" | bc)" >>"$W/times"
	[ "$tool" = ferry ] && grep '"type":"concurrency"' "$W/out" |
		tail -n 1 | sed "s/^/$op $ms /" >>"$W/decisions"
	return 0
}

: >"$W/times"
: >"$W/decisions"
for ms in $LATS; do
	proxy "$ms"
	for run in $(seq "$RUNS"); do
		# a rotated order, so that no tool always runs first
		# shellcheck disable=SC2086 # the words of the list
		set -- $TOOLS
		for _ in $(seq $(((run - 1) % $#))); do
			set -- "${@:2}" "$1"
		done
		for tool in "$@"; do
			timed "$tool" push "$ms" "$run"
			timed "$tool" pull "$ms" "$run"
		done
	done
done

python3 - "$W/times" "$W/decisions" "$LATS" "$TOOLS" <<'EOF'
import json, statistics, sys
times, lats, tools = {}, sys.argv[3].split(), sys.argv[4].split()
for l in open(sys.argv[1]):
    tool, op, ms, s = l.split()
    times.setdefault((tool, op, ms), []).append(float(s))
med = {k: statistics.median(v) for k, v in times.items()}
cols = [(op, ms) for op in ("push", "pull") for ms in lats]
print("| tool | " + " | ".join("%s, %d ms RTT" % (op, 2 * int(ms))
                                 for op, ms in cols) + " |")
print("|---|" + "---|" * len(cols))
for t in tools:
    print("| %s | " % t + " | ".join(
        "%.2f s" % med[(t, op, ms)] for op, ms in cols) + " |")
far = lats[-1]
for op in ("push", "pull"):
    near = med.get(("ferry", op, lats[0]))
    print("\n%s: ferry at %d ms RTT / ferry at %d ms: %.2fx; " % (
        op, 2 * int(far), 2 * int(lats[0]), med[("ferry", op, far)] / near)
        + ", ".join("%s / ferry at %d ms: %.2fx" % (
            t, 2 * int(ms), med[(t, op, ms)] / med[("ferry", op, ms)])
            for t in tools if t != "ferry" for ms in lats))
print("\nferry's last decision in each run (op, ms each way, event):")
for l in open(sys.argv[2]):
    print("    " + l.rstrip())
EOF
