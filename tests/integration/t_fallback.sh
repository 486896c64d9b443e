#!/usr/bin/env bash
# Conditions refused: where a server refuses a condition ferry sends for
# safety, as OpenStack Swift's s3api does (tests/faultproxy.py --swift
# plays it in front of the gateway, with Swift's own answers), the run
# still succeeds, safely: a HEAD under the condition just before an
# unconditional request, or a streamed copy; the loss is told once, on
# stderr and as a "fallback" event with --json, and kept to for the rest
# of the run.  Where the server takes the condition, it is still sent and
# no HEAD is added.  Also: the XML bodies go as application/xml.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

PATH=/usr/bin:$PATH
B=fallback-$$
T=$WORK/tree
mkbucket "$B"
mkdir -p "$T"
echo keep >"$T/keep.txt"
echo old >"$WORK/old"

# on_swift: whether the server is OpenStack Swift (FERRY_TEST_SERVER), which
# refuses by itself what the proxy plays: where a run below goes straight
# to the server, Swift shows its own refusal, the gateway that it takes
# the condition
on_swift() {
	[ "${FERRY_TEST_SERVER:-ceph}" = swift ]
}

# fallbacks FILE: the conditions of FILE's fallback events, in order
fallbacks() {
	pick "$1" 'l["condition"] for l in L if l["type"] == "fallback"'
}

# dump MARK: the gateway's requests on the bucket since MARK, as
# "METHOD TARGET STATUS"
dump() {
	"$COUNT" --dump "$FERRY_TEST_LOG" "$1" |
		awk -v b="/$B" 'index($3, b) == 1 { print $2, $3, $4 }'
}

# on_bucket MARK METHOD: how many METHOD requests on the bucket since MARK
on_bucket() {
	dump "$1" | awk -v m="$2" '$1 == m { n++ } END { print n + 0 }'
}

# --- DeleteObjects refuses <ETag> (Swift: 400 MalformedXML) -------------
for k in gone1 gone2 gone3; do s3 put "$B" "d/$k" "$WORK/old"; done
start_proxy de --rate 0 --swift delete-etags
m=$(mark)
"$FERRY" sync "$T" "s3://$B/d" --endpoint-url "$PROXY" --delete \
	--max-delete 100% --json >"$WORK/d1.json" 2>"$WORK/d1.err"
is "$?" 0 "a push whose DeleteObjects with ETags is refused exits 0"
is "$(summary "$WORK/d1.json" deleted)" 3 "... and deletes the 3 keys"
is "$(s3 ls "$B" d/ | cut -f2)" "d/keep.txt" "... the bucket equals the tree"
is "$(grep -c 'refuses' "$WORK/d1.err")" 1 "... the loss is told once"
like "$(cat "$WORK/d1.err")" 'refuses the ETag each key of a batch delete' \
	"... naming the protection lost"
is "$(fallbacks "$WORK/d1.json")" "delete-etags" \
	"... and --json has one fallback event for it"
like "$(grep '"type":"fallback"' "$WORK/d1.json")" '"reason":"400 MalformedXML"' \
	"... with the server's answer"
check "... every line is valid against the schema" json_valid "$WORK/d1.json"
is "$(grep -c '^swift delete-etags' "$WORK/de.log")" 1 \
	"... the ETags were sent once, refused"
is "$(dump "$m" | awk '$1 != "GET" && $1 != "PUT" { print $1 }' | tr '\n' ' ')" \
	"HEAD HEAD HEAD POST " "... a HEAD of each key just before the delete"
is "$(dump "$m" | grep -c ' 412$\| 40[0-9]$')" 0 "... all of them answered"

# the next run keeps to it from the start (a new run learns anew: told
# once again, one refused request)
for k in gone4 gone5; do s3 put "$B" "d/$k" "$WORK/old"; done
"$FERRY" sync "$T" "s3://$B/d" --endpoint-url "$PROXY" --delete \
	--max-delete 100% --json >"$WORK/d2.json" 2>"$WORK/d2.err"
is "$?" 0 "the next run exits 0 too"
is "$(s3 ls "$B" d/ | cut -f2)" "d/keep.txt" "... and deletes what is extra"
stop_proxy

