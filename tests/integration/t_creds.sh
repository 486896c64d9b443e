#!/usr/bin/env bash
# Credentials: a profile's credential_process, the instance metadata
# service (tests/integration/fake_imds.py, IMDSv2), the order between them
# and static keys, refreshes before expiry, and clear failures that never
# show the secret.
. "$(dirname "$0")/lib.sh"

B=creds-$$
T=$WORK/tree
mkbucket "$B"
python3 "$TOP/tests/integration/gen_tree.py" "$T" 12 5
AK=$AWS_ACCESS_KEY_ID
SK=$AWS_SECRET_ACCESS_KEY
TOKEN=fake-imds-session-token-$$
: >"$WORK/empty"
IMDS_PID=
PROXY_PID=
trap 'stop_bg; rm -rf "$WORK"' EXIT

stop_bg() {
	local p
	for p in $IMDS_PID $PROXY_PID; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	IMDS_PID=
	PROXY_PID=
}

# bare CMD...: CMD without keys in the environment, the config and
# credentials files being $CONF and $CRED (default: empty files), and no
# metadata service (lib.sh turns it off) unless with_imds turns it on.
bare() {
	env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY -u AWS_SESSION_TOKEN \
		-u AWS_PROFILE \
		AWS_CONFIG_FILE="${CONF:-$WORK/empty}" \
		AWS_SHARED_CREDENTIALS_FILE="${CRED:-$WORK/empty}" "$@"
}

# run CMD...: $out gets stdout and stderr, $rc the status, $secs the time
# (through a file: a process left behind by a timeout may hold a pipe).
run() {
	local t0=$SECONDS
	"$@" >"$WORK/out" 2>&1
	rc=$?
	secs=$((SECONDS - t0))
	out=$(cat "$WORK/out")
}

# hidden TEXT WHAT: the secret key and the session token are not in TEXT.
hidden() {
	if printf '%s' "$1" | grep -qF -e "$SK" -e "$TOKEN"; then
		not_ok "$2: the secret shows"
	else
		ok "$2: the secret never shows"
	fi
}

# process NAME BODY: a credential_process script that counts its runs in
# $WORK/NAME.runs, says so on stderr, then runs BODY.
process() {
	cat >"$WORK/$1.sh" <<EOF
#!/bin/sh
echo run >>"$WORK/$1.runs"
echo "credential helper $1 speaking" >&2
$2
EOF
	printf '[profile %s]\ncredential_process = sh %s\n' "$1" \
		"$WORK/$1.sh" >>"$WORK/config"
}

runs() {
	wc -l <"$WORK/$1.runs" 2>/dev/null | tr -d ' ' || echo 0
}

good='{"Version": 1, "AccessKeyId": "'$AK'", "SecretAccessKey": "'$SK'"}'
: >"$WORK/config"
process good "echo '$good'"
process failing "echo '$good'; exit 7"
process garbage "echo '{\"Version\": 1, \"AccessKeyId\": \"$AK\", \"SecretAccessKey\": \"$SK\"'"
process nosecret "echo '{\"Version\": 1, \"AccessKeyId\": \"$AK\"}'"
process version2 "echo '{\"Version\": 2, \"AccessKeyId\": \"$AK\", \"SecretAccessKey\": \"$SK\"}'"
process slow "sleep 5; echo '$good'"
# A helper that starts a child of its own and never answers; the child's
# command line carries $MARK, so that pgrep finds it.
MARK=ferry-creds-orphan-$$
process orphan "sh -c 'sleep 300; : $MARK' & sleep 300"
CONF=$WORK/config

# --- credential_process -------------------------------------------------
m=$(mark)
run bare "$FERRY" sync "$T" "s3://$B/process" --profile good --json -v
is "$rc" 0 "a push with keys from credential_process exits 0"
is "$(requests "$m" put)" 12 "... and uploads the 12 files"
is "$(runs good)" 1 "... running the process once"
like "$out" "credential helper good speaking" "... whose stderr reaches ours"
hidden "$out" "credential_process push"

run bare "$FERRY" sync "$T" "s3://$B/failing" --profile failing
is "$rc" 3 "a credential_process that exits 7 aborts with exit 3"
like "$out" "profile 'failing' exited with status 7" "... saying so"
hidden "$out" "failing process"

run bare "$FERRY" sync "$T" "s3://$B/garbage" --profile garbage
is "$rc" 3 "a credential_process printing broken JSON aborts with exit 3"
like "$out" "printed unusable JSON: not a JSON object" "... saying so"
hidden "$out" "broken JSON"

run bare "$FERRY" sync "$T" "s3://$B/nosecret" --profile nosecret
is "$rc" 3 "a credential_process without SecretAccessKey: exit 3"
like "$out" 'no "SecretAccessKey"' "... naming the missing field"

run bare "$FERRY" sync "$T" "s3://$B/v2" --profile version2
is "$rc" 3 "a credential_process answering Version 2: exit 3"
like "$out" '"Version" is not 1' "... naming the version"

run bare env FERRY_CREDENTIAL_PROCESS_TIMEOUT=1 \
	"$FERRY" sync "$T" "s3://$B/slow" --profile slow
is "$rc" 3 "a credential_process slower than its timeout: exit 3"
like "$out" "did not finish in time" "... saying so"
check "... after the timeout, not the 5 s it sleeps" [ "$secs" -lt 5 ]

run bare env FERRY_CREDENTIAL_PROCESS_TIMEOUT=1 \
	"$FERRY" sync "$T" "s3://$B/orphan" --profile orphan
