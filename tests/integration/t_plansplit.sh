#!/usr/bin/env bash
# ferry plan --split N: the plan on stdout as without it, and N plan
# files that hold its actions between them, each once, in the plan's
# order, balanced by bytes and actions, each with its own summary; N
# workers apply them at once and leave what the whole plan leaves.
# Push and pull; the options refused where they do not belong.
. "$(dirname "$0")/lib.sh"

B=split-$$
T=$WORK/tree
mkbucket "$B"
mkdir -p "$T/a" "$T/b" "$T/c"
for i in $(seq 1 12); do
	for d in a b c; do
		echo "file $d/$i" >"$T/$d/f$i"
	done
done
head -c 300000 /dev/urandom >"$T/big1"
head -c 200000 /dev/urandom >"$T/big2"
"$FERRY" sync "$T" "s3://$B/p" -q && "$FERRY" sync "$T" "s3://$B/q" -q
is "$?" 0 "the first syncs exit 0"

# changed, new, gone; big3 the largest action
for i in 1 2 3; do echo "changed $i" >>"$T/a/f$i"; done
for i in $(seq 1 9); do echo "new $i" >"$T/c/n$i"; done
rm "$T/b/f1" "$T/b/f2" "$T/b/f3" "$T/b/f4"
head -c 500000 /dev/urandom >"$T/big3"
head -c 100000 /dev/urandom >>"$T/big1"

P=$WORK/part.
"$FERRY" plan "$T" "s3://$B/p" --delete --split 4 --split-prefix "$P" \
	>"$WORK/whole.jsonl"
is "$?" 0 "plan --split 4 exits 0"
check "four parts, part.0 to part.3" test -s "${P}0" -a -s "${P}3" -a \
	! -e "${P}4"
is "$(ls "$WORK" | grep -c 'tmp-')" 0 "no temporary file is left"
"$FERRY" plan "$T" "s3://$B/p" --delete >"$WORK/plain.jsonl"
is "$(grep -c '"type":"plan"' "$WORK/whole.jsonl")" 18 \
	"stdout holds the whole plan: 18 actions"
is "$(grep '"type":"plan"' "$WORK/whole.jsonl")" \
	"$(grep '"type":"plan"' "$WORK/plain.jsonl")" \
	"... the actions of the plan made without --split"

check "the parts hold every action once, in order, balanced, counted" \
	python3 -c '
import json, sys
whole = [l for l in open(sys.argv[1])]
acts = [l for l in whole if json.loads(l)["type"] == "plan"]
hdr = json.loads(whole[0])
seen, loads, big, sent = [], [], 0, 0
for i in range(4):
    lines = [json.loads(l) for l in open(sys.argv[2] + str(i))]
    raw = [l for l in open(sys.argv[2] + str(i))]
    h, s = lines[0], lines[-1]
    assert h == dict(hdr, part="%d/4" % i), h
    mine = [r for r, l in zip(raw, lines) if l["type"] == "plan"]
    assert mine, "part %d is empty" % i
    assert sorted(mine, key=acts.index) == mine, "part %d out of order" % i
    seen += mine
    n = {a: 0 for a in ("upload", "delete")}
    size = sum(l["size"] for l in lines if l["type"] == "plan"
               and l["action"] != "delete")
    for l in lines[1:-1]:
        n[l["action"]] += 1
    assert s["uploaded"] == n["upload"] and s["deleted"] == n["delete"], s
    assert s["bytes_sent"] == size and s["exit_status"] == 0, s
    sent += s["bytes_sent"]
    w = [l["size"] * (l["action"] != "delete") + 262144
         for l in lines if l["type"] == "plan"]
    loads.append(sum(w))
    big = max([big] + w)
assert sorted(seen) == sorted(acts), "actions lost or doubled"
assert sent == json.loads(whole[-1])["bytes_sent"], sent
assert max(loads) <= sum(loads) / 4 + big, loads
' "$WORK/whole.jsonl" "$P"
grep -h '"type":"summary"' "$P"0 "$P"1 "$P"2 "$P"3 >"$WORK/summaries.jsonl"
check "the parts' summaries follow the event schema" \
	json_valid "$WORK/summaries.jsonl"

# the same changes, applied as one plan to q and as four parts at once to p
"$FERRY" plan "$T" "s3://$B/q" --delete >"$WORK/q.jsonl" &&
	"$FERRY" apply "$WORK/q.jsonl" -q
is "$?" 0 "the whole plan applies to q"
for i in 0 1 2 3; do
	"$FERRY" apply "$P$i" --json >"$WORK/apply.$i.json" &
	eval "pid$i=$!"
done
for i in 0 1 2 3; do
	eval "wait \$pid$i"
	is "$?" 0 "part $i applies beside the others"
done
is "$(cat "$WORK"/apply.*.json | grep '"type":"summary"' |
	python3 -c '
import json, sys
print(sum(json.loads(l)["uploaded"] + json.loads(l)["deleted"]
          for l in sys.stdin))')" 18 "the four applies did the 18 actions"
is "$("$FERRY" ls "s3://$B/p" | awk '{ sub(/^p\//, "", $4); print $1, $3, $4 }')" \
	"$("$FERRY" ls "s3://$B/q" | awk '{ sub(/^q\//, "", $4); print $1, $3, $4 }')" \
	"p after the parts equals q after the whole plan (keys, sizes, ETags)"
"$FERRY" plan "$T" "s3://$B/p" --delete >"$WORK/after.jsonl"
is "$(grep -c '"type":"plan"' "$WORK/after.jsonl")" 0 \
	"a plan made after has nothing left to do"

# pull: a split plan into an empty folder, three workers
R=$WORK/restore
mkdir "$R"
"$FERRY" plan "s3://$B/p" "$R" --split 3 --split-prefix "$WORK/pull." \
	>/dev/null
is "$?" 0 "a pull's plan splits"
for i in 0 1 2; do
	"$FERRY" apply "$WORK/pull.$i" -q &
	eval "pid$i=$!"
done
for i in 0 1 2; do
	eval "wait \$pid$i"
	is "$?" 0 "pull part $i applies beside the others"
done
check "the folder equals the tree" diff -r "$T" "$R"

# where the options do not belong
"$FERRY" sync "$T" "s3://$B/p" --split 2 2>/dev/null
is "$?" 2 "sync refuses --split"
"$FERRY" plan "$T" "s3://$B/p" --split-prefix x 2>/dev/null >/dev/null
is "$?" 2 "--split-prefix without --split is refused"
"$FERRY" plan "$T" "s3://$B/p" --split 0 2>/dev/null >/dev/null
is "$?" 2 "--split 0 is refused"
head -n 2 "${P}1" >"$WORK/cut"
"$FERRY" apply "$WORK/cut" 2>/dev/null
is "$?" 2 "a part cut short is refused, as a plan is"

done_testing