# straight to the server: where it takes the ETags (the gateway), they
# are still sent, with no HEAD; Swift refuses them by itself
for k in gone6 gone7; do s3 put "$B" "d/$k" "$WORK/old"; done
m=$(mark)
"$FERRY" sync "$T" "s3://$B/d" --delete --max-delete 100% --json \
	>"$WORK/d3.json" 2>"$WORK/d3.err"
is "$?" 0 "a push --delete straight to the server exits 0"
is "$(s3 ls "$B" d/ | cut -f2)" "d/keep.txt" "... and deletes what is extra"
if on_swift; then
	is "$(fallbacks "$WORK/d3.json")" "delete-etags" \
		"... Swift refuses the ETags itself: one fallback"
	like "$(grep '"type":"fallback"' "$WORK/d3.json")" \
		'"reason":"400 MalformedXML"' "... with its answer"
else
	is "$(on_bucket "$m" HEAD) $(on_bucket "$m" POST)" "0 1" \
		"... where the server takes the ETags: one DeleteObjects, no HEAD"
	is "$(fallbacks "$WORK/d3.json")" "" "... and no fallback"
fi

# before_each MARK METHOD: whether, since MARK, every METHOD request of
# an object was just preceded, for that object, by a HEAD
before_each() {
	dump "$1" | awk -v m="$2" '
		{ k = $2; sub(/\?.*/, "", k) }
		$1 == m && last[k] != "HEAD" { bad++ }
		{ last[k] = $1 }
		END { exit bad > 0 }'
}

# a batch that fails whole names its keys: the first ones in the error,
# each of them with -v
for k in x1 x2 x3; do s3 put "$B" "d/$k" "$WORK/old"; done
start_proxy fail --always --kinds 500 --only-methods POST --match 'delete'
"$FERRY" sync "$T" "s3://$B/d" --endpoint-url "$PROXY" --delete \
	--max-delete 100% --retries 1 -v --json >"$WORK/f.json" 2>"$WORK/f.err"
is "$?" 1 "a batch delete that fails whole: the push exits 1"
like "$(pick "$WORK/f.json" 'd["message"] for d in L if d["type"] == "error"')" \
	'3 keys not deleted: d/x1, d/x2, \.\.\.' "... the error names its first keys"
is "$(grep 'not deleted: d/' "$WORK/f.err" | grep -v keys | tr '\n' ' ')" \
	"ferry: not deleted: d/x1 ferry: not deleted: d/x2 ferry: not deleted: d/x3 " \
	"... and with -v each of them"
stop_proxy
for k in x1 x2 x3; do s3 rm "$B" "d/$k"; done

# --- conditional PUTs refused (Swift: 501 NotImplemented) -----------------
P=$WORK/ptree
mkdir -p "$P"
for f in a b c; do echo "new $f" >"$P/$f.txt"; done
s3 put "$B" p/b.txt "$WORK/old"
"$FERRY" plan "$P" "s3://$B/p" >"$WORK/p1.plan"
start_proxy pc --rate 0 --swift put-cond
m=$(mark)
"$FERRY" apply "$WORK/p1.plan" --endpoint-url "$PROXY" --json --jobs 1 \
	>"$WORK/p1.json" 2>"$WORK/p1.err"
is "$?" 0 "an apply whose conditional PUTs are refused exits 0"
is "$(summary "$WORK/p1.json" uploaded)" 3 "... and writes the 3 objects"
check "... the bucket equals the tree" python3 \
	"$TOP/tests/integration/bucket_equals_tree.py" "$P" "$B" p/
is "$(grep -c 'refuses' "$WORK/p1.err")" 1 "... the loss is told once"
is "$(fallbacks "$WORK/p1.json")" "put-if" "... one fallback event"
like "$(grep '"type":"fallback"' "$WORK/p1.json")" \
	'"reason":"501 NotImplemented"' "... with the server's answer"
check "... every line is valid against the schema" json_valid "$WORK/p1.json"
check "... each PUT just after a HEAD of its key" before_each "$m" PUT
is "$(grep -c '^swift put-cond' "$WORK/pc.log")" 1 \
	"... only the first PUT carried the refused condition (--jobs 1)"

# the condition still guards: an object rewritten since the plan is not
# replaced
echo "newer" >"$P/b.txt"
echo "newer c" >"$P/c.txt"
"$FERRY" plan "$P" "s3://$B/p" >"$WORK/p2.plan"
echo theirs >"$WORK/theirs"
s3 put "$B" p/b.txt "$WORK/theirs"
"$FERRY" apply "$WORK/p2.plan" --endpoint-url "$PROXY" --json \
	>"$WORK/p2.json" 2>"$WORK/p2.err"
