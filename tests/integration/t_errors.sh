#!/usr/bin/env bash
# Bad input gets a clear message and the documented exit status, never a
# crash; an unreadable file is reported and the rest goes up.
. "$(dirname "$0")/lib.sh"

B=errors-$$
T=$WORK/tree
mkbucket "$B"
python3 "$TOP/tests/integration/gen_tree.py" "$T" 30 3

run() {
	out=$("$FERRY" "$@" 2>&1)
	rc=$?
}

run sync "$T" "s3://no-such-bucket-$$/p"
is "$rc" 3 "a missing bucket aborts with exit 3"
like "$out" "NoSuchBucket" "... naming NoSuchBucket"

AWS_SECRET_ACCESS_KEY=not-the-secret run sync "$T" "s3://$B/p"
is "$rc" 3 "a wrong secret key aborts with exit 3"
like "$out" "SignatureDoesNotMatch" "... naming SignatureDoesNotMatch"
if printf '%s' "$out" | grep -q not-the-secret; then
	not_ok "the secret never appears in the output"
else
	ok "the secret never appears in the output"
fi

for url in "s3://" "s3://ab/p" "s3://Bad_Bucket/p" "s3://b..c/p"; do
	run sync "$T" "$url"
	is "$rc" 2 "malformed URL '$url' is a usage error"
done
like "$out" "b\.\.c" "... and the message names the URL"

run sync "$WORK/no-such-folder" "s3://$B/p"
is "$rc" 2 "a missing source folder is a usage error"
like "$out" "no-such-folder" "... naming the folder"

run sync "$T"
is "$rc" 2 "a missing destination is a usage error"
run sync --jobs 0 "$T" "s3://$B/p"
is "$rc" 2 "--jobs 0 is a usage error"
like "$out" "from 1 to 1024" "... saying which numbers it takes"
run sync --part-size 1M "$T" "s3://$B/p"
is "$rc" 2 "a part size under 5M is a usage error"
run sync --memory 0 "$T" "s3://$B/p"
is "$rc" 2 "--memory 0 is a usage error"
like "$out" "at least one part" "... saying it must hold a part"
run sync --memory 4M "$T" "s3://$B/p"
is "$rc" 2 "--memory under the smallest auto part (8M) is a usage error"
run sync --multipart-threshold 12Q "$T" "s3://$B/p"
is "$rc" 2 "a malformed size is a usage error"
run ls --shard 1/4 "s3://$B/p"
is "$rc" 2 "--shard with ls is a usage error, not ignored"
like "$out" "do not apply" "... saying it does not apply to ls"
run frobnicate
is "$rc" 2 "an unknown command is a usage error"
run sync --profile no-such-profile "$T" "s3://$B/p"
is "$rc" 2 "an unknown profile is a usage error"
like "$out" "no-such-profile" "... naming the profile"
run sync --endpoint-url ftp://host "$T" "s3://$B/p"
is "$rc" 2 "an endpoint that is not http(s) is a usage error"
run sync -L "s3://$B/p" "$T"
is "$rc" 2 "-L on a pull is a usage error"
like "$out" "only a push" "... saying it follows links only in a push"
run --help
is "$rc" 0 "--help exits 0"
like "$out" "usage: ferry sync" "... and prints the usage"

# An unreadable file: reported, the rest goes up, exit 1.  Root reads
# everything, so as root the run drops to nobody for this case.  nobody
# may not reach the checkout (a clone in /root, mode 0700) nor $TMPDIR:
# the binary, the tree and the state go into a fresh folder of /tmp,
# which every user can traverse, and the run starts there.
NB=$WORK
ferry=$FERRY
as=()
if [ "$(id -u)" -eq 0 ]; then
	NB=$(mktemp -d /tmp/ferry-nobody.XXXXXX)
	trap 'stop_proxy; rm -rf "$WORK" "$NB"' EXIT
	chmod 755 "$NB"
	ferry=$NB/ferry
	cp "$FERRY" "$ferry" && chmod 755 "$ferry"
	mkdir -p "$NB/state" && chown nobody "$NB/state"
	# the gateway's folder is root's: the keys come from the environment
	: >"$NB/empty" && chmod 644 "$NB/empty"
	as=(setpriv --reuid=nobody --regid=nogroup --clear-groups
		env FERRY_STATE_DIR="$NB/state"
		AWS_SHARED_CREDENTIALS_FILE="$NB/empty"
		AWS_CONFIG_FILE="$NB/empty")
fi
U=$NB/unreadable
mkdir -p "$U/sub"
for i in 1 2 3; do echo "file $i" >"$U/sub/f$i.txt"; done
chmod -R a+rX "$U" && chmod 000 "$U/sub/f2.txt"
(cd "$NB" && "${as[@]}" "$ferry" sync "$U" "s3://$B/u" --json) \
	>"$WORK/u.json" 2>"$WORK/u.err"
is "$?" 1 "an unreadable file makes the run exit 1"
like "$(grep '"type":"error"' "$WORK/u.json")" 'f2\.txt' "... reporting that file"
is "$(summary "$WORK/u.json" uploaded)" 2 "... and the other two go up"

done_testing
