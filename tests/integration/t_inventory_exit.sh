#!/usr/bin/env bash
# --source-inventory refused: a pull and a mirror fed by an inventory that
# ferry cannot use (ORC data files, another bucket's) exit 2, as any bad
# operand; one that is damaged (a data file whose MD5 is not the one
# manifest.json gives) exits 3, as a listing that fails its check; the
# same status from a pull and from a mirror.  Either way nothing is left
# behind: a pull into a folder that does not exist yet does not make it.
. "$(dirname "$0")/lib.sh"

S=invx-src-$$
I=invx-inv-$$
D=invx-dst-$$
INV="python3 $TOP/tests/integration/inventory.py"
for b in "$S" "$I" "$D"; do
	mkbucket "$b"
done
T=$WORK/tree
python3 "$TOP/tests/integration/gen_tree.py" "$T" 10 2 >/dev/null
"$FERRY" sync "$T" "s3://$S/src" --quiet
is "$?" 0 "the source is pushed"
mkbucket "$S-other"
"$FERRY" sync "$T" "s3://$S-other/src" --quiet

refused() { # refused WHAT STATUS PATTERN MAKE-ARGS...
	local what=$1 want=$2 pat=$3 u err rc
	shift 3
	u=$($INV make "$@")
	err=$("$FERRY" sync "s3://$S/src" "$WORK/new-$what/a/b" \
		--source-inventory "$u" 2>&1 >/dev/null)
	rc=$?
	is "$rc" "$want" "$what: a pull exits $want"
	like "$err" "$pat" "$what: ... saying why"
	check "$what: ... and makes no folder" test ! -e "$WORK/new-$what"
	err=$("$FERRY" sync "s3://$S/src" "s3://$D/new-$what" \
		--source-inventory "$u" 2>&1 >/dev/null)
	rc=$?
	is "$rc" "$want" "$what: a mirror exits $want, as the pull"
	like "$err" "$pat" "$what: ... saying why"
	is "$($INV objects "$D" "new-$what/" | wc -l)" 0 \
		"$what: ... and copies nothing"
}
refused orc 2 "data files are ORC: ferry reads CSV inventories only" \
	"$S" "$I" orc --format ORC
refused bucket 2 "is of the bucket '$S-other', not of '$S'" \
	"$S-other" "$I" other
refused md5 3 "part-0.csv.gz: its MD5 is [0-9a-f]{32}, not the MD5checksum" \
	"$S" "$I" md5 --bad-md5

# a folder that was there stays, and so does its parent
mkdir -p "$WORK/there"
u=$($INV make "$S" "$I" md5b --bad-md5)
"$FERRY" sync "s3://$S/src" "$WORK/there" --source-inventory "$u" \
	2>/dev/null
is "$?" 3 "a damaged inventory into a folder that exists exits 3"
check "... and leaves the folder" test -d "$WORK/there"
# a good inventory into a new folder makes it
u=$($INV make "$S" "$I" good)
"$FERRY" sync "s3://$S/src" "$WORK/new-good/a" --source-inventory "$u" \
	--quiet
is "$?" 0 "a good inventory into a new folder exits 0"
check "... and pulls into it" test -d "$WORK/new-good/a"

done_testing