is "$?" 1 "an apply over an object rewritten since the plan exits 1"
is "$(pick "$WORK/p2.json" 'd["error"] + ":" + d["key"] for d in L
	if d["type"] == "error"')" "changed:p/b.txt" "... and reports it changed"
s3 get "$B" p/b.txt "$WORK/got"
check "... the rewritten object is left as it is" cmp "$WORK/theirs" "$WORK/got"
s3 get "$B" p/c.txt "$WORK/got"
check "... the other one is written" cmp "$P/c.txt" "$WORK/got"
stop_proxy

# straight to the server: where it takes the condition (the gateway), no
# HEAD is added; Swift refuses it by itself
echo "newest" >"$P/a.txt"
"$FERRY" plan "$P" "s3://$B/p" >"$WORK/p3.plan"
m=$(mark)
"$FERRY" apply "$WORK/p3.plan" --json >"$WORK/p3.json" 2>"$WORK/p3.err"
is "$?" 0 "an apply straight to the server exits 0"
if on_swift; then
	is "$(fallbacks "$WORK/p3.json")" "put-if" \
		"... Swift refuses the condition itself: one fallback"
	check "... the bucket equals the tree" python3 \
		"$TOP/tests/integration/bucket_equals_tree.py" "$P" "$B" p/
else
	is "$(on_bucket "$m" HEAD) $(on_bucket "$m" PUT)" "0 2" \
		"... where PUTs take conditions: two PUTs, no HEAD"
	is "$(fallbacks "$WORK/p3.json")" "" "... and no fallback"
fi

# --- a 412 to a DELETE's If-Match that a HEAD contradicts (Swift, for a
# multipart object, compares its own ETag) --------------------------------
for k in big1 big2 small; do s3 put "$B" "x/$k" "$WORK/old"; done
s3 put "$B" x/keep.txt "$T/keep.txt"
"$FERRY" plan "$T" "s3://$B/x" --delete --max-delete 100% >"$WORK/x.plan"
start_proxy xd --rate 0 --swift delete-if-match --swift-match '/big'
m=$(mark)
"$FERRY" apply "$WORK/x.plan" --endpoint-url "$PROXY" --json \
	>"$WORK/x.json" 2>"$WORK/x.err"
is "$?" 0 "an apply whose DELETE If-Match gets a wrong 412 exits 0"
is "$(s3 ls "$B" x/ | cut -f2)" "x/keep.txt" "... the bucket equals the tree"
is "$(grep -c 'replaced since' "$WORK/x.err")" 0 \
	"... not told as replaced since the plan"
is "$(fallbacks "$WORK/x.json")" "delete-if-match" "... one fallback event"
like "$(cat "$WORK/x.err")" '412 PreconditionFailed, although a HEAD' \
	"... the 412 told as the server's, contradicted by the HEAD"
check "... each DELETE just after a HEAD of its key" before_each "$m" DELETE
is "$(grep -c '^swift delete-if-match' "$WORK/xd.log")" 1 \
	"... the condition refused once, not sent again"
stop_proxy

# --- a copy's x-amz-copy-source-if-match refused (Swift compares its own
# ETag for a multipart source: 412 although right) ----------------------
S=$WORK/src
mkdir -p "$S"
for f in big1 big2 big3; do head -c 11534336 /dev/urandom >"$S/$f"; done
echo small >"$S/small.txt"
"$FERRY" sync "$S" "s3://$B/s" >/dev/null 2>"$WORK/s.err"
is "$(s3 head "$B" s/big1 | python3 -c \
	'import json, sys; print(json.load(sys.stdin)["etag"][-3:])')" '-2"' \
	"the source's big objects are multipart"

# copies_equal PREFIX: whether the bucket's PREFIX/ holds the source's bytes
copies_equal() {
	local f
	for f in big1 big2 big3 small.txt; do
		s3 get "$B" "$1/$f" "$WORK/got" && cmp -s "$S/$f" "$WORK/got" ||
			return 1
	done
}

