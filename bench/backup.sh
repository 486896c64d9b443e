#!/bin/bash
#
# bench/backup.sh: what two common changes of a backed-up tree cost to
# push again, ferry beside rclone, on a fresh Ceph gateway
# (tests/server/s3server, bluestore):
#   (a) rename: a folder of FILES x SIZE (default 16 x 64M, 1 GiB) pushed,
#       then moved (mv) and pushed again: ferry --delete --track-renames,
#       rclone sync --track-renames;
#   (b) chmod: FILES small files (default 10,000 of 1 KiB) pushed, then
#       chmod -R and pushed again: ferry (a metadata-only copy of each),
#       rclone sync --metadata.
# For the second push of each: wall time, bytes the client sent (counted
# by a forwarder on loopback between the tool and the gateway, which
# both tools go through alike) and the requests the gateway served
# (tests/server/count-requests).  Median of RUNS runs, each on a fresh
# prefix.  Prints one line per tool and case.
#
#   bash bench/backup.sh [FERRY]         # FERRY: ./ferry
#   BENCH_RUNS=3 BENCH_RENAME_FILES=16 BENCH_RENAME_SIZE=64M \
#     BENCH_CHMOD_FILES=10000 bash bench/backup.sh
#
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
FERRY=${1:-$TOP/ferry}
RUNS=${BENCH_RUNS:-3}
NBIG=${BENCH_RENAME_FILES:-16}
BIGSZ=${BENCH_RENAME_SIZE:-64M}
NSMALL=${BENCH_CHMOD_FILES:-10000}
S=$TOP/tests/server/s3server
C=$TOP/tests/server/count-requests
W=$(mktemp -d "${TMPDIR:-/tmp}/ferry-backup.XXXXXX")
FWD=
trap '[ -n "$FWD" ] && kill "$FWD" 2>/dev/null; "$S" stop "$W/srv" --purge >/dev/null 2>&1; rm -rf "$W"' EXIT
"$S" start "$W/srv" --bluestore 8G >/dev/null 2>&1 || { echo start failed; exit 1; }
. "$W/srv/env"
export FERRY_STATE_DIR=$W/state

# a forwarder on loopback that counts the bytes clients send upstream,
# written to $W/fwd.count every 0.1 s
python3 - "${FERRY_TEST_ENDPOINT#http://}" "$W/fwd.port" "$W/fwd.count" <<'PY' &
import asyncio, sys
up_host, up_port = sys.argv[1].rsplit(":", 1)
sent = 0
async def pipe(r, w, count):
    global sent
    try:
        while True:
            b = await r.read(1 << 16)
            if not b:
                break
            if count:
                sent += len(b)
            w.write(b)
            await w.drain()
    except (ConnectionError, asyncio.IncompleteReadError):
        pass
    finally:
        w.close()
async def conn(cr, cw):
    ur, uw = await asyncio.open_connection(up_host, int(up_port))
    await asyncio.gather(pipe(cr, uw, True), pipe(ur, cw, False))
async def dump():
    while True:
        with open(sys.argv[3] + ".tmp", "w") as f:
            f.write("%d\n" % sent)
        import os
        os.replace(sys.argv[3] + ".tmp", sys.argv[3])
        await asyncio.sleep(0.1)
async def main():
    srv = await asyncio.start_server(conn, "127.0.0.1", 0)
    with open(sys.argv[2], "w") as f:
        f.write("%d\n" % srv.sockets[0].getsockname()[1])
    asyncio.ensure_future(dump())
    await srv.serve_forever()
asyncio.run(main())
PY
FWD=$!
for i in $(seq 100); do [ -s "$W/fwd.port" ] && break; sleep 0.1; done
EP=http://127.0.0.1:$(cat "$W/fwd.port")

export RCLONE_CONFIG_X_TYPE=s3 RCLONE_CONFIG_X_PROVIDER=Ceph \
	RCLONE_CONFIG_X_ENDPOINT=$EP \
	RCLONE_CONFIG_X_ACCESS_KEY_ID=$AWS_ACCESS_KEY_ID \
	RCLONE_CONFIG_X_SECRET_ACCESS_KEY=$AWS_SECRET_ACCESS_KEY \
	RCLONE_CONFIG_X_REGION=us-east-1 RCLONE_CONFIG_X_FORCE_PATH_STYLE=true
