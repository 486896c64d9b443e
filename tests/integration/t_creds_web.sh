#!/usr/bin/env bash
# Credentials where the work runs: web identity (STS
# AssumeRoleWithWebIdentity with a token file, as EKS IRSA and CI OIDC
# give), a profile's role_arn with source_profile (STS AssumeRole, signed
# with the source's keys) and the container credentials endpoint (ECS, EKS
# Pod Identity), against tests/integration/fake_sts.py, which checks each
# request and answers with the gateway's keys; refreshes before expiry;
# the order between sources; tokens that never show.
. "$(dirname "$0")/lib.sh"

B=credsweb-$$
T=$WORK/tree
mkbucket "$B"
python3 "$TOP/tests/integration/gen_tree.py" "$T" 12 5
SK=$AWS_SECRET_ACCESS_KEY
ROLE=arn:aws:iam::123456789012:role/ferry-test-$$
WIT=FerryWebIdentityTokenMarker$$
AUTH=FerryContainerAuthMarker$$
STOK=FerrySessionTokenMarker$$
SRC_AK=AKIAFERRYSOURCE$$
SRC_SK=FerrySourceSecretMarker$$
printf '%s\n' "$WIT" >"$WORK/wit"
printf '%s\n' "$AUTH" >"$WORK/auth"
: >"$WORK/empty"
STS_PID=
PROXY_PID=
trap 'stop_bg; rm -rf "$WORK"' EXIT

stop_bg() {
	local p
	for p in $STS_PID $PROXY_PID; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	STS_PID=
	PROXY_PID=
}

python3 "$TOP/tests/integration/fake_sts.py" --lifetime 300 \
	--port-file "$WORK/sts.port" --role "$ROLE" --token-file "$WORK/wit" \
	--auth-token-file "$WORK/auth" --source-key "$SRC_AK" \
	--source-secret "$SRC_SK" --session-token "$STOK" 2>>"$WORK/sts.err" &
STS_PID=$!
start_proxy proxy --kinds delay --always --only-methods PUT --seed 7
STS="http://127.0.0.1:$(port_file "$WORK/sts.port")"

# bare CMD...: CMD with no keys in the environment, the config and
# credentials files being $CONF and $CRED (default: empty), no metadata
# service, STS at $STS.
bare() {
	env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY -u AWS_SESSION_TOKEN \
		-u AWS_PROFILE AWS_EC2_METADATA_DISABLED=true \
		AWS_ENDPOINT_URL_STS="$STS" \
		AWS_CONFIG_FILE="${CONF:-$WORK/empty}" \
		AWS_SHARED_CREDENTIALS_FILE="${CRED:-$WORK/empty}" "$@"
}

# run CMD...: $out gets stdout and stderr, $rc the status; all output is
# kept in $WORK/all for the search for secrets at the end.
run() {
	"$@" >"$WORK/out" 2>&1
	rc=$?
	out=$(cat "$WORK/out")
	cat "$WORK/out" >>"$WORK/all"
}

scenario() {
	curl -s -o /dev/null -d '' "$STS/reset?$1"
}

counted() {
	curl -s "$STS/counts" | grep -o "\"$1\": [0-9]*" | grep -o '[0-9]*$'
}

WI="AWS_WEB_IDENTITY_TOKEN_FILE=$WORK/wit AWS_ROLE_ARN=$ROLE"

# --- web identity -------------------------------------------------------
scenario
m=$(mark)
run bare env $WI "$FERRY" sync "$T" "s3://$B/wi" --json -v
is "$rc" 0 "a push with web identity (AWS_WEB_IDENTITY_TOKEN_FILE) exits 0"
is "$(requests "$m" put)" 12 "... and uploads the 12 files"
is "$(counted web_identity)" 1 "... asking STS once"
is "$(counted refused)" 0 "... with the role and the token STS expects"

cat >"$WORK/config" <<CONF
[profile wi]
web_identity_token_file = $WORK/wit
role_arn = $ROLE
role_session_name = ferry-test
sts =
  endpoint_url = $STS
CONF
scenario
CONF=$WORK/config run bare env -u AWS_ENDPOINT_URL_STS -u AWS_ENDPOINT_URL \
	"$FERRY" sync "$T" "s3://$B/wiprofile" --profile wi \
	--endpoint-url "$FERRY_TEST_ENDPOINT"
is "$rc" 0 "web identity from a profile, STS from its 'sts =' block: exit 0"
is "$(counted web_identity)" 1 "... asking STS once"

scenario
run bare env AWS_WEB_IDENTITY_TOKEN_FILE="$WORK/wit" \
	AWS_ROLE_ARN="${ROLE}-other" "$FERRY" sync "$T" "s3://$B/wrong"
is "$rc" 3 "a role STS refuses: exit 3"
like "$out" "AssumeRoleWithWebIdentity of role ${ROLE}-other.*AccessDenied" \
	"... naming the action, the role and STS's answer"

run bare env AWS_WEB_IDENTITY_TOKEN_FILE="$WORK/missing" \
	AWS_ROLE_ARN="$ROLE" "$FERRY" sync "$T" "s3://$B/wrong"
is "$rc" 3 "a web identity token file that is missing: exit 3"
like "$out" "cannot read web identity token file $WORK/missing" "... saying so"

# --- role_arn with source_profile ---------------------------------------
printf '[src]\naws_access_key_id = %s\naws_secret_access_key = %s\n' \
	"$SRC_AK" "$SRC_SK" >"$WORK/credentials"
printf '[badsrc]\naws_access_key_id = %s\naws_secret_access_key = x%s\n' \
	"$SRC_AK" "$SRC_SK" >>"$WORK/credentials"
