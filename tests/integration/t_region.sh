#!/usr/bin/env bash
# Regions: ferry signs for us-east-1, and tests/faultproxy.py plays buckets
# living in eu-west-3 and ap-south-1, refusing what is signed for another
# region as AWS does (301 PermanentRedirect with x-amz-bucket-region, 400
# AuthorizationHeaderMalformed, or a bare 301 that makes ferry ask the
# bucket).  Each bucket's region is learnt once: the push and the mirror
# succeed with one or two refused requests per bucket, not one per object.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

PATH=/usr/bin:$PATH
S=region-src-$$
D=region-dst-$$
T=$WORK/tree
mkbucket "$S"
mkbucket "$D"
python3 "$TOP/tests/integration/gen_tree.py" "$T" 20 21
head -c $((12 << 20)) /dev/urandom >"$T/big.bin"
opts=(--region us-east-1 --multipart-threshold 8M --part-size 5M --json)

# redirects NAME BUCKET: requests for BUCKET the proxy NAME refused.
redirects() {
	awk -v b="$2" '$1 == "redirect" && index($3, "/" b) == 1 { n++ }
		END { print n + 0 }' "$WORK/$1.log" 2>/dev/null
}

start_proxy p --rate 0 --bucket-region "$S=eu-west-3" \
	--bucket-region "$D=ap-south-1"
"$FERRY" sync "$T" "s3://$S/r" --endpoint-url "$PROXY" "${opts[@]}" \
	>"$WORK/p.json" 2>"$WORK/p.err"
is "$?" 0 "a push to a bucket in eu-west-3, signed for us-east-1, exits 0"
is "$(summary "$WORK/p.json" uploaded)" 21 "... uploading 21 files"
is "$(redirects p "$S")" 1 "... after one request refused (301 with the region)"
check "the bucket equals the tree" \
	python3 "$TOP/tests/integration/bucket_equals_tree.py" "$T" "$S" r/
stop_proxy

# The destination answers 400 AuthorizationHeaderMalformed: the copies,
# signed for ap-south-1, name the eu-west-3 source in x-amz-copy-source.
start_proxy m --rate 0 --bucket-region "$S=eu-west-3" \
	--bucket-region "$D=ap-south-1" --wrong-region-reply 400
m=$(mark)
"$FERRY" sync "s3://$S/r" "s3://$D/c" --endpoint-url "$PROXY" "${opts[@]}" \
	>"$WORK/m.json" 2>"$WORK/m.err"
is "$?" 0 "a mirror from eu-west-3 to ap-south-1 exits 0"
is "$(summary "$WORK/m.json" copied)" 21 "... copying 21 objects"
# Swift cannot condition the copy of a multipart object: that one is
# streamed (t_fallback), the rest copied server-side.
if [ "${FERRY_TEST_SERVER:-ceph}" = swift ]; then
	is "$(requests_not "$m" get 'big[.]bin')" 0 \
		"... server-side: no GET but the multipart object's reaches the server"
else
	is "$(requests "$m" get)" 0 "... server-side: no GET reaches the gateway"
fi
is "$(redirects m "$S")" 1 "... one request to the source refused"
is "$(redirects m "$D")" 1 "... and one to the destination"
check "the destination equals the tree" \
	python3 "$TOP/tests/integration/bucket_equals_tree.py" "$T" "$D" c/
stop_proxy

# A 301 without the region: ferry asks the bucket with one HEAD.
mkdir "$WORK/three"
for f in a b c; do echo "$f" >"$WORK/three/$f"; done
start_proxy u --rate 0 --bucket-region "$S=eu-west-3" \
	--wrong-region-reply 301-bare
m=$(mark)
"$FERRY" sync "$WORK/three" "s3://$S/u" --endpoint-url "$PROXY" "${opts[@]}" \
	>"$WORK/u.json" 2>"$WORK/u.err"
is "$?" 0 "a push answered by a bare 301 exits 0"
is "$(summary "$WORK/u.json" uploaded)" 3 "... uploading 3 files"
is "$(redirects u "$S")" 2 "... after the listing and the HEAD Bucket were refused"
is "$(requests "$m" total)" 4 "... and the gateway saw one listing and 3 PUTs"
stop_proxy

done_testing
