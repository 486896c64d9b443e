#!/usr/bin/env bash
# What a new user trips over gets a word instead of a quiet no-op: a URL
# with an empty segment, an object named as a pull's source, a pull from
# a missing bucket, aws's spellings of options, options before the
# command, a config section the AWS tools ignore, a plan on stdin, and
# "ferry ls s3://" for the buckets.
. "$(dirname "$0")/lib.sh"

B=newuser-$$
T=$WORK/tree
mkbucket "$B"
mkdir -p "$T/dir"
echo "hello" >"$T/dir/file.txt"
echo "other" >"$T/dir/other.txt"

run() {
	out=$("$FERRY" "$@" 2>&1)
	rc=$?
}

# 1. empty path segments: refused, with the location meant; nothing sent
m=$(mark)
run sync "$T" "s3://$B//photos"
is "$rc" 2 "s3://B//photos is a usage error"
like "$out" "did you mean s3://$B/photos\?" "... suggesting s3://B/photos"
run sync "$T" "s3://$B/a//b/"
is "$rc" 2 "s3://B/a//b/ is a usage error"
like "$out" "did you mean s3://$B/a/b/\?" "... suggesting s3://B/a/b/"
is "$(requests "$m" total)" 0 "... and no request reaches the server"

# 2. an object named as a pull's source; a pull from a missing bucket
run sync "$T" "s3://$B/p"
is "$rc" 0 "a push of the tree"
run sync "s3://$B/p/dir/file.txt" "$WORK/out1"
is "$rc" 2 "a pull of an object is a usage error"
like "$out" "s3://$B/p/dir/file.txt is an object" "... naming it an object"
like "$out" "pull its folder s3://$B/p/dir/" "... with the hint to pull its folder"
check "... and no folder is made" test ! -e "$WORK/out1"
mkdir "$WORK/out2"
run sync "s3://$B/p/dir/file.txt" "$WORK/out2"
is "$rc" 2 "the same into an existing folder"
is "$(ls -A "$WORK/out2")" "" "... which stays empty"
run sync "s3://$B/p/dir/" "$WORK/out3" --include file.txt --exclude '*'
is "$rc:$(ls "$WORK/out3")" "0:file.txt" "the hint's command gets the file"
run sync "s3://$B/p/dir/no-such" "$WORK/out4"
is "$rc" 0 "a prefix with nothing under it is no error"
run sync "s3://no-such-bucket-$$/p" "$WORK/out5"
is "$rc" 3 "a pull from a missing bucket aborts with exit 3"
like "$out" "NoSuchBucket" "... naming NoSuchBucket"
check "... and makes no folder" test ! -e "$WORK/out5"
run sync "s3://no-such-bucket-$$/p" "$WORK/new/deep/out6"
check "... nor its parents" test ! -e "$WORK/new"

# 3. aws's --dryrun; a misspelt option or command; options before the
# command word
m=$(mark)
run sync --dryrun "$T" "s3://$B/q"
is "$rc" 0 "--dryrun is taken as --dry-run"
like "$out" "dry run: would have 2 uploaded" "... and changes nothing"
is "$(requests "$m" put)" 0 "... sending no PUT"
run sync --dleete "$T" "s3://$B/q"
is "$rc" 2 "a misspelt option is a usage error"
like "$out" "did you mean --delete\?" "... answered with the one meant"
run sync --frobnicate "$T" "s3://$B/q"
is "$rc" 2 "an option like none is refused"
check "... with no suggestion" bash -c '! grep -q "did you mean" <<<"$1"' _ "$out"
run synk "$T" "s3://$B/q"
like "$rc:$out" "^2:.*did you mean sync\?" "a misspelt command: the one meant"
run --json -j 4 sync "$T" "s3://$B/q"
is "$rc" 0 "options before the command word count"
like "$out" '"type":"summary".*"uploaded":2' "... --json among them"
run --profile no-such-profile sync "$T" "s3://$B/q"
like "$rc:$out" "^2:.*no-such-profile" "... --profile among them"
run --version
like "$rc:$out" "^0:ferry " "--version alone still works"
run --profile p --help
like "$rc:$out" "^0:usage: ferry sync" "... and --help after an option"

