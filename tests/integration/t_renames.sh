#!/usr/bin/env bash
# --track-renames: a push whose new key holds the content of a key the
# same run deletes copies it on the server (CopyObject from the old key,
# the file's own metadata, x-amz-metadata-directive: REPLACE) instead of
# uploading it; the old key is deleted after.  A renamed folder of 100
# files moves with no byte sent, and its 100 deletes are not refused as
# a mass delete (they lose no byte).  Two new names of one old key both
# copy it.  A new key is uploaded when the old object is not the one
# ferry wrote (its ETag is not the recorded one), when the server
# refuses the copy, or when the file changes before its copy.  The
# requests are seen with their headers at a proxy; the bytes are read
# back with an independent client (s3.py).
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

B=renames-$$
T=$WORK/tree
mkbucket "$B"

mkdir -p "$T/old" "$T/keep"
for i in $(seq -w 1 100); do
	head -c $((1000 + 10#$i * 37)) /dev/urandom >"$T/old/f$i.bin"
done
echo kept >"$T/keep/k.txt"

start_proxy p --rate 0 --log-headers x-amz-copy-source,x-amz-metadata-directive
LOG=$WORK/p.log
push() {
	"$FERRY" sync "$T" "s3://$B/p" --endpoint-url "$PROXY" --delete \
		--json "$@"
}
meta() {
	head_field "$B" "$1" "$2"
}
# same DIR PREFIX: whether the objects under PREFIX are the files of DIR,
# byte for byte, and no more
same() {
	rm -rf "$WORK/got"
	mkdir -p "$WORK/got"
	s3 getall "$B" "$2" "$WORK/got" >/dev/null && diff -r "$1" "$WORK/got" >&2
}

push --track-renames >"$WORK/1.json"
is "$?" 0 "the first push exits 0"
is "$(summary "$WORK/1.json" uploaded)" 101 "... uploading the 101 files"

# --- a renamed folder of 100 files: 100 copies, no upload, no byte
mv "$T/old" "$T/new"
chmod 0600 "$T/new/f007.bin"
l=$(proxy_lines)
push --track-renames >"$WORK/2.json" 2>"$WORK/2.err"
is "$?" 0 "a push after the folder's rename exits 0"
is "$(proxy_uploads "$l")" 0 "... no PUT without x-amz-copy-source"
is "$(proxy_copies "$l")" 100 "... 100 PUTs with one"
is "$(proxy_at "$l" | grep -c "^hdr PUT /$B/p/new/f\([0-9]*\)\.bin x-amz-copy-source=/\?$B/p/old/f\1\.bin x-amz-metadata-directive=REPLACE")" \
	100 "... each new key copied from its old key, its metadata replaced"
is "$(summary "$WORK/2.json" renamed):$(summary "$WORK/2.json" uploaded):$(summary "$WORK/2.json" bytes_sent)" \
	100:0:0 "... counted as renamed, no byte sent"
is "$(summary "$WORK/2.json" deleted)" 100 "... the 100 old keys deleted"
is "$(grep -c refusing "$WORK/2.err")" 0 "... not refused as a mass delete"
json_valid "$WORK/2.json"
is "$?" 0 "... its output valid against the event schema"
check "the bucket holds the renamed folder's bytes" same "$T/new" p/new/
is "$(s3 ls "$B" p/old | wc -l)" 0 "... and nothing under the old name"
is "$(meta p/new/f007.bin x-amz-meta-mode)" 100600 \
	"a copy carries its own file's mode"
l=$(proxy_lines)
push --track-renames >"$WORK/3.json"
is "$(proxy_at "$l" | grep -c '^hdr \(PUT\|POST\|DELETE\) ')" 0 \
	"the next run sends nothing"

# --- without --track-renames, the same rename is uploaded again
mv "$T/new" "$T/again"
l=$(proxy_lines)
push --force >"$WORK/4.json"
is "$(proxy_uploads "$l"):$(proxy_copies "$l")" 100:0 \
	"without --track-renames: 100 uploads, no copy"

# --- the guard without --track-renames still refuses the mass delete
mv "$T/again" "$T/new"
l=$(proxy_lines)
push >"$WORK/5.json" 2>"$WORK/5.err"
is "$(grep -c 'refusing 100 deletes' "$WORK/5.err")" 1 \
	"without renames, 100 of 102 keys deleted is refused"
is "$(s3 ls "$B" p/again | wc -l)" 100 "... nothing deleted"
s3 rm "$B" p/again >/dev/null
push --force >/dev/null

# --- two new names of one old key: both copy it, then it is deleted
mv "$T/new/f001.bin" "$T/new/g1.bin"
cp "$T/new/g1.bin" "$T/new/g2.bin"
l=$(proxy_lines)
push --track-renames >"$WORK/6.json"
is "$(proxy_uploads "$l"):$(proxy_copies "$l")" 0:2 "one old key, two new names: two copies"
is "$(proxy_at "$l" | grep -c "x-amz-copy-source=/\?$B/p/new/f001\.bin ")" 2 \
	"... both from it"
is "$(summary "$WORK/6.json" renamed):$(summary "$WORK/6.json" deleted)" \
	2:1 "... then it is deleted"
check "... the bytes under both" same "$T/new" p/new/

# --- an old object that is not the one ferry wrote is no source
mv "$T/new/f002.bin" "$T/new/h2.bin"
head -c 500 /dev/urandom >"$WORK/other"
s3 put "$B" p/new/f002.bin "$WORK/other" >/dev/null
l=$(proxy_lines)
push --track-renames >"$WORK/7.json"
is "$(proxy_uploads "$l"):$(proxy_copies "$l")" 1:0 \
	"an old key rewritten by another client: uploaded, not copied"
check "... the bytes right" same "$T/new" p/new/

# --- a dry run shows the rename and sends nothing
mv "$T/new/f003.bin" "$T/new/i3.bin"
l=$(proxy_lines)
push --track-renames --dry-run >"$WORK/8.json"
is "$(pick "$WORK/8.json" 'l["action"] + ":" + l["key"] for l in L if l.get("type") == "plan"')" \
	"delete:p/new/f003.bin rename:p/new/i3.bin" "a dry run shows the rename"
is "$(summary "$WORK/8.json" renamed)" 1 "... counts it"
is "$(proxy_at "$l" | grep -c '^hdr \(PUT\|DELETE\|POST\) ')" 0 "... and sends nothing"
push --track-renames >/dev/null

# --- a server that refuses the copy: uploaded instead, nothing lost.
# The proxy comes back on the same port: the manifest is the same
# endpoint's.
port=${PROXY##*:}
stop_proxy
start_proxy f --port "$port" --always --kinds 501 --only-methods PUT --max-faults 1 \
	--match "^/$B/p/new/j4\.bin" \
	--log-headers x-amz-copy-source,x-amz-metadata-directive
LOG=$WORK/f.log
mv "$T/new/f004.bin" "$T/new/j4.bin"
push --track-renames >"$WORK/9.json" 2>"$WORK/9.err"
is "$?" 0 "a push whose copy is refused exits 0"
is "$(proxy_uploads 0):$(proxy_copies 0)" 1:1 "... the refused copy, then an upload"
is "$(summary "$WORK/9.json" uploaded):$(summary "$WORK/9.json" renamed)" \
	1:0 "... counted as an upload"
check "... the bytes right" same "$T/new" p/new/
stop_proxy

# --- a file changed before its copy: uploaded with its new bytes.  The
# first copy is held at the proxy while the second file is rewritten
# (same size), one request at a time.
start_proxy d --port "$port" --always --kinds delay --delay 3 --only-methods PUT \
	--max-faults 1 --match "^/$B/p/new/k5\.bin" \
	--log-headers x-amz-copy-source,x-amz-metadata-directive
LOG=$WORK/d.log
mv "$T/new/f005.bin" "$T/new/k5.bin"
mv "$T/new/f006.bin" "$T/new/k6.bin"
push --track-renames --jobs 1 >"$WORK/10.json" 2>"$WORK/10.err" &
pid=$!
held d
n=$(stat -c %s "$T/new/k6.bin")
head -c "$n" /dev/urandom >"$WORK/k6"
cat "$WORK/k6" >"$T/new/k6.bin"
wait "$pid"
is "$?" 0 "a push whose file changes before its copy exits 0"
is "$(proxy_at 0 | grep -c "^hdr PUT /$B/p/new/k6\.bin x-amz-copy-source=-")" 1 \
	"... that file uploaded, not copied"
is "$(summary "$WORK/10.json" renamed)" 1 "... the other copied"
check "... the bytes right" same "$T/new" p/new/
stop_proxy

# --- -H with --track-renames is refused before anything is sent: a
# renamed file's copy would not carry its hard link marker
s3 ls "$B" p/ | sort >"$WORK/h.before"
mv "$T/new/k5.bin" "$T/new/h5.bin"
ln "$T/new/h5.bin" "$T/new/h5b.bin"
"$FERRY" sync "$T" "s3://$B/p" --endpoint-url "$FERRY_TEST_ENDPOINT" \
	--delete -H --track-renames >"$WORK/h.out" 2>"$WORK/h.err"
is "$?" 2 "-H with --track-renames exits 2"
like "$(cat "$WORK/h.err")" "--track-renames and -H, --hard-links cannot be used together" \
	"... saying the two cannot be used together"
s3 ls "$B" p/ | sort >"$WORK/h.after"
check "... the bucket as it was" cmp -s "$WORK/h.before" "$WORK/h.after"

done_testing
