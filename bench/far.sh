#!/usr/bin/env bash
#
# bench/far.sh: a far-away server, simulated.  1,000 files of 1 to 8 KiB
# in 10 folders (FAR_SET=small) or 8 files of 64 MiB (FAR_SET=large),
# pushed into a new prefix, pulled into an empty folder and mirrored
# (bucket to bucket on the same endpoint: server-side copies), straight
# to the gateway (0 ms) and through a latency proxy (MS each way;
# bandwidth not limited; see proxy() below), by ferry with its defaults, ferry -j
# 16 (the old default), rclone --transfers 64, aws s3 sync (its own
# default, 10 in flight) and s3cmd sync (one at a time).  Every run
# visits every latency in turn (near and far interleaved), the tools in
# a rotated order.  Prints a markdown table of median wall seconds over
# BENCH_RUNS runs and ferry's ratios.
#
#   bash bench/far.sh                      # starts its own gateway
#   FAR_ENV=DIR/env bash bench/far.sh      # a gateway already running
#
# Environment (all optional): BENCH_RUNS (3), FAR_LATENCIES (ms each way,
# "0 10 40"), FAR_TOOLS ("ferry ferry-j16 rclone aws s3cmd"), FAR_OPS
# ("push pull mirror"), FAR_SET (small), FAR_FILES (1000, small only),
# FAR_PROXY (c or py), FAR_NEAR (gateway or proxy), FAR_BASE (another
# ferry binary, run as the tool "ferry-base" beside this tree's: name it
# in FAR_TOOLS to compare two builds in the same runs).
set -u

TOP=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${BENCH_RUNS:-3}
LATS=${FAR_LATENCIES:-"0 10 40"}
TOOLS=${FAR_TOOLS:-"ferry ferry-j16 rclone aws s3cmd"}
OPS=${FAR_OPS:-"push pull mirror"}
SET=${FAR_SET:-small}
FILES=${FAR_FILES:-1000}
[ "$SET" = large ] && FILES=8
W=$(mktemp -d "${TMPDIR:-/tmp}/ferry-far.XXXXXX")
OWN=
declare -A URLS PIDS

die() {
	echo "far.sh: $*" >&2
	exit 1
}

bye() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	[ -n "$OWN" ] && "$TOP/tests/server/s3server" stop "$W/s3" >/dev/null
	rm -rf "$W"
}
trap bye EXIT

[ -x "$TOP/ferry" ] || make -C "$TOP" ferry >/dev/null || die "no ferry"
cp "$TOP/ferry" "$W/ferry"
case " $TOOLS " in *" ferry-base "*)
	[ -x "${FAR_BASE:-}" ] || die "ferry-base needs FAR_BASE, a ferry binary"
	cp "$FAR_BASE" "$W/ferry-base" ;;
esac
PROXY_KIND=${FAR_PROXY:-c}
case $PROXY_KIND in
c) cc -O2 -Wall -Wextra -o "$W/delayproxy" "$TOP/bench/delayproxy.c" ||
	die "cannot build bench/delayproxy.c" ;;
py) ;;
*) die "FAR_PROXY is c or py, not $PROXY_KIND" ;;
esac
command -v rclone >/dev/null || die "rclone is needed"
[ -x /usr/bin/aws ] || die "Debian's awscli (/usr/bin/aws) is needed"
case " $TOOLS " in *" s3cmd "*) command -v s3cmd >/dev/null || die "s3cmd is needed" ;; esac

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

python3 - "$W/data" "$FILES" "$SET" <<'EOF'
import os, random, sys
root, n, large = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "large"
r = random.Random(37)
for i in range(n):
    d = os.path.join(root, "d%02d" % (i % 10))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "f%05d" % i), "wb") as f:
        if large:
            f.write(os.urandom(64 << 20))
        else:
            f.write(r.randbytes(r.randint(1024, 8192)))
EOF

