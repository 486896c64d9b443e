#!/usr/bin/env bash
#
# bench/run.sh: ferry against its peers from Debian (rclone, aws s3 sync,
# s3cmd) and against plain curl (the raw HTTP ceiling), side by side on one
# local S3 server: a Ceph RADOS Gateway (bluestore) or OpenStack Swift with
# s3api, printing one markdown table.
# See bench/README for what each scenario and column means.
#
#   bash bench/run.sh                  # full scale, 3 runs per cell
#   BENCH_SCALE=small BENCH_RUNS=1 bash bench/run.sh    # smoke run (~5 min)
#   FERRY_BENCH_SERVER=swift bash bench/run.sh          # on Swift
#
# Environment (all optional):
#   FERRY_BENCH_SERVER  ceph (default: tests/server/s3server, bluestore) or
#                    swift (tests/server/swiftserver); on swift the
#                    defaults are BENCH_TOOLS="ferry rclone aws" and
#                    BENCH_SCENARIOS="S1 S2 S6 S7"
#   BENCH_SCALE      full (default) or small
#   BENCH_RUNS       runs per (scenario, tool); the table shows medians (3);
#                    BENCH_RUNS_S1 ... BENCH_RUNS_S8 override it per scenario
#   BENCH_JOBS       requests in flight for every tool that has a knob (16)
#   BENCH_FERRY_JOBS ferry's --jobs (BENCH_JOBS); "auto": none given, the
#                    controller of requests in flight decides
#   BENCH_TOOLS      which tools, from "ferry rclone aws s3cmd curl"
#   BENCH_SCENARIOS  which scenarios, from "S1 S2 S3 S4 S5 S6 S7 S8 S9"
#   BENCH_S1_FILES, BENCH_S1_DIRS, BENCH_S1_MIN, BENCH_S1_MAX
#                    the S1 tree (10000 files in 100 folders, 1K to 64K)
#   BENCH_CHANGE_PCT percent of files changed in S4 (1)
#   BENCH_BIG_SIZE   size of each large file in S5 and S7 (1G)
#   BENCH_S8_COUNTS  file counts for S8 ("20000 200000")
#   BENCH_S8_TOOLS   tools for S8 (BENCH_TOOLS less curl)
#   BENCH_S9_COUNTS  key counts for S9, each as a deep and a flat tree
#                    ("100000"; small: "2000")
#   BENCH_S9_DELAY   seconds the proxy holds each listing page in S9 (0.25)
#   BENCH_S9_TOOLS   tools for S9 (BENCH_S8_TOOLS)
#   BENCH_S9_SHAPES  which S9 trees ("deep flat")
#   BENCH_S9_OPS     which S9 runs ("push pull mirror")
#   BENCH_S9_SHARE   tools that sync with ferry's copies instead of
#                    making their own (""): they push to ferry's bucket and
#                    mirror it to ferry's mirror; each pulls into a copy
#                    (cp -a) of ferry's pulled folder, settled by one
#                    untimed pull of its own.  Only for tools that find an
#                    object another tool wrote unchanged: aws by size and
#                    date, s3cmd by size and MD5, rclone by size and the
#                    mtime ferry stores under rclone's name
#   BENCH_S9_DROP    0: leave S9's buckets in place (a gateway thrown away
#                    afterwards need not spend minutes deleting them) (1)
#   BENCH_S10_COUNTS empty files for S10, the scan against find ("1000000";
#                    small: "20000")
#   BENCH_S10_DRY    1: S10's push is a --dry-run to an empty prefix, so
#                    that the bucket need not hold the files first (the
#                    scan is the same; the listing is not measured); 0: a
#                    real unchanged push; default: 1 above 200000 files
#   BENCH_BLUESTORE  size of the gateway's sparse block file (40G)
#   BENCH_TIMEOUT    seconds before one tool run is killed (3600)
#   BENCH_OUT        the results file (bench/RESULTS.md); BENCH_APPEND=1
#                    adds this run's section at its end instead of
#                    replacing it
#   BENCH_TMPDIR     where the data, the gateway and the logs go (TMPDIR
#                    or /tmp); BENCH_KEEP=1 keeps that folder afterwards
#   FERRY            the ferry binary (./ferry, built with make if missing)
#
# Needs root to install missing tools with apt-get (else it says what to
# install and leaves those tools out).

# `make bench` runs this with sh: go on in bash.
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi

# The whole script is one compound command, read before it runs: editing
# this file during a run does not disturb that run.
{
set -u

TOP=$(cd "$(dirname "$0")/.." && pwd)
BENCH="$TOP/bench"
KIND=${FERRY_BENCH_SERVER:-ceph}
case $KIND in
ceph)
	SERVER="$TOP/tests/server/s3server"
	d_tools="ferry rclone aws s3cmd curl"
	d_scen="S1 S2 S3 S4 S5 S6 S7 S8 S9 S10"
	;;
swift)
	SERVER="$TOP/tests/server/swiftserver"
	d_tools="ferry rclone aws"
	d_scen="S1 S2 S6 S7"
	;;
*)
	echo "bench: FERRY_BENCH_SERVER must be ceph or swift" >&2
	exit 2
	;;
esac
COUNT="$TOP/tests/server/count-requests"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
GEN="$BENCH/gen.py"

SCALE=${BENCH_SCALE:-full}
RUNS=${BENCH_RUNS:-3}
JOBS=${BENCH_JOBS:-16}
FERRY_JOBS=${BENCH_FERRY_JOBS:-$JOBS}
if [ "$FERRY_JOBS" = auto ]; then
	FERRY_JOBS_OPT=()
else
	FERRY_JOBS_OPT=(--jobs "$FERRY_JOBS")
fi
TOOLS=${BENCH_TOOLS:-$d_tools}
SCENARIOS=${BENCH_SCENARIOS:-$d_scen}
BLUESTORE=${BENCH_BLUESTORE:-40G}
TIMEOUT=${BENCH_TIMEOUT:-3600}
OUT=${BENCH_OUT:-$BENCH/RESULTS.md}
case $SCALE in
small)
	d_files=500 d_dirs=10 d_big=64M d_s8="2000" d_s9="2000"
	;;
