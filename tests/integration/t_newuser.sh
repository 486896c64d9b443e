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

echo "1..$_n"
[ "$_fails" -eq 0 ]