# mirror ARGS...: a mirror of s/ to m$n/ through the proxy, checked
n=0
mirror() {
	n=$((n + 1))
	m=$(mark)
	"$FERRY" sync "s3://$B/s" "s3://$B/m$n" --endpoint-url "$PROXY" \
		--json "$@" >"$WORK/m$n.json" 2>"$WORK/m$n.err"
	is "$?" 0 "a mirror whose copy conditions get 412 ($*) exits 0"
	check "... the copies hold the source's bytes" copies_equal "m$n"
	is "$(grep -c 'refuses' "$WORK/m$n.err")" 1 "... the loss is told once"
	is "$(fallbacks "$WORK/m$n.json")" "copy-if-match" \
		"... one fallback event"
	check "... every line is valid against the schema" \
		json_valid "$WORK/m$n.json"
	is "$(dump "$m" | grep -c "^GET /$B/s/big")" \
		"$(dump "$m" | grep "^GET /$B/s/big" | grep -c ' 200$\| 206$')" \
		"... the multipart ones streamed"
	is "$(dump "$m" | grep -c "^GET /$B/s/small")" 0 \
		"... the small one copied by the server, still"
}
start_proxy cp --rate 0 --swift copy-if-match --swift-match '/s/big'
mirror --multipart-threshold 64M
mirror --part-size 8M
mirror --part-size 8M --jobs 1
is "$(grep -c '^swift copy-if-match PUT /'"$B"'/m3/big3' "$WORK/cp.log")" 0 \
	"... once lost, a multipart source is not copied by the server again"
stop_proxy

# straight to the server: where it takes the condition (the gateway),
# copies stay the server's, and no HEAD is added; Swift refuses it by
# itself for the multipart sources
m=$(mark)
"$FERRY" sync "s3://$B/s" "s3://$B/m9" --json >"$WORK/m9.json" \
	2>"$WORK/m9.err"
is "$?" 0 "a mirror straight to the server exits 0"
check "... the copies hold the source's bytes" copies_equal m9
if on_swift; then
	is "$(fallbacks "$WORK/m9.json")" "copy-if-match" \
		"... Swift cannot compare the condition itself: one fallback"
else
	is "$(dump "$m" | grep -c "^GET /$B/s/") $(fallbacks "$WORK/m9.json")" \
		"0 " "... where copies take conditions: no GET, no fallback"
fi

# --- the XML bodies go as application/xml ---------------------------------
# a multipart upload of a file of no known type: its Complete carries
# application/xml, not curl's form type, which Swift would store as the
# object's
U=$WORK/up
mkdir -p "$U"
head -c "$(mib 41943040 12582912)" /dev/urandom >"$U/blob"
start_proxy ct --rate 0 --log-headers content-type
"$FERRY" sync "$U" "s3://$B/u" --endpoint-url "$PROXY" --part-size 8M \
	--multipart-threshold 8M >/dev/null 2>"$WORK/u.err"
is "$?" 0 "a multipart upload of a file of no known type exits 0"
is "$(grep '^hdr POST .*uploadId=' "$WORK/ct.log" | awk '{ print $4 }')" \
	"content-type=application/xml" \
	"... its CompleteMultipartUpload goes as application/xml"
is "$(grep -c '^hdr PUT .*partNumber=.* content-type=-' "$WORK/ct.log")" \
	"$(grep -c '^hdr PUT .*partNumber=' "$WORK/ct.log")" \
	"... its parts carry no type"
ctype=$(s3 head "$B" u/blob | python3 -c \
	'import json, sys; print(json.load(sys.stdin).get("content-type", ""))')
check "... the object's stored type is not a form type ($ctype)" \
	test "${ctype#application/x-www-form}" = "$ctype"
is "$ctype" "binary/octet-stream" "... but S3's default type"
is "$(grep '^hdr POST .*uploads=' "$WORK/ct.log" | awk '{ print $4 }')" \
	"content-type=binary/octet-stream" \
	"... which its CreateMultipartUpload names (Swift would store the \
Complete's)"
echo extra >"$WORK/extra"
s3 put "$B" u/extra "$WORK/extra"
"$FERRY" sync "$U" "s3://$B/u" --endpoint-url "$PROXY" --delete \
	--max-delete 100% >/dev/null 2>"$WORK/u2.err"
is "$(grep '^hdr POST .*?delete' "$WORK/ct.log" | awk '{ print $4 }' |
	sort -u)" \
	"content-type=application/xml" "... and a DeleteObjects too"
stop_proxy

done_testing
