#!/usr/bin/env bash
# Keys with dot segments ("a/./b", "a/../b", "./x", "../y", "x/.", "x/..")
# are keys like any other to S3, which does not normalize paths: they go
# on the wire exactly as signed, so a push, a mirror (copied and streamed),
# a delete and a listing keep them byte for byte.  A pull refuses them
# (they would name another path, or one outside the folder) and writes
# nothing outside the folder.
. "$(dirname "$0")/lib.sh"

B=dots-$$
B2=dots-copy-$$
T=$WORK/tree
mkbucket "$B"
mkbucket "$B2"
mkdir -p "$T/sub"
echo one >"$T/a"
echo two >"$T/sub/b"

# hexes KEY...: the keys in hex, sorted, on one line (as s3 lshex prints)
hexes() {
	python3 -c 'import sys
print(" ".join(sorted(a.encode().hex() for a in sys.argv[1:])))' "$@"
}

# A push under prefixes with dot segments
prefixes=("p/./q/../r" "./lead" "../up" "end/." "end2/..")
want=()
for p in "${prefixes[@]}"; do
	"$FERRY" sync "$T" "s3://$B/$p" --quiet
	is "$?" 0 "a push under the prefix '$p' exits 0"
	want+=("$p/a" "$p/sub/b")
done
is "$(s3 lshex "$B")" "$(hexes "${want[@]}")" \
	"the bucket holds the keys exactly as named, dot segments and all"
s3 get "$B" "p/./q/../r/sub/b" "$WORK/got"
check "... each object holding its file's bytes" cmp -s "$WORK/got" "$T/sub/b"
m=$(mark)
"$FERRY" sync "$T" "s3://$B/p/./q/../r" --json >"$WORK/again.json"
is "$?" 0 "an unchanged push under 'p/./q/../r' exits 0"
is "$(summary "$WORK/again.json" uploaded)" 0 "... uploading nothing"
is "$(requests "$m" total)" 1 "... and sends only its listing"

# Objects whose own names hold dot segments
odd=("m/a/./b" "m/a/../b" "m/./x" "m/../y" "m/x/." "m/x/.." "m/ok")
echo odd >"$WORK/odd"
for k in "${odd[@]}"; do s3 put "$B" "$k" "$WORK/odd"; done
"$FERRY" ls "s3://$B/m" >"$WORK/ls.txt"
is "$?" 0 "ferry ls of such keys exits 0"
is "$(awk '{ print $4 }' "$WORK/ls.txt" | sort | tr '\n' ' ')" \
	"$(printf '%s\n' "${odd[@]}" | sort | tr '\n' ' ')" \
	"... naming each key as it is"

"$FERRY" sync "s3://$B/m" "s3://$B2/m" --quiet
is "$?" 0 "a mirror (server-side copies) of such keys exits 0"
is "$(s3 lshex "$B2" m/)" "$(s3 lshex "$B" m/)" \
	"... and the copy lists the same keys, byte for byte"
m=$(mark)
"$FERRY" sync "s3://$B/m" "s3://$B2/m" --json >"$WORK/m2.json"
is "$(summary "$WORK/m2.json" copied)" 0 "an unchanged re-mirror copies nothing"
is "$(requests "$m" total)" 2 "... and sends only the two listings"

# streamed: the source through another endpoint name, read with GETs
m=$(mark)
"$FERRY" sync "s3://$B/m" "s3://$B2/s" --json \
	--source-endpoint-url "${FERRY_TEST_ENDPOINT/127.0.0.1/localhost}" \
	>"$WORK/s.json"
is "$?" 0 "a streamed mirror of such keys exits 0"
is "$(summary "$WORK/s.json" copied)" 7 "... copying 7 objects"
is "$(requests "$m" get)" 7 "... read with 7 GETs"
is "$(s3 lshex "$B2" s/ | tr ' ' '\n' | sed 's/^73/6d/' | sort | tr '\n' ' ' |
	sed 's/ $//')" "$(s3 lshex "$B" m/)" \
	"... and keeping every name after the prefix byte for byte"
s3 get "$B2" "s/a/../b" "$WORK/got"
check "... with its bytes" cmp -s "$WORK/got" "$WORK/odd"

# deletes name such keys exactly too
rm "$T/a"
"$FERRY" sync "$T" "s3://$B/p/./q/../r" --delete --force --quiet
is "$?" 0 "a push with --delete under 'p/./q/../r' exits 0"
is "$(s3 lshex "$B" p/)" "$(hexes "p/./q/../r/sub/b")" \
	"... deleting exactly the key of the removed file"
s3 del "$B" "m/../y"
"$FERRY" sync "s3://$B/m" "s3://$B2/m" --delete --force --quiet
is "$(s3 lshex "$B2" m/)" "$(s3 lshex "$B" m/)" \
	"a mirror with --delete removes 'm/../y', and only it"

# A pull refuses them: they would land elsewhere, or outside the folder
mkdir -p "$WORK/pull"
"$FERRY" sync "s3://$B/m" "$WORK/pull/d" --json >"$WORK/pull.json" \
	2>"$WORK/pull.err"
is "$?" 1 "a pull of such keys exits 1"
is "$(grep -c '"type":"error"' "$WORK/pull.json")" 5 \
	"... refusing the five with a '.' or '..' segment"
is "$(cd "$WORK/pull" && find . -type f | sort | tr '\n' ' ')" "./d/ok " \
	"... and writing only the one plain key, inside the folder"
"$FERRY" sync "s3://$B/p/./q/../r" "$WORK/back" --quiet
is "$?" 0 "a pull from under the prefix 'p/./q/../r' exits 0"
check "... and gets back the tree" cmp -s "$WORK/back/sub/b" "$T/sub/b"

done_testing