B=far-bench-$$
rclone mkdir "X:$B" --s3-endpoint "$EP" >/dev/null 2>&1 ||
	die "cannot create the bucket"
# the tree every pull reads, put there once, untimed
rclone copy "$W/data" "X:$B/seed" --s3-endpoint "$EP" --transfers 32 \
	>/dev/null 2>&1 || die "cannot seed the bucket"

# proxy MS: starts the endpoint MS away each way into URLS[MS]: the
# gateway itself at 0, else a latency proxy: bench/delayproxy.c (the
# default, FAR_PROXY=c: bytes held MS each way, next to no CPU;
# FAR_HANDSHAKE=1 has each new connection's first bytes wait a round
# trip more, as a real handshake would) or FAR_PROXY=py,
# tests/faultproxy.py --latency (each request held, parsed in Python:
# its CPU on a 2-core machine weighs on the client's run).  FAR_NEAR=proxy
# puts the 0 ms runs through the same proxy at no delay.
proxy() {
	URLS[$1]=$EP
	[ "$1" = 0 ] && [ "${FAR_NEAR:-gateway}" != proxy ] && return
	rm -f "$W/proxy.port"
	if [ "$PROXY_KIND" = c ]; then
		"$W/delayproxy" --upstream "${EP#http://}" --delay "$1" \
			${FAR_HANDSHAKE:+--handshake} \
			--port-file "$W/proxy.port" >/dev/null 2>&1 &
	else
		python3 "$TOP/tests/faultproxy.py" --upstream "$EP" --rate 0 \
			--latency "$1" --log /dev/null \
			--port-file "$W/proxy.port" \
			--lifetime 7200 >/dev/null 2>&1 &
	fi
	PIDS[$1]=$!
	for _ in $(seq 100); do
		[ -s "$W/proxy.port" ] && break
		sleep 0.1
	done
	URLS[$1]="http://127.0.0.1:$(cat "$W/proxy.port")"
}

# s3cmd_cfg URL: s3cmd's configuration for URL (path style, SigV4)
s3cmd_cfg() {
	cat >"$W/s3cmd.cfg" <<EOF
[default]
access_key = $AWS_ACCESS_KEY_ID
secret_key = $AWS_SECRET_ACCESS_KEY
host_base = ${1#http://}
host_bucket = ${1#http://}
use_https = False
signature_v2 = False
bucket_location = us-east-1
EOF
}

# cmd TOOL SRC DST: sets CMD, TOOL's copy of SRC to DST through $URL
cmd() {
	local s=${2/#s3:\/\//X:} d=${3/#s3:\/\//X:}
	case $1 in
	ferry) CMD=("$W/ferry" sync "$2" "$3" --endpoint-url "$URL" --json) ;;
	ferry-j16) CMD=("$W/ferry" sync "$2" "$3" --endpoint-url "$URL" -q
		-j 16) ;;
	ferry-base) CMD=("$W/ferry-base" sync "$2" "$3" --endpoint-url "$URL"
		-q) ;;
	rclone) CMD=(rclone copy "$s" "$d" --s3-endpoint "$URL"
		--transfers 64 --checkers 64) ;;
	aws) CMD=(env "AWS_CONFIG_FILE=$W/aws.cfg" /usr/bin/aws
		--endpoint-url "$URL" s3 sync "$2" "$3" --only-show-errors) ;;
	s3cmd)
		s3cmd_cfg "$URL"
		# a trailing slash: the folder's contents, not the folder
		CMD=(s3cmd -c "$W/s3cmd.cfg" sync --no-progress --quiet
			"${2%/}/" "${3%/}/")
		;;
	*) die "unknown tool $1" ;;
	esac
}

