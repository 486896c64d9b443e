# lib.sh: what the integration tests share.  Sourced by each t_*.sh, which
# runs with the test gateway's environment (tests/server/s3server's env).
# Output is TAP: "ok N - what" / "not ok N - what".

TOP=$(cd "$(dirname "$0")/../.." && pwd)
FERRY=${FERRY:-$TOP/ferry}
COUNT="$TOP/tests/server/count-requests"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/ferry-it.XXXXXX")
export FERRY_STATE_DIR="$WORK/state"
PROXY_PID=
PROXY=
trap 'stop_proxy; rm -rf "$WORK"' EXIT

# The suite reaches loopback only, by construction.  With no keys, ferry
# (like the AWS tools) asks the instance metadata service at
# 169.254.169.254 or a container endpoint: both are off here, and a test
# that wants one points it at its own loopback fake (with_imds below).
# Proxies of the developer's own are out too.  tests/integration/run.sh
# also runs the suite in a network namespace that has loopback alone.
export AWS_EC2_METADATA_DISABLED=true
unset AWS_EC2_METADATA_SERVICE_ENDPOINT AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE \
	AWS_CONTAINER_CREDENTIALS_FULL_URI AWS_CONTAINER_CREDENTIALS_RELATIVE_URI \
	AWS_CONTAINER_AUTHORIZATION_TOKEN AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE \
	AWS_WEB_IDENTITY_TOKEN_FILE AWS_ROLE_ARN AWS_ROLE_SESSION_NAME \
	AWS_ENDPOINT_URL_STS http_proxy https_proxy HTTP_PROXY HTTPS_PROXY \
	ALL_PROXY all_proxy

# loopback_url URL: succeeds when URL is http(s) to 127.0.0.0/8, [::1]
# or localhost, the only places a test may send a request.
loopback_url() {
	case "$1" in
	http://127.* | https://127.* | http://\[::1\]* | https://\[::1\]* | \
		http://localhost[:/]* | https://localhost[:/]*) return 0 ;;
	esac
	echo "# not a loopback URL, refused by lib.sh: $1" >&2
	return 1
}

# with_imds URL CMD...: CMD with the instance metadata service on and at
# URL, a fake of the test's own on loopback (anything else is refused).
with_imds() {
	local url=$1
	shift
	loopback_url "$url" || return 99
	(
		unset AWS_EC2_METADATA_DISABLED
		export AWS_EC2_METADATA_SERVICE_ENDPOINT="$url"
		"$@"
	)
}
_n=0
_fails=0

ok() {
	_n=$((_n + 1))
	echo "ok $_n - $*"
}

not_ok() {
	_n=$((_n + 1))
	_fails=$((_fails + 1))
	echo "not ok $_n - $*"
}

# need TOOL...: true when every TOOL is installed; else a failed check
# naming the first that is not (tests/deps.sh installs them all), so
# that the checks a missing tool would leave out do not pass unseen:
#     if need strace; then traced ...; fi
need() {
	local t
	for t in "$@"; do
		command -v "$t" >/dev/null 2>&1 && continue
		not_ok "$t is not installed (tests/deps.sh installs it)"
		return 1
	done
}

# skip_on SERVER REASON [COUNT]: on SERVER (FERRY_TEST_SERVER: ceph or
# swift), COUNT (default 1) TAP skips that name the server's limitation,
# and success; elsewhere it fails, so the caller goes on to its tests:
#     skip_on swift "tagging not implemented (501)" || check ...
# Only for what the server cannot do, never to hide a bug of ferry's.
skip_on() {
	local i
	[ "${FERRY_TEST_SERVER:-ceph}" = "$1" ] || return 1
	for i in $(seq "${3:-1}"); do
		_n=$((_n + 1))
		echo "ok $_n # skip $1: $2"
	done
}

