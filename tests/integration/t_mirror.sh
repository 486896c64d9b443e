#!/usr/bin/env bash
# Mirror: bucket to bucket, server-side copy on one account (no object
# bytes through ferry), streamed between accounts; unchanged reruns list.
. "$(dirname "$0")/lib.sh"

S=mirror-src-$$
D=mirror-dst-$$
T=$WORK/tree
mkbucket "$S"
mkbucket "$D"
python3 "$TOP/tests/integration/gen_tree.py" "$T" 400 11
big=$(mib 64 24)
head -c $((big << 20)) /dev/urandom >"$T/big.bin"
"$FERRY" sync "$T" "s3://$S/m" --quiet
is "$?" 0 "the source is pushed"

opts=(--multipart-threshold 16M --part-size 8M --json)
m=$(mark)
"$FERRY" sync "s3://$S/m" "s3://$D/n" "${opts[@]}" >"$WORK/1.json"
is "$?" 0 "a mirror of 401 objects exits 0"
is "$(summary "$WORK/1.json" copied)" 401 "ferry reports 401 copies"
if [ "${FERRY_TEST_SERVER:-ceph}" = swift ]; then
	# Swift compares x-amz-copy-source-if-match with its own ETag for a
	# multipart object: big.bin's part copies are refused (412), a HEAD
	# shows the source unchanged, and big.bin is streamed.
	is "$(requests_not "$m" get 'big[.]bin')" 0 \
		"no object data but the multipart object's is read through ferry"
	n=$(requests "$m" put)
	check "400 CopyObject, refused part copies, $((big / 8)) parts streamed ($n PUTs)" \
		between "$n" $((400 + big / 8 + 1)) $((400 + 2 * big / 8))
else
	is "$(requests "$m" get)" 0 "no object data is read through ferry (no GET)"
	is "$(requests "$m" put)" $((400 + big / 8)) \
		"400 CopyObject and $((big / 8)) UploadPartCopy"
fi
check "the destination lists the same keys and sizes" \
	python3 "$TOP/tests/integration/bucket_equals_tree.py" "$T" "$D" n/
s3 get "$D" n/big.bin "$WORK/big.bin"
check "the $big MiB copy is byte-identical" cmp -s "$WORK/big.bin" "$T/big.bin"
rm -f "$WORK/big.bin"

m=$(mark)
"$FERRY" sync "s3://$S/m" "s3://$D/n" "${opts[@]}" >"$WORK/2.json"
is "$?" 0 "an unchanged re-mirror exits 0"
is "$(requests "$m" total)" 2 "... and sends only the two listings"
err=$("$FERRY" sync "s3://$S/m" "s3://$D/n" "${opts[@]:0:4}" 2>&1 >/dev/null)
like "$err" '^0 copied, 0 B moved' \
	"... and its summary says what a mirror moves: 0 copied"

mapfile -t gone < <(s3 ls "$S" m/ | head -n 5 | cut -f 2)
for k in "${gone[@]}"; do
	s3 del "$S" "$k"
done
"$FERRY" sync "s3://$S/m" "s3://$D/n" "${opts[@]}" --delete >"$WORK/3.json"
is "$(summary "$WORK/3.json" deleted)" 5 "--delete removes exactly the 5 objects gone from the source"
n=$(s3 ls "$D" n/ | wc -l)
is "$n" 396 "... and the destination holds the other 396"

# Streamed: the destination belongs to a second user, who cannot read the
# source, so the bytes must pass through ferry.
# streamed SOURCE DEST OPTION...: a mirror reading as user one and
# writing as user two.
streamed() {
	two_users sync "$@" --source-profile one --profile two
}
D2=mirror-two-$$
AWS_ACCESS_KEY_ID=$FERRY_TEST_ACCESS2 AWS_SECRET_ACCESS_KEY=$FERRY_TEST_SECRET2 \
	s3 mb "$D2"
m=$(mark)
streamed "s3://$S/m" "s3://$D2/s" "${opts[@]}" >"$WORK/4.json"
is "$?" 0 "a streamed mirror between two accounts exits 0"
is "$(summary "$WORK/4.json" copied)" 396 "... copying 396 objects"
is "$(requests "$m" get)" $((395 + big / 8)) \
	"... read with 395 GETs and $((big / 8)) ranged GETs"
AWS_ACCESS_KEY_ID=$FERRY_TEST_ACCESS2 AWS_SECRET_ACCESS_KEY=$FERRY_TEST_SECRET2 \
	s3 get "$D2" s/big.bin "$WORK/big.bin"
check "the streamed $big MiB object is byte-identical" \
	cmp -s "$WORK/big.bin" "$T/big.bin"
m=$(mark)
streamed "s3://$S/m" "s3://$D2/s" "${opts[@]}" >"$WORK/5.json"
is "$(requests "$m" total)" 2 "an unchanged streamed re-mirror only lists"

# Metadata: the headers and x-amz-meta-* an object was put with travel
# with it: by CopyObject itself, and from one HEAD of the source for a
# multipart copy and for the streamed copies (the GET carries them for a
# single PUT).
head -c 1000 /dev/urandom >"$WORK/small.bin"
head -c $((20 << 20)) /dev/urandom >"$WORK/large.bin"
for f in small large; do
	s3 put "$S" "meta/$f.bin" "$WORK/$f.bin" Content-Type:text/x-ferry \
		"Cache-Control:max-age=3600, public" \
		'Content-Disposition:attachment; filename="f.bin"' \
		Content-Language:de "Expires:Tue, 01 Jan 2030 00:00:00 GMT" \
		x-amz-meta-a:1 x-amz-meta-b:two
done
rm -f "$WORK/small.bin" "$WORK/large.bin"

# meta_of BUCKET KEY: the object's headers and metadata, on one line.
meta_of() {
	s3 head "$1" "$2" | python3 -c 'import json, sys
h = json.load(sys.stdin)
names = ("content-type", "cache-control", "content-disposition",
         "content-language", "expires")
meta = {k[len("x-amz-meta-"):]: v for k, v in sorted(h.items())
        if k.startswith("x-amz-meta-")}
print(json.dumps([h.get(n) for n in names] + [meta]))'
}

want=$(meta_of "$S" meta/large.bin)
like "$want" '"text/x-ferry", "max-age=3600, public", "attachment; filename=\\"f.bin\\"", "de", "[^"]*01 Jan 2030 00:00:00 GMT", \{"a": "1", "b": "two"\}' \
	"the source objects carry headers and metadata"
m=$(mark)
"$FERRY" sync "s3://$S/meta" "s3://$D/meta" "${opts[@]}" >"$WORK/6.json"
is "$?" 0 "a mirror of objects with metadata exits 0"
is "$(requests "$m" head)" 1 "... with one HEAD, for the multipart copy"
for f in small large; do
	is "$(meta_of "$D" "meta/$f.bin")" "$want" \
		"the $f copy has the source's headers and metadata"
done
m=$(mark)
streamed "s3://$S/meta" "s3://$D2/meta" "${opts[@]}" >"$WORK/7.json"
is "$?" 0 "a streamed mirror of objects with metadata exits 0"
is "$(requests "$m" head)" 1 "... with one HEAD, for the multipart upload"
for f in small large; do
	got=$(AWS_ACCESS_KEY_ID=$FERRY_TEST_ACCESS2 \
		AWS_SECRET_ACCESS_KEY=$FERRY_TEST_SECRET2 meta_of "$D2" "meta/$f.bin")
	is "$got" "$want" "the streamed $f object has the headers and metadata"
done

done_testing
