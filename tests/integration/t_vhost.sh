#!/usr/bin/env bash
# Virtual-hosted addressing against the real server.  Endpoints named
# localhost use path style unless the profile says
# "s3 = addressing_style = virtual": then each request goes to
# bucket.localhost (libcurl sends *.localhost to loopback), the form AWS
# uses by default.  A push with --delete, a pull and a mirror go that way
# through the fault proxy, which logs each request's Host; the buckets
# are then read back by an independent client, path style.
. "$(dirname "$0")/lib.sh"

B=vhost-$$
B2=vhost2-$$
mkbucket "$B"
mkbucket "$B2"
T=$WORK/tree
mkdir -p "$T/a/b"
for i in 1 2 3; do echo "file $i" >"$T/a/b/f$i"; done
echo top >"$T/top"
printf '[default]\nregion = us-east-1\ns3 =\n  addressing_style = virtual\n' \
	>"$WORK/virtual"

start_proxy v --rate 0 --log-headers host
LOCAL=${PROXY/127.0.0.1/localhost}
PORT=${PROXY##*:}
# virtual CMD...: CMD with the profile that asks for virtual hosts.
virtual() {
	AWS_CONFIG_FILE=$WORK/virtual "$@"
}

virtual "$FERRY" sync "$T" "s3://$B/p" --endpoint-url "$LOCAL" -q
is "$?" 0 "a push to localhost with addressing_style = virtual exits 0"
all=$(grep -c '^hdr ' "$WORK/v.log")
vh=$(grep -c "^hdr .* host=$B.localhost:$PORT\$" "$WORK/v.log")
check "... every request to bucket.localhost ($vh of $all)" \
	[ "$all" -gt 0 ] && [ "$vh" -eq "$all" ]
like "$(grep '^hdr PUT' "$WORK/v.log" | head -n 1)" "^hdr PUT /p/" \
	"... the bucket out of the path"
is "$(s3 ls "$B" p/ | wc -l)" 4 "... and the 4 objects are there"

rm "$T/a/b/f2"
echo changed >"$T/top"
: >"$WORK/v.log"
virtual "$FERRY" sync "$T" "s3://$B/p" --endpoint-url "$LOCAL" --delete -q
is "$?" 0 "a push with --delete, virtual-hosted: exit 0"
is "$(grep -c '^hdr ' "$WORK/v.log")" \
	"$(grep -c "host=$B.localhost:$PORT\$" "$WORK/v.log")" \
	"... every request virtual-hosted"
is "$(s3 ls "$B" p/ | wc -l)" 3 "... the deleted file is gone from the bucket"

virtual "$FERRY" sync "s3://$B/p" "$WORK/back" --endpoint-url "$LOCAL" -q
is "$?" 0 "a pull, virtual-hosted: exit 0"
check "... gives the tree back" diff -r "$T" "$WORK/back"

: >"$WORK/v.log"
virtual "$FERRY" sync "s3://$B/p" "s3://$B2/q" --endpoint-url "$LOCAL" -q
is "$?" 0 "a mirror, virtual-hosted: exit 0"
check "... its requests go to both buckets' hosts" \
	grep -q "host=$B2.localhost:$PORT\$" "$WORK/v.log"
is "$(s3 ls "$B2" q/ | wc -l)" 3 "... and copies the 3 objects"

# Without the profile's word, localhost keeps to path style.
: >"$WORK/v.log"
"$FERRY" sync "$T" "s3://$B/p" --endpoint-url "$LOCAL" -q
is "$?" 0 "a push to localhost without addressing_style: exit 0"
is "$(grep -c "host=localhost:$PORT\$" "$WORK/v.log")" \
	"$(grep -c '^hdr ' "$WORK/v.log")" "... path style, as before"
stop_proxy

done_testing