# wait_line FILE SECONDS REGEX: waits (at most SECONDS) until FILE has a
# line matching the extended REGEX; fails when it has none by then.
wait_line() {
	local i
	for i in $(seq $(($2 * 10))); do
		grep -Eq -- "$3" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# check DESCRIPTION COMMAND...: passes when the command succeeds.
check() {
	_d=$1
	shift
	if "$@"; then ok "$_d"; else not_ok "$_d"; fi
}

# is GOT WANT DESCRIPTION
is() {
	if [ "$1" = "$2" ]; then ok "$3"; else not_ok "$3 (got '$1', want '$2')"; fi
}

# like TEXT REGEX DESCRIPTION
like() {
	if printf '%s' "$1" | grep -Eq -- "$2"; then ok "$3"; else
		not_ok "$3 (no /$2/ in: $(printf '%s' "$1" | head -c 300))"
	fi
}

# mib FULL LIGHT: a test file's size in MiB, FULL, or LIGHT when
# FERRY_TEST_LIGHT=1.  CI sets it for the sanitizer pass, which needs the
# same code paths (multipart included: LIGHT stays above the threshold),
# not the same amount of data.
# peak_rss FILE CMD...: runs CMD, writes its peak RSS in KiB to FILE, and
# returns CMD's exit status.
peak_rss() {
	local out=$1
	shift
	python3 -c '
import resource, subprocess, sys
rc = subprocess.run(sys.argv[2:]).returncode
open(sys.argv[1], "w").write("%d\n" % resource.getrusage(
    resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(rc)' "$out" "$@"
}

mib() {
	light "$@"
}

# light FULL LIGHT: FULL, or LIGHT when FERRY_TEST_LIGHT=1 (a count of
# changes, say: the sanitizer pass needs the paths, not the numbers)
light() {
	if [ "${FERRY_TEST_LIGHT:-0}" = 1 ]; then echo "$2"; else echo "$1"; fi
}

awscli() {
	/usr/bin/aws --endpoint-url "$FERRY_TEST_ENDPOINT" "$@"
}

# s3: a light client of our own (tests/integration/s3.py) for checks where
# the AWS CLI's seconds of start-up buy nothing.  It needs the standard
# library alone: -S skips site's search for packages (a third of the
# start-up).
s3() {
	python3 -S "$TOP/tests/integration/s3.py" "$@"
}

mkbucket() {
	s3 mb "$1"
}

# two_users ARGS...: ferry ARGS with a credentials file of two profiles,
# "one" (the test's user) and "two" (the gateway's second user), and no
# key in the environment.
two_users() {
	[ -f "$WORK/credentials2" ] || cat >"$WORK/credentials2" <<CRED
[one]
aws_access_key_id = $AWS_ACCESS_KEY_ID
aws_secret_access_key = $AWS_SECRET_ACCESS_KEY
[two]
aws_access_key_id = $FERRY_TEST_ACCESS2
aws_secret_access_key = $FERRY_TEST_SECRET2
CRED
	env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY \
		AWS_SHARED_CREDENTIALS_FILE="$WORK/credentials2" "$FERRY" "$@"
}

# mark: the position in the gateway's request log, for counting from.
mark() {
	"$COUNT" --lines "$FERRY_TEST_LOG"
}

# requests MARK KIND: how many requests of KIND the gateway saw since MARK.
requests() {
	"$COUNT" --settle "$FERRY_TEST_LOG" "$1" | awk -v k="$2" \
		'$1 == k { n = $2 } END { print n + 0 }'
}

# requests_not MARK KIND PATTERN: how many requests of KIND since MARK
# have a target that does not match PATTERN (a regular expression).
requests_not() {
	"$COUNT" --settle --dump "$FERRY_TEST_LOG" "$1" |
		awk -v k="$2" -v p="$3" '$1 == k && $3 !~ p { n++ } END { print n + 0 }'
}

# term PID: SIGTERM to PID (a watcher, say), and its exit status.  A run
# that never ends would hold it (and the script) for ever: 120 s on, a
# second SIGTERM cuts that run (exit 3), then SIGKILL.
term() {
	kill -TERM "$1"
	for _ in $(seq 1200); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$1" 2>/dev/null; then
		echo "# still running 120 s after SIGTERM: a second one"
		kill -TERM "$1"
		sleep 10
		kill -KILL "$1" 2>/dev/null
	fi
	wait "$1"
}

# between N LO HI: whether LO <= N <= HI.
between() {
	[ "$1" -ge "$2" ] && [ "$1" -le "$3" ]
}

# in_flight MARK PATTERN: the most requests whose target matches PATTERN
# (a regular expression) the gateway handled at once since MARK, from its
# access lines: each began at the time in brackets and took its latency,
# less 20 ms (times are to the millisecond, and a request is logged done
# a little after its client has the answer and may send the next).
in_flight() {
	"$COUNT" --dump "$FERRY_TEST_LOG" "$1" | python3 -c '
import datetime, re, sys
pat = re.compile(sys.argv[1])
ev = []
for l in sys.stdin:
    kind, method, target, status, start, latency = l.split()
    if not pat.search(target) or latency == "-":
        continue
    t = datetime.datetime.strptime(start, "%d/%b/%Y:%H:%M:%S.%f").timestamp()
    ev += [(t, 1), (t + max(float(latency) - 0.02, 0.001), -1)]
n = most = 0
for _, d in sorted(ev):
    n += d
    most = max(most, n)
print(most)' "$2"
}

# traced TRACE STRACE-OPTION... -- COMMAND...: COMMAND under strace -f,
# its calls written to TRACE.  LeakSanitizer cannot run under ptrace
# (SANITIZE=1 builds), so the traced run checks no leaks.
traced() {
	local trace=$1 opts=()
	shift
	while [ "$1" != -- ]; do
		opts+=("$1")
		shift
	done
	shift
	ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0} \
		strace -f -qq "${opts[@]}" -o "$trace" "$@"
}

# calls TRACE CALL: the lines of TRACE that begin with CALL (a pattern).
calls() {
	grep -c "^[0-9]* *$2" "$1"
}

# file_opens TRACE: files (not folders) opened relative to a folder's
# descriptor in an strace -e trace=openat log: ferry opens the files of a
# tree only that way, and nothing else that way.
file_opens() {
	grep 'openat(' "$1" | grep -v AT_FDCWD | grep -vc O_DIRECTORY
}

# pick FILE EXPR [ARG...]: EXPR, a Python generator over the lines L of
# FILE (parsed; ARGs in sys.argv[3:]), its values sorted and joined by
# spaces.
pick() {
	python3 -c '
import json, sys
L = [json.loads(l) for l in open(sys.argv[1])]
print(" ".join(sorted(str(x) for x in eval("(" + sys.argv[2] + ")"))))' \
		"$@"
}

# summary FILE FIELD: a field of the last summary line, e.g. "uploaded"
# or "requests.put".
summary() {
	grep '"type":"summary"' "$1" | tail -n 1 | python3 -c '
import json, sys
d = json.load(sys.stdin)
for k in sys.argv[1].split("."):
    d = d[k]
print(d)' "$2"
}

# json_valid FILE: whether FILE holds at least one line and each line is
# valid UTF-8, one JSON object, and valid against ferry's event schema
# (man/ferry-events.schema.json); says on stderr which line is not.
json_valid() {
	local py=python3
	"$py" -c 'import jsonschema' 2>/dev/null || py=/usr/bin/python3
	"$py" -c '
import json, sys
import jsonschema
schema = json.load(open(sys.argv[1]))
v = jsonschema.Draft202012Validator(schema)
n = 0
with open(sys.argv[2], "rb") as f:
    for n, raw in enumerate(f, 1):
        try:
            err = jsonschema.exceptions.best_match(
                v.iter_errors(json.loads(raw.decode("utf-8"))))
        except ValueError as e:
            err = e
        if err is not None:
            sys.stderr.write("# %s, line %d: %s\n# %s\n" % (sys.argv[2], n,
                str(err).splitlines()[0], raw[:300]))
            sys.exit(1)
sys.exit(0 if n > 0 else 1)' "$TOP/man/ferry-events.schema.json" "$1"
}

# port_file FILE: waits (at most 30 s) until a helper started in the
# background writes its port to FILE, and prints the port; non-zero and
# nothing printed when it does not.
port_file() {
	local i
	for i in $(seq 300); do
		[ -s "$1" ] && break
		sleep 0.1
	done
	[ -s "$1" ] && cat "$1"
}

# start_proxy NAME OPTION...: a fault proxy in front of the gateway, its
# faults logged to $WORK/NAME.log; sets PROXY (its URL) and PROXY_PID.
start_proxy() {
	local name=$1 port
	shift
	rm -f "$WORK/$name.port"
	python3 "$TOP/tests/faultproxy.py" --upstream "$FERRY_TEST_ENDPOINT" \
		--log "$WORK/$name.log" --port-file "$WORK/$name.port" \
		--lifetime 300 "$@" >/dev/null 2>>"$WORK/proxy.err" &
	PROXY_PID=$!
	if ! port=$(port_file "$WORK/$name.port"); then
		not_ok "the fault proxy '$name' starts"
		sed 's/^/# /' "$WORK/proxy.err" 2>/dev/null
	fi
	PROXY="http://127.0.0.1:$port"
}

# held NAME: waits (at most 30 s) until the proxy NAME holds a request
# (a delay fault, logged as it begins).
held() {
	local i
	for i in $(seq 600); do
		grep -q "fault delay" "$WORK/$1.log" 2>/dev/null && return
		sleep 0.05
	done
}

# With a proxy started with --log-headers x-amz-copy-source (its log in
# $LOG): proxy_lines, the length of the log; proxy_at LINE, the request
# lines after line LINE; proxy_copies LINE and proxy_uploads LINE, the
# PUTs since LINE with and without a copy source.
proxy_lines() {
	wc -l <"$LOG"
}
proxy_at() {
	tail -n "+$(($1 + 1))" "$LOG" | grep '^hdr '
}
proxy_copies() {
	proxy_at "$1" | grep -c '^hdr PUT .* x-amz-copy-source=[^-]'
}
proxy_uploads() {
	proxy_at "$1" | grep '^hdr PUT ' | grep -c 'x-amz-copy-source=-'
}

# head_field BUCKET KEY HEADER: a header of the object's HEAD reply (""
# when absent).
head_field() {
	s3 head "$1" "$2" | python3 -c '
import json, sys
print(json.load(sys.stdin).get(sys.argv[1], ""))' "$3"
}

stop_proxy() {
	if [ -n "$PROXY_PID" ]; then
		kill "$PROXY_PID" 2>/dev/null
		wait "$PROXY_PID" 2>/dev/null
	fi
	PROXY_PID=
}

done_testing() {
	echo "1..$_n"
	[ "$_fails" -eq 0 ]
}
