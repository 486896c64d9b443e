#!/usr/bin/env bash
# ferry plan and ferry apply: a plan lists exactly what a sync would do and
# changes nothing; apply does exactly that, refuses what changed since,
# counts what is already in place as done, and refuses a bad plan file.
# Push, pull and mirror, with requests counted at the gateway.
. "$(dirname "$0")/lib.sh"

B=plan-$$
T=$WORK/tree
mkbucket "$B"
mkdir -p "$T/d"
for f in keep1 keep2 change gone1 gone2 d/deep a1 a2 a3; do
	echo "content of $f" >"$T/$f"
done
"$FERRY" sync "$T" "s3://$B/p" --json >"$WORK/0.json"
is "$?" 0 "the first sync exits 0"

# plan_keys FILE: "action key" per plan line, sorted
plan_keys() {
	python3 -c '
import json, sys
for line in open(sys.argv[1]):
    d = json.loads(line)
    if d["type"] == "plan":
        print(d["action"], d["key"])' "$1" | sort | tr '\n' ','
}

# put_obj KEY TEXT: another writer puts TEXT and a newline at s3://$B/KEY
# (ferry, from another folder with a manifest of its own: the AWS CLI
# takes seconds to start)
put_obj() {
	local d
	d=$(mktemp -d "$WORK/other.XXXXXX")
	mkdir -p "$d/src/$(dirname "$1")"
	printf '%s\n' "$2" >"$d/src/$1"
	"$FERRY" sync "$d/src" "s3://$B" --manifest "$d/m" -q >/dev/null
}

# holds KEY TEXT: s3://$B/KEY holds TEXT and a newline, by its ETag (MD5)
holds() {
	local want got
	want=\"$(printf '%s\n' "$2" | md5sum | cut -d' ' -f1)\"
	got=$("$FERRY" ls "s3://$B/${1%/*}" | awk -v k="$1" '$4 == k { print $3 }')
	[ "$got" = "$want" ]
}

# 1. push: one changed, two new, two gone
echo "changed content" >>"$T/change"
echo new >"$T/new1"
echo "new two" >"$T/d/new2"
rm "$T/gone1" "$T/gone2"
ln -s keep1 "$T/lnk" # left out, and told so in the plan, which apply skips
before=$("$FERRY" ls "s3://$B/p")
m=$(mark)
"$FERRY" plan "$T" "s3://$B/p" --delete >"$WORK/plan.jsonl"
is "$?" 0 "plan exits 0"
is "$(requests "$m" list)" 1 "plan lists the bucket once"
is "$(requests "$m" total)" 1 "... and sends nothing else"
is "$(grep -c '^{"type":"left_out","key":"lnk","reason":"symlink"}$' \
	"$WORK/plan.jsonl")" 1 "the plan tells of the symlink it leaves out"
is "$("$FERRY" ls "s3://$B/p")" "$before" "the bucket is unchanged by plan"
is "$(plan_keys "$WORK/plan.jsonl")" \
	"delete p/gone1,delete p/gone2,upload p/change,upload p/d/new2,upload p/new1," \
	"the plan lists exactly the changed, new and deleted files"
etag=$("$FERRY" ls "s3://$B/p" | awk '$4 == "p/change" { print $3 }')
check "the header, guards and summary follow the schema" python3 -c '
import json, os, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
h, s = lines[0], lines[-1]
assert h == {"type": "header", "format": "ferry-plan", "version": 1,
    "src": sys.argv[2], "dst": "s3://" + sys.argv[3] + "/p", "delete": True,
    "follow_symlinks": False, "part_size": 0,
    "multipart_threshold": 8 << 20, "copy_threshold": (5 << 30) + 1}, h
assert s["type"] == "summary" and s["dry_run"] is True, s
assert s["uploaded"] == 3 and s["deleted"] == 2 and s["exit_status"] == 0, s
a = {l["key"]: l for l in lines[1:-1]}
st = os.stat(os.path.join(sys.argv[2], "change"))
c = a["p/change"]
assert c["source"]["size"] == st.st_size, c
assert c["source"]["mtime_ns"] == str(st.st_mtime_ns), c
assert len(c["source"]["xxh128"]) == 32, c
assert c["destination"]["etag"] == sys.argv[4], c
assert a["p/new1"]["destination"] == "absent", a["p/new1"]
g = a["p/gone1"]
assert g["source"] == "absent" and g["destination"]["etag"].startswith("\""), g
' "$WORK/plan.jsonl" "$T" "$B" "$etag"