cat >"$WORK/roles" <<CONF
[profile role]
role_arn = $ROLE
source_profile = src
[profile badrole]
role_arn = $ROLE
source_profile = badsrc
[profile chained]
role_arn = $ROLE
source_profile = role
CONF
scenario
m=$(mark)
CONF=$WORK/roles CRED=$WORK/credentials run bare "$FERRY" sync "$T" \
	"s3://$B/role" --profile role
is "$rc" 0 "a push with role_arn and source_profile exits 0"
is "$(requests "$m" put)" 12 "... and uploads the 12 files"
is "$(counted assume_role)" 1 "... asking STS AssumeRole once"
is "$(counted refused)" 0 "... signed with the source profile's keys"

scenario
CONF=$WORK/roles CRED=$WORK/credentials run bare "$FERRY" sync "$T" \
	"s3://$B/role" --profile chained
is "$rc" 0 "a role whose source_profile is itself a role: exit 0"
is "$(counted assume_role)" 2 "... assuming both"
is "$(counted by_role)/$(counted refused)" 1/0 \
	"... the second signed with the keys of the first"

scenario
CONF=$WORK/roles CRED=$WORK/credentials run bare "$FERRY" sync "$T" \
	"s3://$B/badrole" --profile badrole
is "$rc" 3 "AssumeRole signed with a wrong source secret: exit 3"
is "$(counted refused)" 1 "... refused by STS for its signature"
like "$out" "STS AssumeRole of role $ROLE.*AccessDenied" "... saying so"

# --- the container endpoint ---------------------------------------------
scenario
m=$(mark)
run bare env AWS_CONTAINER_CREDENTIALS_FULL_URI="$STS/creds" \
	AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE="$WORK/auth" \
	"$FERRY" sync "$T" "s3://$B/container" --json -v
is "$rc" 0 "a push with the container endpoint and a token file exits 0"
is "$(requests "$m" put)" 12 "... and uploads the 12 files"
is "$(counted container)" 1 "... asking the endpoint once"
is "$(counted refused)" 0 "... with the token"

scenario
run bare env AWS_CONTAINER_CREDENTIALS_FULL_URI="$STS/creds" \
	AWS_CONTAINER_AUTHORIZATION_TOKEN="$AUTH" \
	"$FERRY" sync "$T" "s3://$B/container"
is "$rc" 0 "the container endpoint with AWS_CONTAINER_AUTHORIZATION_TOKEN"

run bare env AWS_CONTAINER_CREDENTIALS_FULL_URI="$STS/creds" \
	AWS_CONTAINER_AUTHORIZATION_TOKEN="wrong$AUTH" \
	"$FERRY" sync "$T" "s3://$B/container"
is "$rc" 3 "a token the endpoint refuses: exit 3"
like "$out" "container credentials endpoint at $STS/creds: HTTP status 401" \
	"... saying so"

run bare env AWS_CONTAINER_CREDENTIALS_FULL_URI="http://192.0.2.1/creds" \
	"$FERRY" sync "$T" "s3://$B/container"
is "$rc" 2 "a container endpoint on http to a host the SDKs refuse: exit 2"
like "$out" "AWS_CONTAINER_CREDENTIALS_FULL_URI is neither https" \
	"... saying so"

# --- the order ----------------------------------------------------------
scenario
run env $WI AWS_ENDPOINT_URL_STS="$STS" "$FERRY" sync "$T" "s3://$B/order"
is "$rc" 0 "keys in the environment come before web identity"
is "$(counted web_identity)" 0 "... which is not asked"
printf '[default]\naws_access_key_id = %s\naws_secret_access_key = %s\n' \
	"$SRC_AK" "$SRC_SK" >"$WORK/wrongkeys"
scenario
CRED=$WORK/wrongkeys run bare env $WI \
	AWS_CONTAINER_CREDENTIALS_FULL_URI="$STS/creds" \
	AWS_CONTAINER_AUTHORIZATION_TOKEN="$AUTH" \
	"$FERRY" sync "$T" "s3://$B/order"
is "$rc" 0 "web identity comes before the credentials file and the container"
is "$(counted web_identity)/$(counted container)" 1/0 "... which are not used"

# --- refresh before expiry ----------------------------------------------
S=$WORK/six
mkdir -p "$S"
for i in 1 2 3 4 5 6; do echo "small $i" >"$S/f$i"; done
scenario "expires_in=2"
run bare env $WI FERRY_CREDENTIAL_REFRESH_MARGIN=1 "$FERRY" sync "$S" \
	"s3://$B/refresh" --jobs 1 --endpoint-url "$PROXY" -v
is "$rc" 0 "a slowed push with web identity keys expiring every 2 s exits 0"
n=$(counted web_identity)
check "... asking STS again before they expire ($n answers)" [ "$n" -ge 2 ]
like "$out" "credentials refreshed, valid until" "... saying so with -v"

scenario "expires_in=2"
run bare env AWS_CONTAINER_CREDENTIALS_FULL_URI="$STS/creds" \
	AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE="$WORK/auth" \
	FERRY_CREDENTIAL_REFRESH_MARGIN=1 "$FERRY" sync "$S" \
	"s3://$B/refresh2" --jobs 1 --endpoint-url "$PROXY" -v
is "$rc" 0 "the same with the container endpoint"
n=$(counted container)
check "... asking it again before they expire ($n answers)" [ "$n" -ge 2 ]

# --- secrets ------------------------------------------------------------
for s in "$SK" "$WIT" "$AUTH" "$STOK" "$SRC_SK"; do
	if grep -qF -e "$s" "$WORK/all"; then
		not_ok "a secret or token shows in ferry's output"
	else
		ok "a secret or token never shows in ferry's output"
	fi
done

done_testing
