#!/usr/bin/env bash
# Lying listings: through tests/faultproxy.py --lie, the gateway's
# listings come back with each page reversed, an entry repeated, a key
# outside the prefix, a size of 2^64-1 or a date in the year 9999.  For
# each, push, pull and mirror with --delete --max-delete 100% stop with
# exit 3 and a message naming the server's fault, delete nothing, and the
# next honest run converges.  Then a directory bucket (a name ending in
# "--x-s3"), whose listings the proxy shuffles as such a bucket may: push,
# pull and mirror sync it right, and an unchanged rerun only lists.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

# Debian's python3, not a per-user shim (see t_faults.sh).
PATH=/usr/bin:$PATH
EQ="$TOP/tests/integration/bucket_equals_tree.py"

B=lying-$$
T=$WORK/tree      # the source tree
TX=$WORK/tree-x   # the tree and the extra: what each destination holds
P=$WORK/pulled    # a pull's destination
mkbucket "$B"
python3 "$TOP/tests/integration/gen_tree.py" "$T" 24 31 2048
cp -r "$T" "$TX"
echo extra >"$TX/zz-extra"

# add_extras: an object or file the source lacks in each destination, for
# an honest --delete to remove.
add_extras() {
	s3 put "$B" push/zz-extra "$TX/zz-extra" >/dev/null
	s3 put "$B" mir/zz-extra "$TX/zz-extra" >/dev/null
	cp "$TX/zz-extra" "$P/zz-extra"
}

# honest: the three syncs straight to the gateway, to the state each
# destination should have.
honest() {
	local rc=0
	"$FERRY" sync "$T" "s3://$B/push" -q --delete --max-delete 100% ||
		rc=1
	"$FERRY" sync "s3://$B/src" "$P" -q --delete --max-delete 100% ||
		rc=1
	"$FERRY" sync "s3://$B/src" "s3://$B/mir" -q --delete \
		--max-delete 100% || rc=1
	return $rc
}

"$FERRY" sync "$T" "s3://$B/src" -q
check "setup: the honest syncs succeed" honest
add_extras

# lied LIE WHAT SRC DST WANT BEFORE: one sync through the lying proxy: exit
# 3, a message matching WANT, and the destination as it was (BEFORE: a
# folder the destination equals, or "bucket PREFIX").
lied() {
	local lie=$1 what=$2 src=$3 dst=$4 want=$5 rc
	timeout 30 "$FERRY" sync "$src" "$dst" --endpoint-url "$PROXY" \
		--delete --max-delete 100% >"$WORK/out" 2>"$WORK/err"
	rc=$?
	is "$rc" 3 "$lie: the $what exits 3"
	like "$(cat "$WORK/err")" "$want.*deletes nothing" \
		"$lie: the $what names the server's fault"
	if [ "$what" = pull ]; then
		check "$lie: the pull deleted no file" diff -r "$TX" "$P"
	else
		check "$lie: the $what deleted no object" \
			python3 "$EQ" "$TX" "$B" "${dst#s3://"$B"/}/"
	fi
}

