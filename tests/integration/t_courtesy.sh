#!/usr/bin/env bash
# Bandwidth and courtesy: --request-payer on every request, --no-sign-request
# against a public-read bucket with no credentials at all, single DELETEs
# from a server that answers DeleteObjects NotImplemented, and --bwlimit
# pausing transfers to keep to its rate (counted, not timed: the figure is
# a bench, bench/RESULTS.md).
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

PATH=/usr/bin:$PATH
B=courtesy-$$
T=$WORK/tree
mkbucket "$B"
mkdir -p "$T"
for i in 1 2 3 4 5; do echo "file $i" >"$T/f$i.txt"; done
head -c $(($(mib 9 9) << 20)) /dev/urandom >"$T/big.bin"

# (a) --request-payer: the header on every request, and none without it
start_proxy a --rate 0 --log-headers x-amz-request-payer
"$FERRY" sync "$T" "s3://$B/a" --endpoint-url "$PROXY" --request-payer -q
is "$?" 0 "a push with --request-payer exits 0"
"$FERRY" sync "s3://$B/a" "$WORK/a" --endpoint-url "$PROXY" \
	--request-payer=requester -q
is "$?" 0 "a pull with --request-payer=requester exits 0"
stop_proxy
all=$(grep -c '^hdr ' "$WORK/a.log")
with=$(grep -c '^hdr .* x-amz-request-payer=requester$' "$WORK/a.log")
check "requests were seen ($all)" test "$all" -ge 10
is "$with" "$all" "every request carries x-amz-request-payer: requester"
start_proxy a2 --rate 0 --log-headers x-amz-request-payer
"$FERRY" sync "$T" "s3://$B/a2" --endpoint-url "$PROXY" -q
stop_proxy
is "$(grep -c 'x-amz-request-payer=requester' "$WORK/a2.log")" 0 \
	"without the flag, none does"
"$FERRY" sync "$T" "s3://$B/a" --request-payer=me -q 2>/dev/null
is "$?" 2 "--request-payer takes only 'requester'"

# (b) --no-sign-request: a public-read bucket, no credentials anywhere
if ! skip_on swift "s3api serves no unsigned request (412 for any)" 9; then
	P=public-$$
	mkbucket "$P"
	awscli s3api put-bucket-acl --bucket "$P" --acl public-read
	"$FERRY" sync "$T" "s3://$P/x" --acl public-read -q
	start_proxy b --rate 0 --log-headers authorization
	nocreds() {
		env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY \
			AWS_SHARED_CREDENTIALS_FILE=/dev/null AWS_CONFIG_FILE=/dev/null \
			AWS_EC2_METADATA_DISABLED=true "$@"
	}
	nocreds "$FERRY" sync "s3://$P/x" "$WORK/b" --endpoint-url "$PROXY" \
		--no-sign-request -q
	is "$?" 0 "a pull with --no-sign-request and no credentials exits 0"
	check "it gives the files back" diff -r "$T" "$WORK/b"
	stop_proxy
	all=$(grep -c '^hdr ' "$WORK/b.log")
	check "requests were seen ($all)" test "$all" -ge 3
	is "$(grep -c '^hdr .* authorization=-$' "$WORK/b.log")" "$all" \
		"none carries an Authorization header"
	nocreds "$FERRY" sync "s3://$P/x" "$WORK/b2" -q 2>/dev/null
	is "$?" 3 "without the flag and credentials, the run cannot start"
	start_proxy b3 --rate 0 --log-headers authorization
	"$FERRY" sync "s3://$P/x" "s3://$B/pub" --endpoint-url "$PROXY" \
		--no-sign-request -q
	is "$?" 0 "a mirror of the public bucket with --no-sign-request exits 0"
	stop_proxy
	is "$(grep -c "^hdr [A-Z]* /$P[/?].* authorization=-\$" "$WORK/b3.log")" \
		"$(grep -c "^hdr [A-Z]* /$P[/?]" "$WORK/b3.log")" \
		"the source is read unsigned"
	is "$(grep -c "^hdr [A-Z]* /$B[/?].* authorization=-\$" "$WORK/b3.log")" 0 \
		"the destination is written signed"
	is "$(s3 ls "$B" pub/ | wc -l)" 6 "the copies are in the destination"
	s3 rm "$P" >/dev/null
fi

# (c) DeleteObjects answered 501 NotImplemented: single DELETEs, a few
# at a time, exactly of the keys gone from the source
TC=$WORK/tc
mkdir -p "$TC"
for i in $(seq 10 49); do echo "file $i" >"$TC/f$i.txt"; done
"$FERRY" sync "$TC" "s3://$B/c" -q
gone=
for i in 11 13 17 20 23 29 31 37 41 43 47 48; do
	rm "$TC/f$i.txt"
	gone="$gone/$B/c/f$i.txt "
done
start_proxy c --always --kinds 501 --only-methods POST --match 'delete' \
	--log-headers x-amz-date
"$FERRY" sync "$TC" "s3://$B/c" --endpoint-url "$PROXY" --delete --jobs 4 \
	--json -v >"$WORK/c.json" 2>"$WORK/c.err"
is "$?" 0 "a push with --delete through a server without DeleteObjects exits 0"
stop_proxy
is "$(grep -c '^fault 501 POST' "$WORK/c.log")" 1 \
	"DeleteObjects was tried once"
is "$(grep '^hdr DELETE' "$WORK/c.log" | awk '{print $3}' | sort | tr '\n' ' ')" \
	"$gone" "then one DELETE for each gone key, no other"
is "$(s3 ls "$B" c/ | cut -f2 | sed 's#^c/##' | tr '\n' ' ')" \
	"$(cd "$TC" && ls | tr '\n' ' ')" "the bucket holds the rest"
is "$(summary "$WORK/c.json" deleted)" 12 "12 deletes are reported"
like "$(cat "$WORK/c.err")" "no DeleteObjects" "the fallback is told with -v"

# (d) --bwlimit: the limiter pauses transfers, both ways; the bytes arrive
"$FERRY" sync "$T" "s3://$B/d" --bwlimit 4M -v >"$WORK/d.out" 2>"$WORK/d.err"
is "$?" 0 "a push with --bwlimit exits 0"
n=$(sed -n 's/.*transfers paused \([0-9]*\) times.*/\1/p' "$WORK/d.err")
check "the uploads were paused by the limiter (${n:-none})" test "${n:-0}" -gt 0
"$FERRY" sync "s3://$B/d" "$WORK/d" --bwlimit '00:00,4M 23:59,8M' -v \
	>"$WORK/d2.out" 2>"$WORK/d2.err"
is "$?" 0 "a pull with a --bwlimit timetable exits 0"
n=$(sed -n 's/.*transfers paused \([0-9]*\) times.*/\1/p' "$WORK/d2.err")
check "the downloads were paused by the limiter (${n:-none})" test "${n:-0}" -gt 0
check "the files arrive whole" diff -r "$T" "$WORK/d"
"$FERRY" sync "$T" "s3://$B/d" --bwlimit off -v >"$WORK/d3.out" 2>"$WORK/d3.err"
is "$(grep -c 'transfers paused' "$WORK/d3.err")" 0 "--bwlimit off limits nothing"
for bad in 10 2X "25:00,1M" "08:00,1M 07:00,2M" "08:00"; do
	"$FERRY" sync "$T" "s3://$B/d" --bwlimit "$bad" -q 2>/dev/null
	is "$?" 2 "--bwlimit '$bad' is a usage error"
done

s3 rm "$B" >/dev/null
done_testing