m=$(mark)
"$FERRY" apply "$WORK/plan.jsonl" --json >"$WORK/apply.json"
is "$?" 0 "apply exits 0"
# Swift refuses conditional PUTs (501): those sent before the first
# refusal came back are sent again, after a HEAD.
if [ "${FERRY_TEST_SERVER:-ceph}" = swift ]; then
	n=$(requests "$m" put)
	check "apply sends the 3 planned PUTs, those refused again ($n)" \
		between "$n" 4 6
else
	is "$(requests "$m" put)" 3 "apply sends the 3 planned PUTs"
fi
is "$(requests "$m" delete)" 2 "... and the 2 planned DELETEs"
is "$(requests "$m" list)" 0 "... and lists nothing"
is "$(requests "$m" post)" 0 "... and nothing else that writes"
check "the bucket equals the tree after apply" \
	python3 "$TOP/tests/integration/bucket_equals_tree.py" "$T" "$B" p/
m=$(mark)
"$FERRY" sync "$T" "s3://$B/p" --delete --json >"$WORK/after.json"
is "$(requests "$m" total)" 1 "a sync after apply sends one request"
is "$(requests "$m" list)" 1 "... a listing"

# 2. the same plan again: everything is in place, nothing is written
m=$(mark)
"$FERRY" apply "$WORK/plan.jsonl" --json >"$WORK/again.json"
is "$?" 0 "applying a plan twice exits 0"
is "$(summary "$WORK/again.json" skipped)" 5 "... every action is found in place"
is "$(($(requests "$m" put) + $(requests "$m" delete)))" 0 "... and nothing is written"

# 3. a file changed after the plan is refused, the rest applied
for f in a1 a2 a3; do echo "second version of $f" >"$T/$f"; done
"$FERRY" plan "$T" "s3://$B/p" >"$WORK/plan3.jsonl"
echo "third version" >>"$T/a1"
# same size and mtime, other bytes: only the content hash tells
mt=$(stat -c %y "$T/a2")
printf '%s' "$(tr 'a-z' 'A-Z' <"$T/a2")" >"$T/a2.tmp"
echo >>"$T/a2.tmp"
mv "$T/a2.tmp" "$T/a2"
touch -d "$mt" "$T/a2"
m=$(mark)
"$FERRY" apply "$WORK/plan3.jsonl" --json >"$WORK/apply3.json"
is "$?" 1 "apply with changed files exits 1"
want=1
[ "${FERRY_TEST_SERVER:-ceph}" = swift ] && want=2
is "$(requests "$m" put)" "$want" "... and sends one PUT (Swift: again, after its refusal)"
check "a file grown since the plan is not uploaded" holds p/a1 "content of a1"
check "a file rewritten with its mtime kept is not uploaded" \
	holds p/a2 "content of a2"
check "the unchanged file is uploaded" holds p/a3 "second version of a3"
like "$(grep '"type":"error"' "$WORK/apply3.json")" '"key":"p/a1".*since the plan' \
	"the refusal names the file and why"

# 4. a destination written by someone else after the plan is kept
echo "version four" >"$T/a3"
echo "brand new" >"$T/n4"
"$FERRY" plan "$T" "s3://$B/p" >"$WORK/plan4.jsonl"
put_obj p/a3 "theirs"
put_obj p/n4 "theirs too"
"$FERRY" apply "$WORK/plan4.jsonl" --json >"$WORK/apply4.json"
is "$?" 1 "apply over changed destinations exits 1"
# a1 and a2, refused in 3., were planned again and go up
m=$(mark)
"$FERRY" apply "$WORK/plan4.jsonl" --json >"$WORK/apply4.json"
is "$?" 1 "... also when applied again"
is "$(requests "$m" put)" 2 "... when a1 and a2 are in place: 2 conditional PUTs"
is "$(summary "$WORK/apply4.json" skipped)" 2 "... and a1 and a2 count as done"
check "an object replaced since the plan is not overwritten (If-Match)" \
	holds p/a3 "theirs"
check "an object created since the plan is not overwritten (If-None-Match)" \
	holds p/n4 "theirs too"

