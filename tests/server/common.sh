# shellcheck shell=bash disable=SC2154 # prog and PYTHON: set by the script
# common.sh - what tests/server/s3server and tests/server/swiftserver share.
# Sourced; the script defines prog and PYTHON first, and the functions
# daemon_pid DIR NAME (the pid of its server NAME, if running) and
# log_of DIR NAME (that server's log file), which wait_for and stop_one
# call.

die() {
	echo "$prog: $*" >&2
	exit 1
}

note() {
	echo "$prog: $*" >&2
}

# Print N distinct TCP ports that are free on 127.0.0.1 right now.  They are
# chosen at random below the kernel's ephemeral range, so that neither
# outgoing connections nor a second test run are likely to grab them before
# the daemons bind them.
free_ports() {
	"$PYTHON" - "$1" <<'EOF'
import random, socket, sys
want = int(sys.argv[1])
lo_eph = 32768
try:
    with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
        lo_eph = int(f.read().split()[0])
except OSError:
    pass
hi = min(lo_eph, 32768) - 1
lo = 10000 if hi > 12000 else 1025
found = []
for _ in range(1000):
    if len(found) == want:
        break
    p = random.randint(lo, hi)
    if p in found or 6800 <= p <= 7300:  # 6800-7300: where OSDs bind
        continue
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        s.bind(("127.0.0.1", p))
        found.append(p)
    except OSError:
        pass
    finally:
        s.close()
if len(found) != want:
    sys.exit("no free ports found")
print(" ".join(map(str, found)))
EOF
}

# Show the end of a log file to explain a failure.
show_log() {
	local f=$1
	if [ -s "$f" ]; then
		echo "---- last lines of $f ----" >&2
		tail -n 30 "$f" >&2
		echo "----" >&2
	else
		echo "($f is empty or missing)" >&2
	fi
}

# wait_for DIR SECONDS WHAT DAEMONS COMMAND...: retry COMMAND every 0.25 s
# until it succeeds.  Fail after SECONDS, or once one of DAEMONS (names for
# daemon_pid) of the server in DIR has not been running for 2 s (radosgw
# writes its pid file only some moments after it forked), and show the
# relevant logs.
wait_for() {
	local d=$1 secs=$2 what=$3 daemons=$4 deadline name gone=0 missing
	shift 4
	deadline=$((SECONDS + secs))
	until "$@" >/dev/null 2>"$d/log/last-try.log"; do
		missing=""
		for name in $daemons; do
			daemon_pid "$d" "$name" >/dev/null || missing="$missing $name"
		done
		if [ -z "$missing" ]; then
			gone=0
		elif [ "$gone" -lt 8 ]; then
			gone=$((gone + 1))
		else
			for name in $missing; do
				note "$name exited while waiting for $what"
				show_log "$(log_of "$d" "$name")"
			done
			return 1
		fi
		if [ "$SECONDS" -ge "$deadline" ]; then
			note "timed out after ${secs}s waiting for $what"
			for name in $daemons; do
				show_log "$(log_of "$d" "$name")"
			done
			if [ -s "$d/log/last-try.log" ]; then
				show_log "$d/log/last-try.log"
			fi
			return 1
		fi
		sleep 0.25
	done
}

# Succeeds if process $1 exists and has not exited.  An exited daemon's
# parent is init, which here (in a container, say) may take seconds to reap
# it; such a zombie counts as gone.
running() {
	local stat state
	read -r stat 2>/dev/null <"/proc/$1/stat" || return 1
	state=${stat##*) }
	state=${state%% *}
	[ -n "$state" ] && [ "$state" != Z ]
}

# stop_one DIR NAME SIGNAL: send SIGNAL to daemon NAME of the server in DIR
# and wait until it is gone, using SIGKILL if it is still alive after 5 s.
stop_one() {
	local d=$1 name=$2 sig=$3 pid i
	pid=$(daemon_pid "$d" "$name") || return 0
	kill "-$sig" "$pid" 2>/dev/null || true
	for i in $(seq 1 100); do
		running "$pid" || return 0
		if [ "$i" -eq 50 ]; then
			note "$name (pid $pid) did not stop within 5 s; killing it"
			kill -KILL "$pid" 2>/dev/null || true
		fi
		sleep 0.1
	done
	die "$name (pid $pid) is still alive"
}

# The server's endpoint recorded in DIR/env, if any.
endpoint_of() {
	sed -n 's/^export FERRY_TEST_ENDPOINT=//p' "$1/env" 2>/dev/null
}

# Succeeds if something answers HTTP at URL $1 (any status code).
http_answers() {
	local code
	code=$(curl -s --noproxy '*' -o /dev/null -m 3 -w '%{http_code}' "$1/") ||
		true
	[ -n "$code" ] && [ "$code" != 000 ]
}

# write_env DIR ENDPOINT SERVER LOG: DIR/env, the environment for tests
# (see tests/server/README), written last: its presence means "up".
# SERVER is FERRY_TEST_SERVER (ceph or swift), LOG the access log that
# count-requests reads.  Uses ACCESS1, SECRET1, ACCESS2 and SECRET2.
write_env() {
	local d=$1 ep=$2
	{
		echo "# Source this file to use the test S3 server in $d."
		# Settings of the developer's own that would get in the way.
		echo "unset AWS_PROFILE AWS_DEFAULT_PROFILE AWS_SESSION_TOKEN AWS_SECURITY_TOKEN AWS_CA_BUNDLE"
		# Keys are given: nothing may fall back to the instance metadata
		# service or a container endpoint, off loopback.
		echo "export AWS_EC2_METADATA_DISABLED=true"
		echo "unset AWS_EC2_METADATA_SERVICE_ENDPOINT AWS_CONTAINER_CREDENTIALS_FULL_URI AWS_CONTAINER_CREDENTIALS_RELATIVE_URI AWS_WEB_IDENTITY_TOKEN_FILE"
		# shellcheck disable=SC2016 # expanded when the file is sourced
		echo 'export NO_PROXY="127.0.0.1,localhost${NO_PROXY:+,$NO_PROXY}"'
		# shellcheck disable=SC2016
		echo 'export no_proxy="127.0.0.1,localhost${no_proxy:+,$no_proxy}"'
		printf 'export FERRY_TEST_SERVER=%s\n' "$3"
		printf 'export FERRY_TEST_ENDPOINT=%s\n' "$ep"
		printf 'export AWS_ENDPOINT_URL=%s\n' "$ep"
		printf 'export AWS_ACCESS_KEY_ID=%q\n' "$ACCESS1"
		printf 'export AWS_SECRET_ACCESS_KEY=%q\n' "$SECRET1"
		printf 'export AWS_REGION=us-east-1\n'
		printf 'export AWS_DEFAULT_REGION=us-east-1\n'
		printf 'export AWS_CONFIG_FILE=%q\n' "$d/aws-config"
		printf 'export AWS_SHARED_CREDENTIALS_FILE=%q\n' "$d/aws-credentials"
		printf 'export FERRY_TEST_ACCESS2=%q\n' "$ACCESS2"
		printf 'export FERRY_TEST_SECRET2=%q\n' "$SECRET2"
		printf 'export FERRY_TEST_LOG=%q\n' "$4"
		printf 'export FERRY_TEST_DIR=%q\n' "$d"
	} >"$d/env.tmp"
	mv "$d/env.tmp" "$d/env"
}
