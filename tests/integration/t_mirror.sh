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
head -c $((64 << 20)) /dev/urandom >"$T/big.bin"
"$FERRY" sync "$T" "s3://$S/m" --quiet
is "$?" 0 "the source is pushed"

opts=(--multipart-threshold 16M --part-size 8M --json)
m=$(mark)
"$FERRY" sync "s3://$S/m" "s3://$D/n" "${opts[@]}" >"$WORK/1.json"
is "$?" 0 "a mirror of 401 objects exits 0"
is "$(summary "$WORK/1.json" copied)" 401 "ferry reports 401 copies"
is "$(requests "$m" get)" 0 "no object data is read through ferry (no GET)"
is "$(requests "$m" put)" 408 "400 CopyObject and 8 UploadPartCopy"
check "the destination lists the same keys and sizes" \
	python3 "$TOP/tests/integration/bucket_equals_tree.py" "$T" "$D" n/
s3 get "$D" n/big.bin "$WORK/big.bin"
check "the 64 MiB copy is byte-identical" cmp -s "$WORK/big.bin" "$T/big.bin"
rm -f "$WORK/big.bin"

m=$(mark)
"$FERRY" sync "s3://$S/m" "s3://$D/n" "${opts[@]}" >"$WORK/2.json"
is "$?" 0 "an unchanged re-mirror exits 0"
is "$(requests "$m" total)" 2 "... and sends only the two listings"

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
cat >"$WORK/credentials" <<CRED
[one]
aws_access_key_id = $AWS_ACCESS_KEY_ID
aws_secret_access_key = $AWS_SECRET_ACCESS_KEY
[two]
aws_access_key_id = $FERRY_TEST_ACCESS2
aws_secret_access_key = $FERRY_TEST_SECRET2
CRED
D2=mirror-two-$$
AWS_ACCESS_KEY_ID=$FERRY_TEST_ACCESS2 AWS_SECRET_ACCESS_KEY=$FERRY_TEST_SECRET2 \
	s3 mb "$D2"
m=$(mark)
env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY \
	AWS_SHARED_CREDENTIALS_FILE="$WORK/credentials" \
	"$FERRY" sync "s3://$S/m" "s3://$D2/s" --source-profile one \
	--profile two "${opts[@]}" >"$WORK/4.json"
is "$?" 0 "a streamed mirror between two accounts exits 0"
is "$(summary "$WORK/4.json" copied)" 396 "... copying 396 objects"
is "$(requests "$m" get)" 403 "... read with 395 GETs and 8 ranged GETs"
AWS_ACCESS_KEY_ID=$FERRY_TEST_ACCESS2 AWS_SECRET_ACCESS_KEY=$FERRY_TEST_SECRET2 \
	s3 get "$D2" s/big.bin "$WORK/big.bin"
check "the streamed 64 MiB object is byte-identical" \
	cmp -s "$WORK/big.bin" "$T/big.bin"
m=$(mark)
env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY \
	AWS_SHARED_CREDENTIALS_FILE="$WORK/credentials" \
	"$FERRY" sync "s3://$S/m" "s3://$D2/s" --source-profile one \
	--profile two "${opts[@]}" >"$WORK/5.json"
is "$(requests "$m" total)" 2 "an unchanged streamed re-mirror only lists"

done_testing