# 4. a config section the AWS tools ignore ([ceph] for [profile ceph]);
# the endpoint stays the gateway's (AWS_ENDPOINT_URL), whatever is read
printf '[ceph]\nregion = us-east-1\n' >"$WORK/config"
printf '[ceph]\naws_access_key_id = %s\naws_secret_access_key = %s\n' \
	"$AWS_ACCESS_KEY_ID" "$AWS_SECRET_ACCESS_KEY" >"$WORK/credentials"
said="the config file $WORK/config has a section \[ceph\], which the AWS tools ignore; did you mean \[profile ceph\]\?"
AWS_CONFIG_FILE=$WORK/config AWS_SHARED_CREDENTIALS_FILE=$WORK/credentials \
	run ls --profile ceph "s3://$B/p"
is "$rc" 0 "--profile ceph, keys in the credentials file: the run goes on"
like "$out" "^ferry: $said" "... warning that [ceph] is ignored"
AWS_CONFIG_FILE=$WORK/config AWS_SHARED_CREDENTIALS_FILE=$WORK/credentials \
	AWS_PROFILE=ceph run sync "s3://$B/p" "s3://$B/mirror"
is "$rc" 0 "AWS_PROFILE=ceph, a mirror"
is "$(grep -c "did you mean \[profile" <<<"$out")" 1 "... warned once, not per side"
AWS_CONFIG_FILE=$WORK/config AWS_SHARED_CREDENTIALS_FILE=/dev/null \
	run ls --profile ceph "s3://$B/p"
is "$rc" 2 "a profile only in such a section is not found"
like "$out" "profile 'ceph' not found.*; $said" "... and the message says why"
printf '[profile ceph]\nregion = us-east-1\n' >>"$WORK/config"
AWS_CONFIG_FILE=$WORK/config AWS_SHARED_CREDENTIALS_FILE=$WORK/credentials \
	run ls --profile ceph "s3://$B/p"
is "$rc:$(grep -c "did you mean" <<<"$out")" "0:0" "with [profile ceph] too: no warning"

# 5. "ferry apply -" reads the plan from standard input, a pipe too
out=$("$FERRY" plan "$T" "s3://$B/r" | "$FERRY" apply - 2>&1)
is "$?" 0 "ferry plan ... | ferry apply - applies the plan"
like "$out" "2 uploaded" "... uploading what it planned"
is "$(s3 ls "$B" r/ | wc -l)" 2 "... and the objects are there"
echo "changed" >"$T/dir/file.txt"
"$FERRY" plan "$T" "s3://$B/r" >"$WORK/plan.jsonl"
run apply - <"$WORK/plan.jsonl"
is "$rc" 0 "ferry apply - < plan.jsonl"
like "$out" "1 uploaded" "... uploads the changed file"
run apply - </dev/null
is "$rc" 2 "an empty standard input is no plan"
like "$out" "standard input: the first line is not a plan header" \
	"... and the message says where it was read from"

# 6. "ferry ls s3://" lists the buckets: one GET / on the endpoint
m=$(mark)
run ls s3://
is "$rc" 0 "ls s3:// lists the buckets"
like "$out" "(^|\n)s3://$B/(\n|$)" "... this test's bucket as s3://B/"
is "$(grep -cv '^s3://[a-z0-9.-]*/$' <<<"$out")" 0 "... one s3://NAME/ a line"
is "$(requests "$m" total):$(requests "$m" list)" 1:1 "... with one request"
out=$("$FERRY" ls --json s3:// 2>&1)
is "$?" 0 "ls --json s3://"
check "... one bucket object a line, with type, name and creation time" \
	python3 -c '
import json, re, sys
names = []
for line in sys.stdin:
    d = json.loads(line)
    assert set(d) == {"type", "name", "created"}, d
    assert d["type"] == "bucket", d
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", d["created"]), d
    names.append(d["name"])
assert sys.argv[1] in names, names
' "$B" <<<"$out"
AWS_SECRET_ACCESS_KEY=not-the-secret run ls s3://
is "$rc" 3 "ls s3:// with a wrong secret aborts with exit 3"
like "$out" "SignatureDoesNotMatch" "... naming SignatureDoesNotMatch"
run ls s3:///
is "$rc" 2 "ls s3:/// is still a usage error"

echo "1..$_n"
[ "$_fails" -eq 0 ]
