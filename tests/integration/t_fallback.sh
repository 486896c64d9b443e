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

# fallbacks FILE: the conditions of FILE's fallback events, in order
fallbacks() {
	pick "$1" 'l["condition"] for l in L if l["type"] == "fallback"'
}

# dump MARK: the gateway's requests since MARK, as "METHOD TARGET STATUS"
dump() {
	"$COUNT" --dump "$FERRY_TEST_LOG" "$1" | awk '{ print $2, $3, $4 }'
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

# where the server takes the ETags (the gateway), they are still sent,
# with no HEAD
for k in gone6 gone7; do s3 put "$B" "d/$k" "$WORK/old"; done
start_proxy de2 --rate 0 --swift put-cond
m=$(mark)
"$FERRY" sync "$T" "s3://$B/d" --endpoint-url "$PROXY" --delete \
	--max-delete 100% --json >"$WORK/d3.json" 2>"$WORK/d3.err"
is "$?" 0 "where DeleteObjects takes the ETags, the push exits 0"
is "$(requests "$m" head)" 0 "... with no HEAD"
is "$(requests "$m" post)" 1 "... one DeleteObjects"
is "$(fallbacks "$WORK/d3.json")" "" "... and no fallback"
stop_proxy

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
echo extra >"$WORK/extra"
s3 put "$B" u/extra "$WORK/extra"
"$FERRY" sync "$U" "s3://$B/u" --endpoint-url "$PROXY" --delete \
	--max-delete 100% >/dev/null 2>"$WORK/u2.err"
is "$(grep '^hdr POST .*?delete' "$WORK/ct.log" | awk '{ print $4 }')" \
	"content-type=application/xml" "... and a DeleteObjects too"
stop_proxy

done_testing