unset AWS_CA_BUNDLE
/usr/bin/aws --endpoint-url "$FERRY_TEST_ENDPOINT" s3 mb s3://bench >/dev/null

sent() {
	sleep 0.3
	cat "$W/fwd.count"
}
# measure OUT CMD...: CMD's wall seconds, bytes sent and requests served
# (kind count ...), as one line into OUT
measure() {
	local out=$1 s b t0 t1 rc
	shift
	s=$("$C" --lines "$FERRY_TEST_LOG")
	b=$(sent)
	t0=$(date +%s.%N)
	"$@" >"$W/cmd.out" 2>&1
	rc=$?
	t1=$(date +%s.%N)
	echo "$(echo "$t1 - $t0" | bc) $(($(sent) - b)) rc=$rc $("$C" "$FERRY_TEST_LOG" "$s" | awk '$2 != 0 { printf "%s=%s ", $1, $2 }')" >>"$out"
}
# the tool's sync of DIR to PREFIX, with the flags of the case
push() {
	local tool=$1 case=$2 dir=$3 prefix=$4
	if [ "$tool" = ferry ]; then
		"$FERRY" sync "$dir" "s3://bench/$prefix" --endpoint-url "$EP" \
			--delete --track-renames --jobs 16 -q
	elif [ "$case" = rename ]; then
		rclone sync --track-renames --transfers 16 --checkers 16 \
			"$dir" "X:bench/$prefix"
	else
		rclone sync --metadata --transfers 16 --checkers 16 \
			"$dir" "X:bench/$prefix"
	fi
}
median() {
	sort -n -k1,1 "$1" | sed -n "$(((RUNS + 1) / 2))p"
}

python3 "$TOP/bench/gen.py" big "$W/big" "$NBIG" "$BIGSZ" 1 >/dev/null
python3 "$TOP/bench/gen.py" tree "$W/small" "$NSMALL" 20 1K 1K 2 >/dev/null
for tool in ferry rclone; do
	for r in $(seq "$RUNS"); do
		# (a) a renamed folder
		rm -rf "$W/t"
		mkdir -p "$W/t"
		cp -r "$W/big" "$W/t/a"
		push $tool rename "$W/t" "$tool-rn-$r" >/dev/null 2>&1 || echo "# $tool: first push failed"
		mv "$W/t/a" "$W/t/b"
		measure "$W/$tool.rename" push $tool rename "$W/t" "$tool-rn-$r"
		/usr/bin/aws --endpoint-url "$FERRY_TEST_ENDPOINT" s3 rm --recursive \
			"s3://bench/$tool-rn-$r" >/dev/null
		# (b) chmod -R on small files
		rm -rf "$W/t"
		cp -r "$W/small" "$W/t"
		chmod -R u=rw,go=r "$W/t"
		find "$W/t" -type d -exec chmod 755 {} +
		push $tool chmod "$W/t" "$tool-ch-$r" >/dev/null 2>&1 || echo "# $tool: first push failed"
		find "$W/t" -type f -exec chmod 600 {} +
		measure "$W/$tool.chmod" push $tool chmod "$W/t" "$tool-ch-$r"
		/usr/bin/aws --endpoint-url "$FERRY_TEST_ENDPOINT" s3 rm --recursive \
			"s3://bench/$tool-ch-$r" >/dev/null
	done
done
printf '%-7s %-7s %8s %14s  %s\n' tool case wall_s bytes_sent "requests (median run by wall)"
for tool in ferry rclone; do
	for c in rename chmod; do
		set -- $(median "$W/$tool.$c")
		wall=$1 bytes=$2
		shift 2
		printf '%-7s %-7s %8.2f %14s  %s\n' $tool $c "$wall" "$bytes" "$*"
	done
	echo "# $tool all runs:"; for c in rename chmod; do sed "s/^/#   $c /" "$W/$tool.$c"; done
done