for spec in "reverse|after '[^']*': its listing is not in order" \
	"repeat|listed '[^']*' twice" \
	"outside|listed 'zz-outside-the-prefix/x', which is not under the prefix" \
	"hugesize|with a size of 18446744073709551615 bytes" \
	"baddate|with the date '9999-12-31T23:59:59.000Z'"; do
	lie=${spec%%|*}
	want=${spec#*|}
	start_proxy "$lie" --lie "$lie"
	lied "$lie" push "$T" "s3://$B/push" "$want"
	lied "$lie" pull "s3://$B/src" "$P" "$want"
	lied "$lie" mirror "s3://$B/src" "s3://$B/mir" "$want"
	if [ "$lie" = reverse ]; then
		timeout 30 "$FERRY" ls "s3://$B/src" --endpoint-url "$PROXY" \
			>/dev/null 2>"$WORK/err"
		is "$?" 3 "reverse: ls exits 3"
		timeout 30 "$FERRY" plan "$T" "s3://$B/push" --delete \
			--endpoint-url "$PROXY" >"$WORK/plan" 2>"$WORK/err"
		is "$?" 3 "reverse: plan exits 3"
		like "$(cat "$WORK/err")" "not in order" "... naming the fault"
		is "$(grep -c '"action":"delete"' "$WORK/plan")" 0 \
			"... and plans no delete"
	fi
	stop_proxy
	check "$lie: the next honest runs converge" honest
	check "$lie: ... the push's bucket equals the tree" \
		python3 "$EQ" "$T" "$B" push/
	check "$lie: ... the mirror's too" python3 "$EQ" "$T" "$B" mir/
	check "$lie: ... and the pulled folder" diff -r "$T" "$P"
	add_extras
done

# A directory bucket, its listings shuffled within and across its pages
# (more than 1,000 keys: two pages).  The bucket first holds half the tree
# and three objects the tree lacks.
D=lying-$$--x-s3
T2=$WORK/tree2
H=$WORK/half
mkbucket "$D"
python3 "$TOP/tests/integration/gen_tree.py" "$T2" 1100 7 256
cp -r "$T2" "$H"
find "$H" -name '*[02468].bin' -delete
for i in 1 2 3; do echo "$i" >"$H/stale $i"; done
"$FERRY" sync "$H" "s3://$D/p" -q
# The proxy lies and injects no fault (its default is 10% of every kind):
# the checks below count the requests the gateway saw, and a delayed or
# cut request, retried, made the pull and the mirror of the 1,100 objects
# ten times as long.
start_proxy unsorted --lie unsorted --seed 5 --rate 0
"$FERRY" sync "$T2" "s3://$D/p" --endpoint-url "$PROXY" --delete \
	--max-delete 100% --json >"$WORK/d1.json" 2>"$WORK/d1.err"
is "$?" 0 "unsorted: the push to a directory bucket exits 0"
check "... the listing was shuffled" grep -q '^lie unsorted' \
	"$WORK/unsorted.log"
is "$(summary "$WORK/d1.json" uploaded)" 550 "... uploads the missing half"
is "$(summary "$WORK/d1.json" deleted)" 3 "... deletes the 3 stale objects"
check "... the bucket equals the tree" python3 "$EQ" "$T2" "$D" p/
m=$(mark)
"$FERRY" sync "$T2" "s3://$D/p" --endpoint-url "$PROXY" --delete \
	--max-delete 100% --json >"$WORK/d2.json" 2>"$WORK/d2.err"
is "$?" 0 "unsorted: the unchanged rerun exits 0"
is "$(requests "$m" list)" 2 "... lists two pages"
is "$(requests "$m" total)" 2 "... and sends nothing else"
"$FERRY" sync "s3://$D/p" "$WORK/pulled2" --endpoint-url "$PROXY" \
	-q 2>"$WORK/d3.err"
is "$?" 0 "unsorted: the pull exits 0"
check "... the pulled folder equals the tree" diff -r "$T2" "$WORK/pulled2"
"$FERRY" sync "s3://$D/p" "s3://$D/q" --endpoint-url "$PROXY" -q \
	2>"$WORK/d4.err"
is "$?" 0 "unsorted: the mirror between two of its prefixes exits 0"
check "... the copy equals the tree" python3 "$EQ" "$T2" "$D" q/
m=$(mark)
"$FERRY" sync "s3://$D/p" "s3://$D/q" --endpoint-url "$PROXY" --delete \
	-q 2>"$WORK/d5.err"
is "$?" 0 "unsorted: the unchanged mirror exits 0"
is "$(requests "$m" total)" "$(requests "$m" list)" "... and only lists"
stop_proxy
# a key listed twice, anywhere in the listing, is still the server's fault
start_proxy unsorted-repeat --lie repeat,unsorted --seed 5 --rate 0
"$FERRY" sync "$T2" "s3://$D/p" --endpoint-url "$PROXY" --delete \
	--max-delete 100% >/dev/null 2>"$WORK/d6.err"
is "$?" 3 "unsorted with a key listed twice: the push exits 3"
like "$(cat "$WORK/d6.err")" "listed '[^']*' twice.*deletes nothing" \
	"... naming the server's fault"
stop_proxy
check "... and the bucket still equals the tree" python3 "$EQ" "$T2" "$D" p/

s3 rm "$B" >/dev/null
s3 rm "$D" >/dev/null
done_testing
