#!/usr/bin/env bash
# Conditional deletes: each key of a push's DeleteObjects carries its
# listed ETag.  The gateway ignores that condition (checked here, so that
# ferry-sync.1 stays true), so tests/faultproxy.py --cond-delete plays a server
# that honours it, as AWS does: an object rewritten after the listing is
# not deleted, is reported, and the run exits 1; the next run deletes it.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

PATH=/usr/bin:$PATH
B=conddel-$$
T=$WORK/tree
mkbucket "$B"
mkdir -p "$T"
echo keep >"$T/keep.txt"
echo old >"$WORK/old"
echo rewritten >"$WORK/new"

# what the server makes of the conditions (if this changes, ferry-sync.1's
# Conditional deletes must say so): the Ceph gateway ignores them, a wrong
# ETag deletes all the same; Swift honours If-Match on DELETE (412) and
# refuses <ETag> in DeleteObjects (400 MalformedXML)
s3 put "$B" probe/a "$WORK/old"
s3 put "$B" probe/b "$WORK/old"
said=$(python3 - "$TOP/tests/integration" "$B" <<'EOF2'
import base64, hashlib, re, sys
sys.path.insert(0, sys.argv[1])
from s3 import S3
s, b, bad = S3(), sys.argv[2], '"0123456789abcdef0123456789abcdef"'
r, _ = s.request("DELETE", b, b"probe/a", headers={"If-Match": bad})
body = ("<Delete><Object><Key>probe/b</Key><ETag>%s</ETag></Object>"
        "</Delete>" % bad.replace('"', "&quot;")).encode()
md5 = base64.b64encode(hashlib.md5(body).digest()).decode()
r2, reply = s.request("POST", b, query=[("delete", "")], body=body,
                      headers={"Content-MD5": md5})
code = re.search(rb"<Code>([^<]*)</Code>", reply)
print(r.status, r2.status, code.group(1).decode() if code else "-")
EOF2
)
case ${FERRY_TEST_SERVER:-ceph} in
swift)
	is "$said $(s3 ls "$B" probe/ | wc -l)" "412 400 MalformedXML 2" \
		"Swift refuses a wrong If-Match (412) and any <ETag> (400)"
	;;
*)
	is "$(s3 ls "$B" probe/)" "" \
		"the gateway deletes despite a wrong If-Match or <ETag>"
	;;
esac

# push with --delete; an extra object is rewritten after the listing, while
# the upload is held by the proxy until the rewrite is done
s3 put "$B" c/gone1 "$WORK/old"
s3 put "$B" c/gone2 "$WORK/old"
GO=$WORK/rewritten
start_proxy cond --cond-delete --kinds delay --only-methods PUT --always \
	--hold "$GO" --max-faults 1
timeout 60 "$FERRY" sync "$T" "s3://$B/c" --endpoint-url "$PROXY" \
	--delete --max-delete 100% --json >"$WORK/c1.json" 2>"$WORK/c1.err" &
pid=$!
for _ in $(seq 100); do
	grep -q '^fault delay PUT' "$WORK/cond.log" 2>/dev/null && break
	sleep 0.1
done
s3 put "$B" c/gone1 "$WORK/new"
touch "$GO"
wait "$pid"
is "$?" 1 "a delete refused by its condition: the push exits 1"
like "$(grep '"type":"error"' "$WORK/c1.json")" \
	'"key":"c/gone1".*changed since it was listed' \
	"... and reports the rewritten object as changed"
is "$(summary "$WORK/c1.json" deleted)" 1 "... the other one is deleted"
check "the proxy refused the delete of the rewritten object" \
	grep -q '^cond-refused POST c/gone1' "$WORK/cond.log"
s3 get "$B" c/gone1 "$WORK/got"
check "the rewritten object is still there, as rewritten" \
	cmp "$WORK/new" "$WORK/got"
is "$(s3 ls "$B" c/ | cut -f2 | tr '\n' ' ')" "c/gone1 c/keep.txt " \
	"the bucket holds the rewritten object and the tree"

timeout 60 "$FERRY" sync "$T" "s3://$B/c" --endpoint-url "$PROXY" \
	--delete --max-delete 100% --json >"$WORK/c2.json" 2>"$WORK/c2.err"
is "$?" 0 "the next run exits 0"
is "$(summary "$WORK/c2.json" deleted)" 1 "... and deletes it, as listed now"
is "$(s3 ls "$B" c/ | cut -f2)" "c/keep.txt" "the bucket equals the tree"
stop_proxy

done_testing