is "$rc" 3 "a credential_process whose child outlives it times out: exit 3"
check "... within a few seconds" [ "$secs" -lt 5 ]
# pgrep's status: 1 when it found none; 127 (no procps) or 2 fail the check
left=$(pgrep -f "$MARK")
is "$?:$left" "1:" "... and no process it started is left running"
[ -n "$left" ] && kill $left

# The order: keys in the credentials file, then credential_process; keys
# in the environment before both unless --profile is given.
printf '[failing]\naws_access_key_id = %s\naws_secret_access_key = %s\n' \
	"$AK" "$SK" >"$WORK/credentials"
n=$(runs failing)
CRED=$WORK/credentials run bare "$FERRY" sync "$T" "s3://$B/order" \
	--profile failing
is "$rc" 0 "static keys in the credentials file come before credential_process"
is "$(runs failing)" "$n" "... which is not run"
n=$(runs failing)
run env AWS_CONFIG_FILE="$WORK/config" AWS_PROFILE=failing \
	"$FERRY" sync "$T" "s3://$B/order"
is "$rc" 0 "keys in the environment come before credential_process"
is "$(runs failing)" "$n" "... which is not run"

# --- the instance metadata service --------------------------------------
# One fake metadata service (its URL in IMDS) and one proxy in front of the
# gateway that holds every PUT 0.2-1.5 s (PROXY), so that slowed runs
# outlast keys that live 2 s.
python3 "$TOP/tests/integration/fake_imds.py" --lifetime 300 \
	--port-file "$WORK/imds.port" --session-token "$TOKEN" \
	2>>"$WORK/imds.err" &
IMDS_PID=$!
start_proxy proxy --kinds delay --always --only-methods PUT --seed 7
IMDS="http://127.0.0.1:$(port_file "$WORK/imds.port")"

# scenario QUERY: resets the fake's counts and sets how it answers.
scenario() {
	curl -s -o /dev/null -d '' "$IMDS/reset?$1"
}

# counted FIELD: what the fake metadata service counted since the reset.
counted() {
	curl -s "$IMDS/counts" | grep -o "\"$1\": [0-9]*" | grep -o '[0-9]*$'
}

# imds_push DEST [OPTION...]: a push that can only get keys from $IMDS.
imds_push() {
	local d=$1
	shift
	run with_imds "$IMDS" bare "$FERRY" sync "$T" "s3://$B/$d" --json -v "$@"
}

# slowed_push DEST MARGIN: the same for the 6 files of $S through $PROXY,
# one at a time, refreshing MARGIN seconds before expiry.
slowed_push() {
	T=$S FERRY_CREDENTIAL_REFRESH_MARGIN=$2 imds_push "$1" --jobs 1 \
		--endpoint-url "$PROXY"
}
S=$WORK/six
mkdir -p "$S"
for i in 1 2 3 4 5 6; do echo "small $i" >"$S/f$i"; done

scenario
m=$(mark)
imds_push imds
is "$rc" 0 "a push with keys from the metadata service exits 0"
is "$(requests "$m" put)" 12 "... and uploads the 12 files"
is "$(counted token)" 1 "... asking for one session token"
is "$(counted creds)" 1 "... and for the keys once"
is "$(counted unauthorized)" 0 "... always sending the token"
is "$(curl -s -o /dev/null -w '%{http_code}' \
	"$IMDS/latest/meta-data/iam/security-credentials/")" 401 \
	"(the fake refuses a request without the token)"
hidden "$out" "metadata service push"

# Keys that expire 2 s after each answer, refreshed when 1 s remains.
scenario "expires_in=2"
slowed_push refresh 1
is "$rc" 0 "a slowed push with keys expiring every 2 s exits 0"
n=$(counted creds)
check "... refreshing them from the metadata service ($n answers)" \
	[ "$n" -ge 2 ]
like "$out" "credentials refreshed, valid until" "... saying so with -v"
hidden "$out" "refreshing push"

# A refresh that fails while the keys are valid warns and keeps them.
scenario "expires_in=60&fail_after=1"
slowed_push keep 59
is "$rc" 0 "a refresh that fails while the keys are valid: still exit 0"
check "... after the refresh was tried" [ "$(counted failed)" -ge 1 ]
like "$out" "could not refresh credentials \(keeping those valid until" \
	"... with a warning"

# Keys that have expired and cannot be refreshed fail what is left.
scenario "expires_in=2&fail_after=1"
T=$WORK/tree FERRY_CREDENTIAL_REFRESH_MARGIN=1 imds_push expired \
	--jobs 1 --endpoint-url "$PROXY"
is "$rc" 1 "expired keys that cannot be refreshed fail what is left: exit 1"
like "$out" "credentials expired at .* could not be refreshed" "... saying so"
n=$(counted failed)
check "... asking again at most once in 10 s ($n failed answers, 2 a try)" \
	[ "$n" -le 4 ]
hidden "$out" "expired keys"

scenario
run bare env AWS_EC2_METADATA_DISABLED=true \
	AWS_EC2_METADATA_SERVICE_ENDPOINT="$IMDS" \
	"$FERRY" sync "$T" "s3://$B/none"
is "$rc" 3 "no credentials with the metadata service disabled: exit 3"
like "$out" "no credentials found" "... saying so"
is "$(counted token)" 0 "... without asking the metadata service"
run bare env AWS_EC2_METADATA_DISABLED=true "$FERRY" ls "s3://$B/"
is "$rc" 3 "ferry ls with no credentials: exit 3, as a sync"
like "$out" "no credentials found" "... saying so"

# Nothing listens on the fake's port once it is stopped.
stop_bg
run with_imds "$IMDS" bare "$FERRY" sync "$T" "s3://$B/none"
is "$rc" 3 "no credentials and no metadata service: exit 3"
like "$out" "no credentials found.*metadata service at $IMDS" "... saying so"

done_testing