full)
	d_files=10000 d_dirs=100 d_big=1G d_s8="20000 200000" d_s9="100000"
	;;
*)
	echo "bench: BENCH_SCALE must be small or full" >&2
	exit 2
	;;
esac
S1_FILES=${BENCH_S1_FILES:-$d_files}
S1_DIRS=${BENCH_S1_DIRS:-$d_dirs}
S1_MIN=${BENCH_S1_MIN:-1K}
S1_MAX=${BENCH_S1_MAX:-64K}
CHANGE_PCT=${BENCH_CHANGE_PCT:-1}
BIG_SIZE=${BENCH_BIG_SIZE:-$d_big}
S8_COUNTS=${BENCH_S8_COUNTS:-$d_s8}
S8_TOOLS=${BENCH_S8_TOOLS:-$(echo "$TOOLS" | sed 's/\bcurl\b//')}

say() { printf '%s bench: %s\n' "$(date +%T)" "$*" >&2; }
die() {
	say "$*"
	exit 1
}
has() { case " $2 " in *" $1 "*) return 0 ;; esac; return 1; }
want_scen() { has "$1" "$SCENARIOS"; }
want_tool() { has "$1" "$TOOLS"; }
# runs_of SCEN: the run numbers for scenario SCEN (S1 ... S8)
runs_of() {
	local v="BENCH_RUNS_$1"
	seq 1 "${!v:-$RUNS}"
}

# --- what the tools need --------------------------------------------------

# tool -> Debian package and the program it gives
pkg_of() {
	case $1 in
	rclone) echo rclone ;; aws) echo awscli ;; s3cmd) echo s3cmd ;;
	curl) echo curl ;;
	esac
}
need_pkgs() {
	local p missing=""
	for p in "$@"; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
			grep -q 'install ok installed' || missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	if [ "$(id -u)" -ne 0 ]; then
		say "missing packages:$missing; install them with:"
		say "  sudo apt-get install -y --no-install-recommends$missing"
		return 1
	fi
	say "installing:$missing"
	export DEBIAN_FRONTEND=noninteractive
	# shellcheck disable=SC2086
	apt-get update -qq &&
		apt-get install -y -qq --no-install-recommends $missing >/dev/null
}

if [ "$KIND" = swift ]; then
	# memcached and eatmydata as in the tests (tests/deps.sh)
	server_pkgs="swift-proxy swift-account swift-container swift-object memcached eatmydata"
else
	server_pkgs="ceph-mon ceph-osd radosgw uuid-runtime"
fi
# shellcheck disable=SC2086
need_pkgs time python3 openssl $server_pkgs curl awscli ||
	die "GNU time, python3, openssl, the server, curl and awscli are required"
tools_ok=""
for t in $TOOLS; do
	case $t in
	ferry) tools_ok="$tools_ok ferry" ;;
	rclone | aws | s3cmd | curl)
		if need_pkgs "$(pkg_of "$t")"; then
			tools_ok="$tools_ok $t"
		else
			say "leaving $t out"
		fi
		;;
	*) die "unknown tool $t (ferry rclone aws s3cmd curl)" ;;
	esac