# 5. a bad plan file does nothing and exits 2
rm -f "$T/a1" "$T/a2"
"$FERRY" plan "$T" "s3://$B/p" --delete >"$WORK/good.jsonl"
n=$(wc -l <"$WORK/good.jsonl")
check "the plan to spoil has actions" test "$n" -ge 4
head -n $((n - 1)) "$WORK/good.jsonl" >"$WORK/bad-truncated.jsonl"
head -c $(($(wc -c <"$WORK/good.jsonl") - 30)) "$WORK/good.jsonl" >"$WORK/bad-cut.jsonl"
sed '2s/.*/{"type":"plan","action":"upload"/' "$WORK/good.jsonl" >"$WORK/bad-line.jsonl"
sed '1s/"version":1/"version":99/' "$WORK/good.jsonl" >"$WORK/bad-version.jsonl"
# the first action gone (the left_out line is no action)
sed '0,/"type":"plan"/{/"type":"plan"/d}' "$WORK/good.jsonl" >"$WORK/bad-count.jsonl"
: >"$WORK/bad-empty.jsonl"
for f in truncated cut line version count empty; do
	m=$(mark)
	"$FERRY" apply "$WORK/bad-$f.jsonl" >/dev/null 2>"$WORK/err"
	is "$?" 2 "a plan $f exits 2"
	is "$(requests "$m" total)" 0 "... and sends no request"
done
like "$(cat "$WORK/err")" "line|truncated|plan header" "the message says what is wrong"
"$FERRY" apply "$WORK/bad-version.jsonl" 2>&1 | grep -q "version 99" &&
	ok "an unknown version is named" || not_ok "an unknown version is named"

# 6. pull: an object replaced between plan and apply is refused
P=$WORK/pulled
"$FERRY" sync "s3://$B/p" "$P" --json >"$WORK/p0.json"
is "$?" 0 "the first pull exits 0"
put_obj p/keep1 "replaced once"
put_obj p/keep2 "replaced once"
put_obj p/d/new5 "new object"
m=$(mark)
"$FERRY" plan "s3://$B/p" "$P" >"$WORK/pull.jsonl"
is "$?" 0 "a pull plan exits 0"
is "$(requests "$m" get)" 0 "... and downloads nothing"
is "$(plan_keys "$WORK/pull.jsonl")" \
	"download p/d/new5,download p/keep1,download p/keep2," \
	"the pull plan lists the replaced and new objects"
put_obj p/keep1 "replaced twice"
"$FERRY" apply "$WORK/pull.jsonl" --json >"$WORK/pull-apply.json"
is "$?" 1 "pull apply with a replaced source exits 1"
is "$(cat "$P/keep1")" "content of keep1" "the replaced object is not downloaded (If-Match)"
is "$(cat "$P/keep2")" "replaced once" "the other replaced object is"
is "$(cat "$P/d/new5")" "new object" "the new object is downloaded"

# 7. mirror: a source replaced between plan and apply is refused
"$FERRY" sync "s3://$B/p" "s3://$B/m" --json >"$WORK/m0.json"
is "$?" 0 "the first mirror exits 0"
put_obj p/keep1 "mirror v2"
put_obj p/keep2 "mirror v2"
before=$("$FERRY" ls "s3://$B/m")
"$FERRY" plan "s3://$B/p" "s3://$B/m" >"$WORK/mirror.jsonl"
is "$?" 0 "a mirror plan exits 0"
is "$("$FERRY" ls "s3://$B/m")" "$before" "... and changes nothing"
is "$(plan_keys "$WORK/mirror.jsonl")" "copy m/keep1,copy m/keep2," \
	"the mirror plan lists the two replaced objects"
put_obj p/keep1 "mirror v3"
m=$(mark)
"$FERRY" apply "$WORK/mirror.jsonl" --json >"$WORK/mirror-apply.json"
is "$?" 1 "mirror apply with a replaced source exits 1"
check "the replaced source is not copied" holds m/keep1 "replaced twice"
check "the other object is copied" holds m/keep2 "mirror v2"
m=$(mark)
"$FERRY" apply "$WORK/mirror.jsonl" --json >"$WORK/mirror-again.json"
is "$(summary "$WORK/mirror-again.json" skipped)" 1 "a second mirror apply finds the copy in place"
is "$(requests "$m" put)" 1 "... and only tries the refused copy again"
check "... which the server refuses again" holds m/keep1 "replaced twice"

check "ferry plan --help gives plan's usage" bash -c \
	'"$1" plan --help | grep -q "^usage: ferry plan SOURCE DESTINATION"' _ "$FERRY"
check "ferry apply --help gives apply's usage" bash -c \
	'"$1" apply --help | grep -q "^usage: ferry apply PLAN"' _ "$FERRY"
check "ferry --help names plan and apply" bash -c \
	'"$1" --help | grep -q "ferry apply PLAN" &&
	"$1" --help | grep -q "ferry plan SOURCE"' _ "$FERRY"

done_testing
