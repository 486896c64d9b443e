#!/usr/bin/env bash
# Secrets never reach output, logs or the manifest: a set of commands run
# with a session token set to a marker (the gateway ignores an unknown
# one), verbose and with --json, succeeding and failing, and every byte
# they print or leave in the manifest folders is searched for the secret
# key and the token.
. "$(dirname "$0")/lib.sh"

B=secrets-$$
T=$WORK/tree
O=$WORK/out
mkbucket "$B"
mkdir -p "$O"
python3 "$TOP/tests/integration/gen_tree.py" "$T" 20 5
head -c $((12 << 20)) /dev/urandom >"$T/big.bin"
SECRET=$AWS_SECRET_ACCESS_KEY
TOKEN=FerrySessionTokenMarker0123456789abcdefXYZ
WRONG=FerryWrongSecretMarker0123456789abcdefXYZ
export AWS_SESSION_TOKEN=$TOKEN

# run NAME ARGS...: ferry's stdout and stderr kept as $O/NAME.{out,err}
run() {
	local name=$1
	shift
	"$FERRY" "$@" >"$O/$name.out" 2>"$O/$name.err"
	echo $? >"$O/$name.rc"
}

run push sync "$T" "s3://$B/s" -v -v --json --multipart-threshold 5M
is "$(cat "$O/push.rc")" 0 "a push with a session token set exits 0"
run push2 sync "$T" "s3://$B/s" -v -v
run dry sync "$T" "s3://$B/d" -v -v --dry-run --json
run pull sync "s3://$B/s" "$WORK/back" -v -v --json
is "$(cat "$O/pull.rc")" 0 "a pull exits 0"
run mirror sync "s3://$B/s" "s3://$B/m" -v -v --json
is "$(cat "$O/mirror.rc")" 0 "a mirror exits 0"
run ls ls "s3://$B/s" -v -v
run lsjson ls "s3://$B/s" --json
is "$(cat "$O/ls.rc")" 0 "ls exits 0"
run info manifest info "$T" "s3://$B/s" -v -v
run infojson manifest info "$T" "s3://$B/s" --json
is "$(cat "$O/info.rc")" 0 "manifest info exits 0"
printf '[marked]\naws_access_key_id = %s\naws_secret_access_key = %s\naws_session_token = %s\n' \
	"$AWS_ACCESS_KEY_ID" "$SECRET" "$TOKEN" >"$WORK/credentials"
AWS_SHARED_CREDENTIALS_FILE=$WORK/credentials run profile \
	ls "s3://$B/s" --profile marked -v -v
is "$(cat "$O/profile.rc")" 0 "ls with the keys from a profile exits 0"
AWS_SECRET_ACCESS_KEY=$WRONG run wrong sync "$T" "s3://$B/w" -v -v --json
is "$(cat "$O/wrong.rc")" 3 "a run with a wrong secret exits 3"
AWS_SECRET_ACCESS_KEY=$WRONG run wrongpull sync "s3://$B/s" "$WORK/w" -v -v
is "$(cat "$O/wrongpull.rc")" 3 "a pull with a wrong secret exits 3"
AWS_SECRET_ACCESS_KEY=$WRONG run wrongls ls "s3://$B/s" -v -v --json
check "an ls with a wrong secret fails" test "$(cat "$O/wrongls.rc")" -ne 0
like "$(cat "$O/wrong.out" "$O/wrongls.err")" "SignatureDoesNotMatch" \
	"... naming SignatureDoesNotMatch"

# found WHAT: the files under the outputs and the manifests holding WHAT
found() {
	grep -rlaF -e "$1" "$O" "$FERRY_STATE_DIR" 2>/dev/null | wc -l
}
check "there is output to search ($(cat "$O"/* | wc -c) bytes)" \
	test "$(cat "$O"/* | wc -c)" -gt 1000
check "the manifest folders were written" \
	test "$(find "$FERRY_STATE_DIR" -name data.mdb | wc -l)" -ge 4
check "the search finds what is there: the bucket's name" \
	test "$(found "s3://$B/s")" -ge 3
is "$(found "$SECRET")" 0 "the secret key appears nowhere"
is "$(found "$TOKEN")" 0 "the session token appears nowhere"
is "$(found "$WRONG")" 0 "the wrong secret appears nowhere"
# a part of a secret is a leak too
is "$(found "${SECRET:8:16}")" 0 "no part of the secret key appears"
is "$(found "${TOKEN:10:16}")" 0 "no part of the token appears"

done_testing