# timed TOOL OP MS RUN: one run, its wall seconds appended to the
# results; ferry's last concurrency event kept aside
timed() {
	local tool=$1 op=$2 ms=$3 run=$4 src dst t0 t1 rc n
	case $op in
	push) src=$W/data dst=s3://$B/$tool-$ms-$run ;;
	pull) src=s3://$B/seed dst=$W/pull/$tool-$ms-$run ;;
	mirror) src=s3://$B/seed dst=s3://$B/m-$tool-$ms-$run ;;
	esac
	URL=${URLS[$ms]}
	cmd "$tool" "$src" "$dst"
	export FERRY_STATE_DIR="$W/state/$tool-$op-$ms-$run"
	t0=$(date +%s.%N)
	"${CMD[@]}" >"$W/out" 2>"$W/err"
	rc=$?
	t1=$(date +%s.%N)
	[ $rc = 0 ] || die "$tool $op at $ms ms failed: $(tail -n 3 "$W/err")"
	if [ "$op" = pull ]; then
		n=$(find "$dst" -type f | wc -l)
		rm -rf "$dst"
	else
		n=$(rclone lsf -R --files-only "X:${dst#s3://}" \
			--s3-endpoint "$EP" | wc -l)
		# large objects would fill the memstore gateway: untimed
		[ "$SET" = large ] && rclone purge "X:${dst#s3://}" \
			--s3-endpoint "$EP" >/dev/null 2>&1
	fi
	[ "$n" = "$FILES" ] || die "$tool's $op at $ms ms: $n files"
	echo "$tool $op $ms $(echo "$t1 - $t0" | bc)" >>"$W/times"
	[ "$tool" = ferry ] && grep '"type":"concurrency"' "$W/out" |
		tail -n 1 | sed "s/^/$op $ms /" >>"$W/decisions"
	return 0
}

: >"$W/times"
: >"$W/decisions"
for ms in $LATS; do
	proxy "$ms"
done
echo "before: $(uptime)"
for run in $(seq "$RUNS"); do
	# a rotated order, so that no tool always runs first
	# shellcheck disable=SC2086 # the words of the list
	set -- $TOOLS
	for _ in $(seq $(((run - 1) % $#))); do
		set -- "${@:2}" "$1"
	done
	for tool in "$@"; do
		for op in $OPS; do
			for ms in $LATS; do
				timed "$tool" "$op" "$ms" "$run"
			done
		done
	done
done
echo "after: $(uptime)"

python3 - "$W/times" "$W/decisions" "$LATS" "$TOOLS" "$OPS" <<'EOF'
import statistics, sys
times = {}
lats, tools, ops = sys.argv[3].split(), sys.argv[4].split(), sys.argv[5].split()
for l in open(sys.argv[1]):
    tool, op, ms, s = l.split()
    times.setdefault((tool, op, ms), []).append(float(s))
med = {k: statistics.median(v) for k, v in times.items()}
cols = [(op, ms) for op in ops for ms in lats]
print("| tool | " + " | ".join("%s, %d ms RTT" % (op, 2 * int(ms))
                                 for op, ms in cols) + " |")
print("|---|" + "---|" * len(cols))
for t in tools:
    print("| %s | " % t + " | ".join(
        "%.2f s" % med[(t, op, ms)] if (t, op, ms) in med else ""
        for op, ms in cols) + " |")
print()
for op in ops:
    near = med.get(("ferry", op, lats[0]))
    if near is None:
        continue
    print("%s: ferry far / near: " % op + ", ".join(
        "%d ms %.2fx" % (2 * int(ms), med[("ferry", op, ms)] / near)
        for ms in lats[1:]) + "; peer / ferry: " + ", ".join(
        "%s at %d ms %.2fx" % (t, 2 * int(ms),
                               med[(t, op, ms)] / med[("ferry", op, ms)])
        for t in tools if t != "ferry" for ms in lats
        if (t, op, ms) in med))
print("\nferry's last decision in each run (op, ms each way, event):")
for l in open(sys.argv[2]):
    print("    " + l.rstrip())
EOF
