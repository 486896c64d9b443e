#!/usr/bin/env bash
# A damaged manifest is detected, never crashed on.  kill -9 during a push,
# then a run that completes and loses nothing; a truncated data.mdb (push,
# pull, and "manifest info"): exit 2 with the rebuild hint, then
# --rebuild-manifest rebuilds it without uploading anything again;
# corrupted pages (seeded): never a crash, exit 2 or a correct run; a
# record that does not decode: exit 2 naming it.
. "$(dirname "$0")/lib.sh"

B=manifest-$$
T=$WORK/tree
M=$WORK/m
DAMAGE="$TOP/tests/integration/lmdb_damage.py"
HINT='the manifest at .* is damaged \(.*\): run again with --rebuild-manifest, or delete .*; it is a cache, nothing else is lost'
mkbucket "$B"
python3 "$TOP/tests/integration/gen_tree.py" "$T" "$(mib 400 150)" 5 8192
# one object in parts: without a record, its content is compared by HEAD
head -c $(((8 + $(mib 4 1)) << 20)) /dev/urandom >"$T/parts.bin"

equal() {
	python3 "$TOP/tests/integration/bucket_equals_tree.py" "$T" "$B" p/
}

# sane STATUS ERRFILE: the run was not ended by a signal (status 128 and
# up, as the shell reports it) and no sanitizer spoke.
sane() {
	[ "$1" -lt 128 ] && ! grep -Eq 'Sanitizer|runtime error' "$2"
}

# fresh: M becomes a copy of the manifest of the complete push.
fresh() {
	rm -rf "$M"
	cp -r "$WORK/good" "$M"
}

# killed once 40 objects are sent, with the manifest's batches committed
m=$(mark)
"$FERRY" sync "$T" "s3://$B/p" --manifest "$M" --quiet --jobs 2 &
pid=$!
for i in $(seq 400); do
	[ "$("$COUNT" --no-settle "$FERRY_TEST_LOG" "$m" put)" -ge 40 ] && break
	sleep 0.05
done
kill -9 "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
echo "# killed after $("$COUNT" "$FERRY_TEST_LOG" "$m" put) PUTs"
if equal >/dev/null; then
	not_ok "a push is killed with -9 midway (it had ended)"
else
	ok "a push is killed with -9 midway"
fi
"$FERRY" sync "$T" "s3://$B/p" --manifest "$M" --quiet 2>"$WORK/err"
is "$?" 0 "a push after one killed with -9 completes"
check "... and the bucket equals the tree" equal
rm -f "$M/lock.mdb"
cp -r "$M" "$WORK/good"

# LMDB's page size, from the first meta page
PS=$(python3 -c 'import struct, sys
print(struct.unpack_from("<I", open(sys.argv[1], "rb").read(64), 40)[0])' \
	"$M/data.mdb")
size=$(stat -c %s "$M/data.mdb")
for cut in 100 $((PS + 100)) $((PS * 2)) $((size / 2)) $((size - PS)); do
	fresh
	python3 "$DAMAGE" "$M/data.mdb" truncate "$cut" >/dev/null
	"$FERRY" sync "$T" "s3://$B/p" --manifest "$M" --quiet 2>"$WORK/err"
	st=$?
	is "$st" 2 "a data.mdb cut to $cut bytes: exit 2"
	like "$(cat "$WORK/err")" "$HINT" "... with the rebuild hint"
	sane "$st" "$WORK/err" || not_ok "... and no crash"
done
"$FERRY" manifest info --manifest "$M" >/dev/null 2>"$WORK/err"
is "$?" 2 "manifest info on a cut data.mdb: exit 2"
like "$(cat "$WORK/err")" "$HINT" "... with the rebuild hint"

m=$(mark)
"$FERRY" sync "$T" "s3://$B/p" --manifest "$M" --rebuild-manifest --json \
	>"$WORK/re.json" 2>"$WORK/err"
is "$?" 0 "--rebuild-manifest rebuilds it"
is "$(requests "$m" put)" 0 "... uploading nothing again"
is "$(requests "$m" head)" 1 "... with one HEAD, for the object in parts"
check "... and the bucket equals the tree" equal
m=$(mark)
"$FERRY" sync "$T" "s3://$B/p" --manifest "$M" --quiet
is "$?" 0 "the next run exits 0"
is "$(requests "$m" total)" 1 "... and only lists"

# a pull's manifest cut short
P=$WORK/pulled
"$FERRY" sync "s3://$B/p" "$P" --manifest "$WORK/pm" --quiet
python3 "$DAMAGE" "$WORK/pm/data.mdb" truncate $((PS * 3)) >/dev/null
"$FERRY" sync "s3://$B/p" "$P" --manifest "$WORK/pm" --quiet 2>"$WORK/err"
is "$?" 2 "a pull with its data.mdb cut short: exit 2"
like "$(cat "$WORK/err")" "$HINT" "... with the rebuild hint"
"$FERRY" sync "s3://$B/p" "$P" --manifest "$WORK/pm" --quiet \
	--rebuild-manifest
is "$?" 0 "... and a pull with --rebuild-manifest completes"
python3 "$DAMAGE" "$WORK/pm/data.mdb" record remote >/dev/null
"$FERRY" sync "s3://$B/p" "$P" --manifest "$WORK/pm" --quiet 2>"$WORK/err"
is "$?" 2 "a pull meeting a record that does not decode: exit 2"
like "$(cat "$WORK/err")" "does not decode\): run again with --rebuild" \
	"... with the rebuild hint"

# bytes overwritten in page headers, node pointers and node headers
crashed=0
damaged=0
for seed in $(seq 1 "$(mib 16 8)"); do
	fresh
	python3 "$DAMAGE" "$M/data.mdb" pages "$seed" 4 >"$WORK/what"
	"$FERRY" sync "$T" "s3://$B/p" --manifest "$M" --quiet 2>"$WORK/err"
	st=$?
	if ! sane "$st" "$WORK/err"; then
		crashed=$((crashed + 1))
		echo "# seed $seed: exit $st"
		sed 's/^/#   /' "$WORK/what"
		grep -E 'Sanitizer|runtime error' "$WORK/err" | head -n 3 |
			sed 's/^/#   /'
	elif [ "$st" = 2 ]; then
		grep -Eq "$HINT" "$WORK/err" && damaged=$((damaged + 1))
	elif [ "$st" != 0 ] || ! equal; then
		not_ok "seed $seed: exit $st and the bucket as the tree"
	fi
done
is "$crashed" 0 "damaged pages never crash a run"
like "$damaged" '^[1-9]' "... and are reported with the rebuild hint"

for table in local remote; do
	fresh
	python3 "$DAMAGE" "$M/data.mdb" record "$table" >/dev/null
	"$FERRY" sync "$T" "s3://$B/p" --manifest "$M" --quiet 2>"$WORK/err"
	is "$?" 2 "a $table record that does not decode: exit 2"
	like "$(cat "$WORK/err")" \
		"is damaged \(the record of '.*' does not decode\): run again with --rebuild-manifest" \
		"... naming it, with the rebuild hint"
done
"$FERRY" sync "$T" "s3://$B/p" --manifest "$M" --rebuild-manifest --quiet
is "$?" 0 "--rebuild-manifest then completes"
check "... and the bucket equals the tree" equal

done_testing
