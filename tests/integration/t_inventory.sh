#!/usr/bin/env bash
# --source-inventory: a mirror or a pull whose source is read from an S3
# Inventory (manifest.json and CSV.gz data files, made here from a listing
# as S3 writes one) instead of listed.  It must give what a listing gives,
# never list the source, refuse an inventory that is damaged or not CSV
# before changing anything, and never delete what is newer than the
# inventory, which could not see it.
. "$(dirname "$0")/lib.sh"

S=inv-src-$$
I=inv-inv-$$
D=inv-dst-$$
INV="python3 $TOP/tests/integration/inventory.py"
for b in "$S" "$I" "$D"; do
	mkbucket "$b"
done
T=$WORK/tree
python3 "$TOP/tests/integration/gen_tree.py" "$T" 40 5 >/dev/null
echo q >"$T/quote\"d, comma.txt"
"$FERRY" sync "$T" "s3://$S/src" --quiet
is "$?" 0 "the source is pushed"
echo other | s3 put "$S" other/outside.txt /dev/stdin
# in both destinations before the inventory is made: only a delete of
# what the inventory saw the source lack, from before it, may take it
echo stale >"$WORK/stale"
s3 put "$D" list/stale.txt "$WORK/stale"
s3 put "$D" inv/stale.txt "$WORK/stale"
mkdir -p "$WORK/pull-inv"
cp "$WORK/stale" "$WORK/pull-inv/stale.txt"
# dates are in seconds, and a server may round them up (Swift gives the
# next whole second): two seconds later, they are surely before the
# inventory
sleep 2.1

url=$($INV make "$S" "$I" inv --parts 3 --old-version src/ghost.txt)
like "$url" "^s3://$I/inv/manifest.json$" "an inventory of the source is made"

"$FERRY" sync "s3://$S/src" "s3://$D/list" --quiet
is "$?" 0 "a listing-fed mirror exits 0"
m=$(mark)
"$FERRY" sync "s3://$S/src" "s3://$D/inv" --source-inventory "$url" \
	--json >"$WORK/1.json"
is "$?" 0 "an inventory-fed mirror exits 0"
is "$(summary "$WORK/1.json" copied)" 41 \
	"... copies the 41 objects under the prefix (not the older version, the delete marker or other/)"
lists=$("$COUNT" --dump "$FERRY_TEST_LOG" "$m" |
	awk -v b="/$S" '$1 == "list" && index($3, b) == 1' | wc -l)
is "$lists" 0 "... and does not list the source"
gets=$("$COUNT" --dump "$FERRY_TEST_LOG" "$m" |
	awk -v b="/$I/" '$1 == "get" && index($3, b) == 1' | wc -l)
is "$gets" 4 "... but reads manifest.json and its 3 data files"
$INV objects "$D" list/ >"$WORK/list.txt"
$INV objects "$D" inv/ >"$WORK/inv.txt"
check "... and its destination equals the listing-fed one (keys, sizes, ETags)" \
	cmp -s "$WORK/list.txt" "$WORK/inv.txt"
is "$(wc -l <"$WORK/inv.txt")" 42 "... 41 objects and the stale one"

# pull: the same, into folders
"$FERRY" sync "s3://$S/src" "$WORK/pull-list" --quiet
"$FERRY" sync "s3://$S/src" "$WORK/pull-inv" --quiet \
	--source-inventory "$url"
is "$?" 0 "an inventory-fed pull exits 0"
check "... and its folder equals the listing-fed pull's but for stale.txt" \
	diff -r -x stale.txt "$WORK/pull-list" "$WORK/pull-inv"

# a data file cut off mid-body is fetched again, and its rows handed on
# before the cut are not taken twice
start_proxy cut --always --kinds cut --match 'part-1\.csv\.gz' \
	--max-faults 1
"$FERRY" sync "s3://$S/src" "s3://$D/cut" --source-inventory "$url" \
	--endpoint-url "$PROXY" --quiet
is "$?" 0 "a mirror whose data file was cut off once exits 0"
is "$(grep -c cut "$WORK/cut.log")" 1 "... the proxy cut it once"
stop_proxy
$INV objects "$D" cut/ >"$WORK/cut.txt"
check "... and the mirror equals the listing-fed one" \
	cmp -s <(grep -v stale.txt "$WORK/list.txt") "$WORK/cut.txt"

# damaged, or not CSV: refused before anything changes
before=$($INV objects "$D" inv/ | wc -l)
bad() { # bad WHAT PATTERN MAKE-OPTION...
	local what=$1 pat=$2 u err
	shift 2
	u=$($INV make "$S" "$I" "bad-$what" "$@")
	err=$("$FERRY" sync "s3://$S/src" "s3://$D/new-$what" \
		--source-inventory "$u" 2>&1 >/dev/null)
	if [ $? -ne 0 ]; then ok "$what: the mirror fails"; else
		not_ok "$what: the mirror fails"; fi
	like "$err" "$pat" "$what: ... saying why"
	is "$($INV objects "$D" "new-$what/" | wc -l)" 0 \
		"$what: ... and copies nothing"
	"$FERRY" sync "s3://$S/src" "s3://$D/inv" --source-inventory "$u" \
		--delete --force >/dev/null 2>&1
	is "$($INV objects "$D" inv/ | wc -l)" "$before" \
		"$what: ... and a --delete run deletes nothing"
}
bad md5 "part-0.csv.gz: its MD5 is [0-9a-f]{32}, not the MD5checksum" \
	--bad-md5
bad gzip "part-0.csv.gz: its gzip data ends early|not gzip data" --damage
bad orc "data files are ORC: ferry reads CSV inventories only" \
	--format ORC

# newer than the inventory: an object the source gained after it, which a
# listing-fed run copied, is not deleted for being absent from it
sleep 1.1
echo late >"$WORK/late"
s3 put "$S" src/late.txt "$WORK/late"
"$FERRY" sync "s3://$S/src" "s3://$D/inv" --quiet
"$FERRY" sync "s3://$S/src" "$WORK/pull-inv" --quiet
"$FERRY" sync "s3://$S/src" "s3://$D/inv" --source-inventory "$url" \
	--delete --json >"$WORK/2.json"
is "$?" 0 "an inventory-fed mirror with --delete exits 0"
is "$(summary "$WORK/2.json" deleted)" 1 \
	"... deletes one object: stale.txt, from before the inventory"
left=$($INV objects "$D" inv/ | cut -f 1 | grep -cx -e late.txt -e stale.txt)
is "$left" 1 "... and keeps late.txt, newer than the inventory"
"$FERRY" sync "s3://$S/src" "$WORK/pull-inv" --source-inventory "$url" \
	--delete --json >"$WORK/3.json"
is "$(summary "$WORK/3.json" deleted)" 1 \
	"an inventory-fed pull with --delete deletes stale.txt alone"
check "... and keeps late.txt, pulled after the inventory" \
	test -f "$WORK/pull-inv/late.txt"

done_testing