done
TOOLS=${tools_ok# }
# rclone also creates and checks the buckets.
need_pkgs rclone || die "rclone is needed to create and check buckets"

if [ -z "${FERRY:-}" ]; then
	FERRY="$TOP/ferry"
	[ -x "$FERRY" ] || make -C "$TOP" ferry >&2 || die "cannot build ferry"
fi
[ -x "$FERRY" ] || die "no ferry binary at $FERRY"

# --- work folder, gateway ---------------------------------------------------

W=$(mktemp -d "${BENCH_TMPDIR:-${TMPDIR:-/tmp}}/ferry-bench.XXXXXX") ||
	die "mktemp failed"
D="$W/server"
cleanup() {
	"$SERVER" stop "$D" --purge >/dev/null 2>&1
	if [ "${BENCH_KEEP:-0}" = 1 ]; then
		say "kept $W"
	else
		rm -rf "$W"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir -p "$W/bin" "$W/data" "$W/logs" "$W/cfg"

# A copy of ferry, so that a rebuild in the tree during the run changes
# nothing.
cp "$FERRY" "$W/bin/ferry" || die "cannot copy $FERRY"
FERRY_BIN="$W/bin/ferry"
FERRY_VERSION=$("$FERRY_BIN" --version 2>&1 | head -n 1)
FERRY_COMMIT=$(git -C "$TOP" rev-parse --short HEAD 2>/dev/null || echo unknown)
[ -n "$(git -C "$TOP" status --porcelain 2>/dev/null)" ] &&
	FERRY_COMMIT="$FERRY_COMMIT (with uncommitted changes)"

if [ "$KIND" = swift ]; then
	say "starting Swift in $D"
	"$SERVER" start "$D" >"$W/logs/server-start.log" 2>&1
else
	say "starting the gateway (bluestore $BLUESTORE) in $D"
	"$SERVER" start "$D" --bluestore "$BLUESTORE" >"$W/logs/server-start.log" 2>&1
fi || { cat "$W/logs/server-start.log" >&2; die "the server did not start"; }
# shellcheck disable=SC1091
. "$D/env"
EP=$FERRY_TEST_ENDPOINT
LOG=$FERRY_TEST_LOG
export FERRY_STATE_DIR="$W/ferry-state"

# rclone: one remote "X" from the environment, no config file.
: >"$W/cfg/rclone.conf"
export RCLONE_CONFIG="$W/cfg/rclone.conf"
# rclone knows no Swift s3api provider: Other.
[ "$KIND" = swift ] && provider=Other || provider=Ceph
export RCLONE_CONFIG_X_TYPE=s3 RCLONE_CONFIG_X_PROVIDER=$provider \
	RCLONE_CONFIG_X_ENDPOINT="$EP" \
	RCLONE_CONFIG_X_ACCESS_KEY_ID="$AWS_ACCESS_KEY_ID" \
	RCLONE_CONFIG_X_SECRET_ACCESS_KEY="$AWS_SECRET_ACCESS_KEY" \
	RCLONE_CONFIG_X_REGION=us-east-1 RCLONE_CONFIG_X_FORCE_PATH_STYLE=true
unset AWS_CA_BUNDLE

# aws: path style and J requests in flight.
cat >"$W/cfg/aws.cfg" <<EOF
[default]
region = us-east-1
s3 =
    addressing_style = path
    max_concurrent_requests = $JOBS
EOF

# s3cmd: path style on plain HTTP, SigV4.
cat >"$W/cfg/s3cmd.cfg" <<EOF
[default]
access_key = $AWS_ACCESS_KEY_ID
secret_key = $AWS_SECRET_ACCESS_KEY
host_base = ${EP#http://}
host_bucket = ${EP#http://}
use_https = False
signature_v2 = False
bucket_location = us-east-1
EOF

# --- measuring --------------------------------------------------------------

RES="$W/results.tsv"
SCEN="$W/scenarios.tsv"
CMDS="$W/commands.tsv"
: >"$RES"
: >"$SCEN"
: >"$CMDS"

scenario() { printf '%s\t%s\n' "$1" "$2" >>"$SCEN"; }

mkbucket() { rclone mkdir "X:$1" >>"$W/logs/setup.log" 2>&1; }

# Remove a bucket and its data at once (RADOS, not S3: no gc delay, and
# nothing in the request log).
# Not --bypass-gc: it deletes tail objects that a CopyObject shares with
# its source (refcounts ignored), leaving the source object's HEAD but a
# GET of NoSuchKey; the gateway's garbage collector (5 s) honours them.
# On Swift nothing: its deletes go key by key through the proxy (minutes
# for a tree, nothing measured); the buckets go with the server at the end.
dropbucket() {
	[ "$KIND" = swift ] && return 0
	radosgw-admin -c "$D/ceph.conf" bucket rm --bucket="$1" \
		--purge-objects >>"$W/logs/setup.log" 2>&1 ||
		say "could not remove bucket $1 (see $W/logs/setup.log)"
}

# The server's CPU clock ticks so far (user + system): the OSD's and the
# gateway's, or Swift's servers' and memcached's.
daemon_ticks() {
	local f p stats=() pids=("$D/run/osd.0.pid" "$D/run/client.rgw.a.pid")
	[ "$KIND" = swift ] && pids=("$D"/run/*.pid)
	for f in "${pids[@]}"; do
		read -r p <"$f" 2>/dev/null && stats+=("/proc/$p/stat")
	done
	[ "${#stats[@]}" -gt 0 ] || { echo 0; return; }
	awk '{ t += $14 + $15 } END { print t + 0 }' "${stats[@]}" 2>/dev/null
}

# settle SCEN TOOL RUN: the gateway's work left from the runs before (the garbage
# collector's deletions of a dropped bucket, BlueStore's deferred writes)
# is done before the clock starts, so that no tool pays for another's.
# Runs the garbage collector now (it honours shared tails, as the
# background one does), then waits, at most 60 s, until the server's
# daemons together have used under a tenth of a core for a second (Swift
# has no collector: only the wait).
settle() {
	local hz a b i calm=0 t0=$SECONDS
	[ "$KIND" = swift ] ||
		radosgw-admin -c "$D/ceph.conf" gc process --include-all \
			>>"$W/logs/setup.log" 2>&1
	hz=$(getconf CLK_TCK)
	a=$(daemon_ticks)
	for ((i = 0; i < 120 && calm < 2; i++)); do
		sleep 0.5
		b=$(daemon_ticks)
		if [ $((b - a)) -le $((hz / 20)) ]; then
			calm=$((calm + 1))
		else
			calm=0
		fi
		a=$b
	done
	if [ "$calm" -ge 2 ]; then
		echo "$* settled in $((SECONDS - t0)) s" >>"$W/logs/settle.log"
	else
		echo "$* still busy after $((SECONDS - t0)) s" >>"$W/logs/settle.log"
	fi
}

# timed SCEN TOOL RUN CMD...: run CMD under GNU time, counting the requests
# the gateway served meanwhile. Sets T_WALL T_USER T_SYS T_RSS T_RC T_REQ
# (8 counts: list get head put post delete other total) and T_OUT (its
# output, stdout and stderr).
timed() {
	local scen=$1 tool=$2 run=$3 start tf
	shift 3
	T_OUT="$W/logs/$scen-$tool-$run.log"
	tf="$W/logs/$scen-$tool-$run.time"
	if [ "$run" = 1 ]; then
		printf '%s\t%s\t%s\n' "$scen" "$tool" \
			"$(printf '%q ' "$@" | sed "s#$W#\$W#g")" >>"$CMDS"
	fi
	settle "$scen" "$tool" "$run"
	start=$("$COUNT" --lines "$LOG")
	/usr/bin/time -f '%e %U %S %M' -o "$tf" \
		timeout "$TIMEOUT" "$@" >"$T_OUT" 2>&1
	T_RC=$?
	read -r T_WALL T_USER T_SYS T_RSS < <(tail -n 1 "$tf")
	T_REQ=$("$COUNT" "$LOG" "$start" | awk '{ printf "%s\t", $2 }')
}

# record SCEN TOOL RUN NOTE: one line of results from the last timed call.
# A failing ferry that says a direction is "not available" is n/a.
record() {
	local note=$4
	if [ "$T_RC" -ne 0 ] && [ -z "$note" ]; then
		if [ "$2" = ferry ] && grep -q 'not available' "$T_OUT"; then
			note="n/a: $(grep -m1 'not available' "$T_OUT" | sed 's/^ferry: //')"
		else
			note="exit $T_RC: $(tail -n 1 "$T_OUT" | cut -c1-100 | tr '\t|' '  ')"
		fi
	fi
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s%s\n' "$1" "$2" "$3" \
		"$T_WALL" "$T_USER" "$T_SYS" "$T_RSS" "$T_RC" "$T_REQ" "$note" >>"$RES"
	say "$1 $2 run $3: ${T_WALL}s cpu $(echo "$T_USER + $T_SYS" | bc 2>/dev/null || echo "$T_USER+$T_SYS") rss ${T_RSS}KiB rc $T_RC $(echo "$T_REQ" | tr '\t' ' ') $note"
}

# The versions of the peers run, comma-separated.
peer_versions() {
	local t v out=""
	for t in $TOOLS; do
		case $t in
		rclone) v=$(rclone version 2>/dev/null | head -n 1) ;;
		aws) v=$(/usr/bin/aws --version 2>&1 | cut -d' ' -f1) ;;
		s3cmd) v=$(s3cmd --version 2>/dev/null) ;;
		curl) v=$(curl --version | head -n 1 | cut -d' ' -f1-2) ;;
		*) continue ;;
		esac
		out="${out:+$out, }${v:-$t (version unknown)}"
	done
	printf '%s' "$out"
}

# Tools in a different order each run, so that none always goes first.
rotated() { # RUN LIST...
	local r=$1 n i
	shift
	local a=("$@")
	n=${#a[@]}
	[ "$n" -gt 0 ] || return 0
	for ((i = 0; i < n; i++)); do
		printf '%s ' "${a[$(((i + r) % n))]}"
	done
}

# --- the commands for each tool ----------------------------------------------

AWS=(env "AWS_CONFIG_FILE=$W/cfg/aws.cfg" /usr/bin/aws --endpoint-url "$EP")
S3CMD=(s3cmd -c "$W/cfg/s3cmd.cfg")
RCLONE_OPTS=(--transfers "$JOBS" --checkers "$JOBS" --fast-list)

# Sets CMD to copy $2 to $3 with tool $1, deleting extras: each argument is
# a local folder or s3://BUCKET/PREFIX.
sync_cmd() {
	local tool=$1 src=$2 dst=$3
	case $tool in
	ferry) CMD=("$FERRY_BIN" sync "$src" "$dst" "${FERRY_JOBS_OPT[@]}" --delete -q) ;;
	rclone)
		src=$(echo "$src" | sed 's#^s3://#X:#')
		dst=$(echo "$dst" | sed 's#^s3://#X:#')
		CMD=(rclone sync "$src" "$dst" "${RCLONE_OPTS[@]}")
		;;
	aws) CMD=("${AWS[@]}" s3 sync "$src" "$dst" --delete --only-show-errors) ;;
	s3cmd) CMD=("${S3CMD[@]}" sync --delete-removed --no-progress --quiet \
		"$src/" "$dst/") ;;
	esac
}

# curl, the ceiling: presigned URLs (made before the clock starts, with
# botocore) fed to one curl with J transfers in parallel on keep-alive
# connections. No listing, no signing, no hashing, no comparison.
CURL=(curl -sS --no-progress-meter --parallel --parallel-max "$JOBS"
	-H 'Expect:' --create-dirs -w '%{http_code}\n')
# curl_put DIR BUCKET CFG / curl_get DIR BUCKET LISTFILE CFG
curl_put_cfg() { "$PY" "$GEN" presign "$EP" "$2" data put "$1" "$3"; }
curl_get_cfg() { "$PY" "$GEN" presign-list "$EP" "$2" data "$3" "$1" "$4"; }
# The curl run's note: empty when every transfer answered 2xx.
curl_check() {
	local bad
	bad=$(grep -Ec '^[0-9]{3}$' "$T_OUT")
	bad=$((bad - $(grep -Ec '^2[0-9]{2}$' "$T_OUT")))
	[ "$bad" -eq 0 ] || echo "$bad transfers failed"
}

# --- checks ---------------------------------------------------------------

digest() { "$PY" "$GEN" digest "$1"; }
# check_remote DIR s3://B/P [--size-only]: empty when the prefix holds
# exactly DIR's files (MD5 against ETag, or sizes only).
check_remote() {
	local r
	r=$(echo "$2" | sed 's#^s3://#X:#')
	if rclone check "$1" "$r" --one-way=false --fast-list --checkers "$JOBS" \
		${3:-} >"$W/logs/check.log" 2>&1; then
		return 0
	fi
	echo "wrong result: $(grep -E 'differences found|ERROR' "$W/logs/check.log" |
		tail -n 1 | sed 's/.*NOTICE: //' | cut -c1-80)"
}
check_mirror() {
	if rclone check "X:${1#s3://}" "X:${2#s3://}" --fast-list \
		--checkers "$JOBS" >"$W/logs/check.log" 2>&1; then
		return 0
	fi
	echo "wrong result: $(grep -E 'differences found|ERROR' "$W/logs/check.log" |
		tail -n 1 | sed 's/.*NOTICE: //' | cut -c1-80)"
}
# check_local DIR WANT: empty when DIR's digest is WANT.
check_local() {
	local got
	got=$(digest "$1")
	[ "$got" = "$2" ] && return 0
	echo "wrong result: got ${got% *} files/bytes, want ${2% *}"
}

# --- data -------------------------------------------------------------------

TREE="$W/data/s1"
BIGDIR="$W/data/big"
S1_DIGEST="(not generated)"
if want_scen S1 || want_scen S2 || want_scen S3 || want_scen S4 ||
	want_scen S6 || want_scen S7; then
	say "generating $S1_FILES files of $S1_MIN to $S1_MAX in $S1_DIRS folders"
	"$PY" "$GEN" tree "$TREE" "$S1_FILES" "$S1_DIRS" "$S1_MIN" "$S1_MAX" 1 ||
		die "cannot generate the S1 tree"
	S1_DIGEST=$(digest "$TREE")
	say "S1 tree: $S1_DIGEST"
fi
CUR_DIGEST=$S1_DIGEST
if want_scen S5 || want_scen S7; then
	say "generating 2 files of $BIG_SIZE"
	"$PY" "$GEN" big "$BIGDIR" 2 "$BIG_SIZE" 1 || die "cannot generate big files"
fi

declare -A BASE # tool -> bucket holding TREE as last synced by that tool

# push_tree TOOL BUCKET: an untimed first push, for scenarios run without S1.
setup_push() {
	local tool=$1 b=$2
	mkbucket "$b"
	if [ "$tool" = curl ]; then
		curl_put_cfg "$TREE" "$b" "$W/cfg/curl.cfg"
		"${CURL[@]}" -K "$W/cfg/curl.cfg" >>"$W/logs/setup.log" 2>&1
	else
		sync_cmd "$tool" "$TREE" "s3://$b/data"
		"${CMD[@]}" >>"$W/logs/setup.log" 2>&1 ||
			say "setup push of $b with $tool failed"
	fi
	BASE[$tool]=$b
}

ensure_base() {
	[ -n "${BASE[$1]:-}" ] || setup_push "$1" "base-$1"
}

S1_DESC="first push: $S1_FILES files of $S1_MIN-$S1_MAX in $S1_DIRS folders"

# --- S1 first push ---------------------------------------------------------
if want_scen S1; then
	scenario S1 "$S1_DESC"
	for r in $(runs_of S1); do
		for tool in $(rotated "$r" $TOOLS); do
			b="s1-$tool-$r"
			mkbucket "$b"
			if [ "$tool" = curl ]; then
				curl_put_cfg "$TREE" "$b" "$W/cfg/curl.cfg"
				timed S1 curl "$r" "${CURL[@]}" -K "$W/cfg/curl.cfg"
				note=$(curl_check)
			else
				sync_cmd "$tool" "$TREE" "s3://$b/data"
				timed S1 "$tool" "$r" "${CMD[@]}"
				note=""
			fi
			[ "$T_RC" -ne 0 ] || [ -n "$note" ] ||
				note=$(check_remote "$TREE" "s3://$b/data")
			record S1 "$tool" "$r" "$note"
			BASE[$tool]=$b
		done
	done
fi

# S2-S4: resyncs of the tree into each tool's S1 bucket.
# resync SCEN: one run of every tool (but curl) against its base bucket.
resync() {
	local scen=$1 r=$2 tool note
	for tool in $(rotated "$r" $TOOLS); do
		[ "$tool" = curl ] && continue
		ensure_base "$tool"
		sync_cmd "$tool" "$TREE" "s3://${BASE[$tool]}/data"
		timed "$scen" "$tool" "$r" "${CMD[@]}"
		note=""
		[ "$T_RC" -ne 0 ] || note=$(check_remote "$TREE" "s3://${BASE[$tool]}/data")
		record "$scen" "$tool" "$r" "$note"
	done
}

if want_scen S2; then
	scenario S2 "unchanged resync of S1"
	for r in $(runs_of S2); do resync S2 "$r"; done
fi

if want_scen S3; then
	scenario S3 "touch-only resync: every mtime new, same bytes"
	for r in $(runs_of S3); do
		sleep 1.1 # a new second: mtimes newer than the last upload
		"$PY" "$GEN" touch "$TREE"
		resync S3 "$r"
	done
fi

if want_scen S4; then
	scenario S4 "$CHANGE_PCT% of the files rewritten (same sizes)"
	for r in $(runs_of S4); do
		sleep 1.1
		n=$("$PY" "$GEN" mutate "$TREE" "$CHANGE_PCT" "$r")
		say "S4 run $r: $n files changed"
		resync S4 "$r"
	done
	CUR_DIGEST=$(digest "$TREE")
fi

# --- S5 two large files, push then pull ---------------------------------------
if want_scen S5; then
	scenario S5a "push 2 files of $BIG_SIZE"
	scenario S5b "pull 2 files of $BIG_SIZE into an empty folder"
	BIG_DIGEST=$(digest "$BIGDIR")
	declare -A S5B
	for r in $(runs_of S5); do
		for tool in $(rotated "$r" $TOOLS); do
			b="s5-$tool-$r"
			mkbucket "$b"
			if [ "$tool" = curl ]; then
				curl_put_cfg "$BIGDIR" "$b" "$W/cfg/curl.cfg"
				timed S5a curl "$r" "${CURL[@]}" -K "$W/cfg/curl.cfg"
				note=$(curl_check)
			else
				sync_cmd "$tool" "$BIGDIR" "s3://$b/data"
				timed S5a "$tool" "$r" "${CMD[@]}"
				note=""
			fi
			[ "$T_RC" -ne 0 ] || [ -n "$note" ] ||
				note=$(check_remote "$BIGDIR" "s3://$b/data" --size-only)
			record S5a "$tool" "$r" "$note"
			[ -n "${S5B[$tool]:-}" ] && dropbucket "${S5B[$tool]}"
			S5B[$tool]=$b
		done
	done
	(cd "$BIGDIR" && find . -type f | sed 's#^\./##' | sort) >"$W/cfg/big.list"
	for r in $(runs_of S5); do
		for tool in $(rotated "$r" $TOOLS); do
			dest="$W/data/pull-$tool-$r"
			rm -rf "$dest"
			mkdir -p "$dest"
			if [ "$tool" = curl ]; then
				curl_get_cfg "$dest" "${S5B[$tool]}" "$W/cfg/big.list" "$W/cfg/curl.cfg"
				timed S5b curl "$r" "${CURL[@]}" -K "$W/cfg/curl.cfg"
				note=$(curl_check)
			else
				sync_cmd "$tool" "s3://${S5B[$tool]}/data" "$dest"
				timed S5b "$tool" "$r" "${CMD[@]}"
				note=""
			fi
			[ "$T_RC" -ne 0 ] || [ -n "$note" ] ||
				note=$(check_local "$dest" "$BIG_DIGEST")
			record S5b "$tool" "$r" "$note"
			rm -rf "$dest"
		done
	done
	for tool in "${!S5B[@]}"; do dropbucket "${S5B[$tool]}"; done
fi

# --- S6 pull of the tree into an empty folder -----------------------------------
if want_scen S6; then
	scenario S6 "pull of the S1 tree into an empty folder"
	(cd "$TREE" && find . -type f | sed 's#^\./##' | sort) >"$W/cfg/tree.list"
	for r in $(runs_of S6); do
		for tool in $(rotated "$r" $TOOLS); do
			ensure_base "$tool"
			dest="$W/data/pull-$tool-$r"
			rm -rf "$dest"
			mkdir -p "$dest"
			want=$CUR_DIGEST
			if [ "$tool" = curl ]; then
				# curl's bucket got the tree as first generated (S1).
				want=$S1_DIGEST
				curl_get_cfg "$dest" "${BASE[curl]}" "$W/cfg/tree.list" "$W/cfg/curl.cfg"
				timed S6 curl "$r" "${CURL[@]}" -K "$W/cfg/curl.cfg"
				note=$(curl_check)
			else
				sync_cmd "$tool" "s3://${BASE[$tool]}/data" "$dest"
				timed S6 "$tool" "$r" "${CMD[@]}"
				note=""
			fi
			[ "$T_RC" -ne 0 ] || [ -n "$note" ] ||
				note=$(check_local "$dest" "$want")
			record S6 "$tool" "$r" "$note"
		done
	done
	# Removed only now: ext4 without a journal (as here) skips inodes freed
	# in the last minute when it allocates new ones, and a pull right
	# after the removal of the last one's 10,000 files would pay for it.
	for r in $(runs_of S6); do
		for tool in $TOOLS; do rm -rf "$W/data/pull-$tool-$r"; done
	done
fi

# --- S7 bucket-to-bucket mirror ----------------------------------------------------
if want_scen S7; then
	scenario S7a "mirror to an empty bucket: the S1 tree plus 1 object of $BIG_SIZE"
	scenario S7b "unchanged mirror rerun"
	say "S7: filling the source bucket"
	mkbucket s7-source
	rclone copy "$TREE" X:s7-source/data "${RCLONE_OPTS[@]}" >>"$W/logs/setup.log" 2>&1
	# in parts whatever its size (a multipart source, as at 1G)
	rclone copyto "$BIGDIR/big-0.bin" X:s7-source/data/big-0.bin \
		--s3-upload-cutoff 5M "${RCLONE_OPTS[@]}" >>"$W/logs/setup.log" 2>&1
	declare -A S7B
	for r in $(runs_of S7); do
		for tool in $(rotated "$r" $TOOLS); do
			[ "$tool" = curl ] && continue
			b="s7-$tool-$r"
			mkbucket "$b"
			sync_cmd "$tool" s3://s7-source/data "s3://$b/data"
			timed S7a "$tool" "$r" "${CMD[@]}"
			note=""
			[ "$T_RC" -ne 0 ] || note=$(check_mirror s3://s7-source/data "s3://$b/data")
			record S7a "$tool" "$r" "$note"
			[ -n "${S7B[$tool]:-}" ] && dropbucket "${S7B[$tool]}"
			S7B[$tool]=$b
		done
	done
	for r in $(runs_of S7); do
		for tool in $(rotated "$r" $TOOLS); do
			[ "$tool" = curl ] && continue
			[ -n "${S7B[$tool]:-}" ] || continue
			sync_cmd "$tool" s3://s7-source/data "s3://${S7B[$tool]}/data"
			timed S7b "$tool" "$r" "${CMD[@]}"
			note=""
			[ "$T_RC" -ne 0 ] || note=$(check_mirror s3://s7-source/data "s3://${S7B[$tool]}/data")
			record S7b "$tool" "$r" "$note"
		done
	done
fi

# --- S8 scale: many 1 KiB files, unchanged resync -----------------------------------
if want_scen S8; then
	for n in $S8_COUNTS; do
		dirs=$((n / 200))
		[ "$dirs" -ge 1 ] || dirs=1
		t8="$W/data/s8-$n"
		say "S8: generating $n files of 1 KiB in $dirs folders"
		"$PY" "$GEN" tree "$t8" "$n" "$dirs" 1K 1K 8
		scenario "S8-$n-push" "first push of $n files of 1 KiB in $dirs folders (one run)"
		scenario "S8-$n" "unchanged resync of $n files of 1 KiB"
		for tool in $S8_TOOLS; do
			b="s8-$n-$tool"
			mkbucket "$b"
			sync_cmd "$tool" "$t8" "s3://$b/data"
			timed "S8-$n-push" "$tool" 1 "${CMD[@]}"
			record "S8-$n-push" "$tool" 1 ""
		done
		for r in $(runs_of S8); do
			for tool in $(rotated "$r" $S8_TOOLS); do
				sync_cmd "$tool" "$t8" "s3://s8-$n-$tool/data"
				timed "S8-$n" "$tool" "$r" "${CMD[@]}"
				record "S8-$n" "$tool" "$r" ""
			done
		done
		rm -rf "$t8"
	done
fi

# --- S10 scan: an unchanged push's folder scan against find ------------------------
# The time ferry -v gives its scan ("scanned N files, hashed 0, in X s")
# against find printing each file's size and mtime, on the same warm tree;
# the ratio is ferry's stat rate over find's (at least 0.5 wanted).
S10_COUNTS=${BENCH_S10_COUNTS:-$([ "$SCALE" = small ] && echo 20000 || echo 1000000)}
S10_DRY=${BENCH_S10_DRY:-}
if want_scen S10; then
	S10="$W/s10.tsv"
	: >"$S10"
	for n in $S10_COUNTS; do
		t10="$W/data/s10-$n"
		m10="$W/s10-manifest-$n"
		say "S10: generating $n empty files in $(((n + 999) / 1000)) folders"
		"$PY" -c '
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    if i % 1000 == 0:
        d = os.path.join(root, "d%05d" % (i // 1000))
        os.makedirs(d)
    os.close(os.open(os.path.join(d, "f%07d" % i), os.O_CREAT | os.O_WRONLY, 0o644))
' "$t10" "$n" || die "S10: cannot generate the tree"
		dry=${S10_DRY:-$([ "$n" -gt 200000 ] && echo 1 || echo 0)}
		if [ "$dry" = 1 ]; then
			S10_CMD=("$FERRY_BIN" sync "$t10" "s3://s10-$n/none" --dry-run -v --manifest "$m10")
		else
			S10_CMD=("$FERRY_BIN" sync "$t10" "s3://s10-$n/data" -v --manifest "$m10")
		fi
		mkbucket "s10-$n"
		say "S10: first push of $n files (it hashes them all)"
		"${S10_CMD[@]}" --jobs 64 >/dev/null 2>"$W/logs/S10-$n-first.log" ||
			say "S10: the first push exited $? (see $W/logs/S10-$n-first.log)"
		printf 'S10-%s\tferry\t%s\n' "$n" \
			"$(printf '%q ' "${S10_CMD[@]}" | sed "s#$W#\$W#g")" >>"$CMDS"
		for r in $(runs_of S10); do
			/usr/bin/time -f %e -o "$W/logs/S10-find.time" \
				find "$t10" -printf '%s %T@\n' >/dev/null
			/usr/bin/time -f %e -o "$W/logs/S10-ferry.time" "${S10_CMD[@]}" \
				>/dev/null 2>"$W/logs/S10-$n-$r.log"
			rc=$?
			scan=$(sed -n 's/.*scanned \([0-9]*\) files, hashed \([0-9]*\), in \([0-9.]*\) s.*/\1 \2 \3/p' \
				"$W/logs/S10-$n-$r.log")
			printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$n" "$r" \
				"$(tail -n 1 "$W/logs/S10-find.time")" "${scan:-- - -}" \
				"$(tail -n 1 "$W/logs/S10-ferry.time")" "$rc" "$dry" >>"$S10"
			say "S10 $n run $r: find $(tail -n 1 "$W/logs/S10-find.time")s, ferry scan ${scan:-?} (files, read, s), rc $rc"
		done
		rm -rf "$t10"
	done
	"$PY" -c '
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    n, r, find, scan, wall, rc, dry = line.rstrip("\n").split("\t")
    f, h, t = scan.split(" ")
    if rc == "0" and t != "-":
        rows.setdefault((int(n), dry), []).append(
            (float(find), float(t), int(h), float(wall)))
print("S10: the scan of a warm manifest in an unchanged push (dry: a"
      " --dry-run to an empty prefix, the same scan) against find printing"
      " each file\x27s size and mtime, on the same warm tree; medians.")
print()
print("| files | push | find (s) | ferry scan (s) | files read | scan rate / find rate | whole push (s) |")
print("|---:|---|---:|---:|---:|---:|---:|")
for n, dry in sorted(rows):
    x = rows[(n, dry)]
    m = lambda k: statistics.median(v[k] for v in x)
    print("| %d | %s | %.2f | %.2f | %d | %.2f | %.2f |" % (n,
        dry == "1" and "dry" or "unchanged", m(0), m(1),
        max(v[2] for v in x), m(0) / m(1), m(3)))
' "$S10" >"$W/s10.md"
	cat "$W/s10.md" >&2
fi

# --- S9 far-away listing: S8-style trees behind a proxy that holds each
# listing page, unchanged push, pull and mirror ------------------------------
# Each tool gets its own copies first, made by itself and untimed: a
# bucket pushed from the tree, a folder pulled from it, a bucket mirrored
# from it.  Then each unchanged rerun goes through
# tests/faultproxy.py --list-delay, which holds every ListObjectsV2 page
# for the delay before forwarding it (a server far away): a listing of P
# pages read as one stream takes at least P x delay.
if want_scen S9; then
	S9_COUNTS=${BENCH_S9_COUNTS:-$d_s9}
	S9_DELAY=${BENCH_S9_DELAY:-0.25}
	S9_TOOLS=${BENCH_S9_TOOLS:-$S8_TOOLS}
	S9_SHAPES=${BENCH_S9_SHAPES:-"deep flat"}
	S9_OPS=${BENCH_S9_OPS:-"push pull mirror"}
	S9_SHARE=${BENCH_S9_SHARE:-}
	S9_DROP=${BENCH_S9_DROP:-1}
	if [ -n "$S9_SHARE" ] && ! has ferry "$S9_TOOLS"; then
		die "BENCH_S9_SHARE needs ferry among the S9 tools"
	fi
	rm -f "$W/cfg/s9.port"
	"$PY" "$TOP/tests/faultproxy.py" --upstream "$EP" --rate 0 \
		--list-delay "$S9_DELAY" --lifetime 86400 --port-file "$W/cfg/s9.port" \
		--log "$W/logs/s9-proxy.log" >/dev/null 2>"$W/logs/s9-proxy.err" &
	S9_PROXY=$!
	for _ in $(seq 100); do [ -s "$W/cfg/s9.port" ] && break; sleep 0.1; done
	PX="http://127.0.0.1:$(cat "$W/cfg/s9.port" 2>/dev/null)"
	sed "s#${EP#http://}#${PX#http://}#" "$W/cfg/s3cmd.cfg" >"$W/cfg/s3cmd-s9.cfg"
	# s9_cmd TOOL SRC DST: sync_cmd's CMD, through the proxy
	s9_cmd() {
		sync_cmd "$@"
		CMD=("${CMD[@]/#"$EP"/"$PX"}")
		CMD=("${CMD[@]/#"$W/cfg/s3cmd.cfg"/"$W/cfg/s3cmd-s9.cfg"}")
		case $1 in
		ferry) CMD+=(--endpoint-url "$PX") ;;
		rclone) CMD=(env "RCLONE_CONFIG_X_ENDPOINT=$PX" "${CMD[@]}") ;;
		esac
	}
	for n in $S9_COUNTS; do
		pages=$(((n + 999) / 1000))
		one=$(echo "$pages * $S9_DELAY" | bc)
		for shape in $S9_SHAPES; do
			dirs=1
			[ "$shape" = deep ] && dirs=$((n / 200 > 1 ? n / 200 : 1))
			t9="$W/data/s9-$shape-$n"
			say "S9: generating $n files of 1 KiB in $dirs folders"
			"$PY" "$GEN" tree "$t9" "$n" "$dirs" 1K 1K 9
			sc="S9-$shape-$n"
			has push "$S9_OPS" && scenario "$sc-push" "unchanged push, $n keys in $dirs folders, ${S9_DELAY} s a listing page (one stream: $pages pages, $one s)"
			has pull "$S9_OPS" && scenario "$sc-pull" "unchanged pull of the same (one stream: $one s)"
			has mirror "$S9_OPS" && scenario "$sc-mirror" "unchanged mirror of the same (one stream of each side: $one s)"
			for tool in $S9_TOOLS; do
				has "$tool" "$S9_SHARE" && continue
				b="s9-$shape-$n-$tool"
				mkbucket "$b"
				mkbucket "$b-m"
				# through the proxy too: ferry's manifest is that of
				# the endpoint it syncs with
				say "S9: $tool makes its copies of the $shape tree"
				s9_cmd "$tool" "$t9" "s3://$b/data"
				"${CMD[@]}" >>"$W/logs/setup.log" 2>&1
				if has pull "$S9_OPS"; then
					s9_cmd "$tool" "s3://$b/data" "$W/data/$b-pull"
					"${CMD[@]}" >>"$W/logs/setup.log" 2>&1
				fi
				if has mirror "$S9_OPS"; then
					s9_cmd "$tool" "s3://$b/data" "s3://$b-m/data"
					"${CMD[@]}" >>"$W/logs/setup.log" 2>&1
				fi
			done
			# a sharing tool's pulled folder: ferry's, copied, then
			# made its own by one pull of its own (aws, for one, takes
			# a file as pulled only when its mtime is the object's date)
			for tool in $S9_SHARE; do
				has pull "$S9_OPS" && has "$tool" "$S9_TOOLS" || continue
				say "S9: $tool settles a copy of ferry's pulled $shape folder"
				cp -a "$W/data/s9-$shape-$n-ferry-pull" "$W/data/s9-$shape-$n-$tool-pull"
				sync_cmd "$tool" "s3://s9-$shape-$n-ferry/data" "$W/data/s9-$shape-$n-$tool-pull"
				"${CMD[@]}" >>"$W/logs/setup.log" 2>&1
			done
			for r in $(runs_of S9); do
				for tool in $(rotated "$r" $S9_TOOLS); do
					b="s9-$shape-$n-$tool"
					lp="$W/data/$b-pull"
					has "$tool" "$S9_SHARE" && b="s9-$shape-$n-ferry"
					if has push "$S9_OPS"; then
						s9_cmd "$tool" "$t9" "s3://$b/data"
						timed "$sc-push" "$tool" "$r" "${CMD[@]}"
						record "$sc-push" "$tool" "$r" ""
					fi
					if has pull "$S9_OPS"; then
						s9_cmd "$tool" "s3://$b/data" "$lp"
						timed "$sc-pull" "$tool" "$r" "${CMD[@]}"
						record "$sc-pull" "$tool" "$r" ""
					fi
					if has mirror "$S9_OPS"; then
						s9_cmd "$tool" "s3://$b/data" "s3://$b-m/data"
						timed "$sc-mirror" "$tool" "$r" "${CMD[@]}"
						record "$sc-mirror" "$tool" "$r" ""
					fi
				done
			done
			for tool in $S9_TOOLS; do
				rm -rf "$W/data/s9-$shape-$n-$tool-pull"
				[ "$S9_DROP" = 0 ] && continue
				dropbucket "s9-$shape-$n-$tool"
				dropbucket "s9-$shape-$n-$tool-m"
			done
			rm -rf "$t9"
		done
	done
	kill "$S9_PROXY" 2>/dev/null
	wait "$S9_PROXY" 2>/dev/null
fi

# --- report ----------------------------------------------------------------------------
TABLE=$("$PY" "$BENCH/report.py" "$SCEN" "$RES")
echo
echo "$TABLE"

{
	runs_note="$RUNS run(s) per cell"
	for sc in S1 S2 S3 S4 S5 S6 S7 S8 S9; do
		v="BENCH_RUNS_$sc"
		[ -n "${!v:-}" ] && runs_note="$runs_note, $sc: ${!v}"
	done
	echo "## $(date -u '+%Y-%m-%d %H:%M UTC'): scale $SCALE, $runs_note, $JOBS jobs (ferry: $FERRY_JOBS)"
	echo
	echo "- machine: $(nproc) cores, $(grep -m1 '^model name' /proc/cpuinfo | sed 's/.*: //'), $(awk '/MemTotal/ { printf "%.0f GiB RAM", $2 / 1048576 }' /proc/meminfo); load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
	if [ "$KIND" = swift ]; then
		echo "- server: OpenStack Swift $(dpkg-query -W -f='${Version}' swift-proxy 2>/dev/null) with s3api, all-in-one on 127.0.0.1 (tests/server/swiftserver)"
	else
		echo "- gateway: Ceph $(ceph --version 2>/dev/null | awk '{ print $3 }') radosgw, bluestore $BLUESTORE, on 127.0.0.1 (tests/server/s3server)"
	fi
	echo "- ferry: $FERRY_VERSION, commit $FERRY_COMMIT"
	echo "- peers: $(peer_versions)"
	echo "- data: S1 tree $S1_FILES files of $S1_MIN-$S1_MAX in $S1_DIRS folders (digest: $S1_DIGEST); large files $BIG_SIZE; S8 counts: $S8_COUNTS; S9 counts: ${S9_COUNTS:-none}, ${S9_DELAY:-0} s a listing page"
	echo "- scenarios run: $SCENARIOS; tools: $TOOLS"
	echo
	echo "Medians over the runs that succeeded. CPU = user + sys of the client."
	echo "Requests as counted at the gateway. \"ferry vs\": ferry's median wall"
	echo "time over the best peer's (below 1: ferry is faster)."
	echo
	echo "$TABLE"
	echo
	[ -s "$W/s10.md" ] && { cat "$W/s10.md"; echo; }
	echo "<details><summary>Exact commands (run 1; \$W is the work folder)</summary>"
	echo
	awk -F'\t' '{ printf "- %s %s: `%s`\n", $1, $2, $3 }' "$CMDS"
	echo
	echo "</details>"
	echo
} >"$W/section.md"

if [ "${BENCH_APPEND:-0}" = 1 ] && [ -f "$OUT" ]; then
	{ echo; cat "$W/section.md"; } >>"$OUT"
else
	{
		echo "# ferry benchmark results"
		echo
		echo "Written by bench/run.sh (see bench/README). Numbers from a"
		echo "shared machine are noisy: compare within one table, not across."
		echo
		cat "$W/section.md"
	} >"$OUT"
fi
say "results in $OUT"
exit 0
}
