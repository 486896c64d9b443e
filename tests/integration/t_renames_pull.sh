#!/usr/bin/env bash
# --track-renames on a pull: an object renamed on the bucket side (a new
# key whose size and ETag are those of the object last pulled under a key
# now gone, confirmed by a HEAD) moves the local file to the new name,
# with no GET: the same inode, its metadata given as a pull of the new
# object gives it, and the move is the old file's delete, not counted
# against --max-delete.  A file changed here since its pull, and a new
# key of the same size but other bytes, are downloaded instead.  The
# requests are seen at a proxy; the trees compared with diff.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

B=rpull-$$
T=$WORK/tree
D=$WORK/dest
mkbucket "$B"

mkdir -p "$T/old" "$T/keep"
for i in $(seq -w 1 100); do
	head -c $((1000 + 10#$i * 37)) /dev/urandom >"$T/old/f$i.bin"
done
echo kept >"$T/keep/k.txt"

start_proxy p --rate 0 --log-headers x-amz-copy-source
LOG=$WORK/p.log
push() {
	"$FERRY" sync "$T" "s3://$B/p" --endpoint-url "$FERRY_TEST_ENDPOINT" \
		--delete --track-renames --json "$@"
}
pull() {
	"$FERRY" sync "s3://$B/p" "$D" --endpoint-url "$PROXY" --delete \
		--json "$@"
}
# gets LINE: the GETs of objects under p/ since LINE (not listings)
gets() {
	proxy_at "$1" | grep -c "^hdr GET /$B/p/"
}
# same: whether the tree pulled is the one pushed (a pull leaves the
# folders its deletes empty, as old/ here)
same() {
	diff -r -x old "$T" "$D" >&2
}
inodes() {
	(cd "$D/$1" && stat -c '%i %s %n' -- *)
}

push >"$WORK/1.json"
is "$?" 0 "the first push exits 0"
pull >"$WORK/p1.json"
is "$?" 0 "the first pull exits 0"
is "$(summary "$WORK/p1.json" downloaded)" 101 "... downloading the 101 files"
inodes old >"$WORK/ino.old"

# --- a folder of 100 objects renamed on the bucket (server-side copies)
mv "$T/old" "$T/new"
push >"$WORK/2.json"
is "$(summary "$WORK/2.json" renamed)" 100 "the bucket's folder renamed by copies"
l=$(proxy_lines)
pull --track-renames >"$WORK/p2.json" 2>"$WORK/p2.err"
is "$?" 0 "a pull with --track-renames after the rename exits 0"
is "$(gets "$l")" 0 "... no GET of an object"
is "$(summary "$WORK/p2.json" renamed):$(summary "$WORK/p2.json" downloaded):$(summary "$WORK/p2.json" bytes_sent)" \
	100:0:0 "... 100 counted as renamed, none downloaded, no byte"
is "$(grep -c refusing "$WORK/p2.err")" 0 "... not refused as a mass delete"
is "$(pick "$WORK/p2.json" 'l["key"] for l in L if l.get("type") == "rename"' | wc -w)" \
	100 "... each told as a rename"
json_valid "$WORK/p2.json"
is "$?" 0 "... its output valid against the event schema"
inodes new >"$WORK/ino.new"
check "... each file the same inode, now under its new name" \
	cmp -s "$WORK/ino.old" "$WORK/ino.new"
is "$(find "$D/old" -type f 2>/dev/null | wc -l)" 0 "... nothing left under the old name"
check "... the tree the bucket's" same
is "$(stat -c %Y "$D/new/f007.bin")" "$(stat -c %Y "$T/new/f007.bin")" \
	"... a moved file keeps the object's mtime"
l=$(proxy_lines)
pull --track-renames >"$WORK/p3.json"
is "$(summary "$WORK/p3.json" downloaded):$(summary "$WORK/p3.json" renamed):$(summary "$WORK/p3.json" deleted)" \
	0:0:0 "the next pull has nothing to do"

# --- a file changed here since its pull is not moved; a new key of the
# same size with other bytes is not either; a plain rename beside them is
head -c "$(stat -c %s "$D/new/f050.bin")" /dev/urandom >"$D/new/f050.bin"
mv "$T/new/f050.bin" "$T/new/g050.bin"
n=$(stat -c %s "$T/new/f051.bin")
rm "$T/new/f051.bin"
head -c "$n" /dev/urandom >"$T/new/g051.bin"
mv "$T/new/f052.bin" "$T/new/g052.bin"
ino52=$(stat -c %i "$D/new/f052.bin")
push >"$WORK/4.json"
is "$(summary "$WORK/4.json" renamed):$(summary "$WORK/4.json" uploaded)" 2:1 \
	"the bucket: two renames, one new object of a gone one's size"
l=$(proxy_lines)
pull --track-renames >"$WORK/p4.json"
is "$?" 0 "a pull with a changed file and a new content exits 0"
is "$(proxy_at "$l" | grep "^hdr GET /$B/p/" | awk '{print $3}' | sed 's/?.*//' | sort | tr '\n' ' ')" \
	"/$B/p/new/g050.bin /$B/p/new/g051.bin " \
	"... the changed file's and the new content's objects downloaded"
is "$(summary "$WORK/p4.json" renamed):$(summary "$WORK/p4.json" downloaded)" \
	1:2 "... one renamed, two downloaded"
is "$(stat -c %i "$D/new/g052.bin")" "$ino52" "... the plain rename moved its file"
check "... the tree the bucket's" same

# --- a dry run shows the rename and changes nothing
mv "$T/new/f053.bin" "$T/new/h053.bin"
push >/dev/null
l=$(proxy_lines)
pull --track-renames --dry-run >"$WORK/p5.json"
is "$(pick "$WORK/p5.json" 'l["action"] + ":" + l["key"] for l in L if l.get("type") == "plan"')" \
	"rename:p/new/h053.bin" "a dry run shows the rename, and no delete"
is "$(summary "$WORK/p5.json" renamed)" 1 "... counts it"
is "$(gets "$l")" 0 "... reads no object"
check "... the file where it was" test -f "$D/new/f053.bin"
pull --track-renames >/dev/null
check "... which the run then moves" same

# --- with --preserve, a moved file is given the mode its new object
# carries, as its download would be
mv "$T/new/f055.bin" "$T/new/j055.bin"
chmod 0604 "$T/new/j055.bin"
ino55=$(stat -c %i "$D/new/f055.bin")
push >/dev/null
l=$(proxy_lines)
pull --track-renames --preserve >"$WORK/p7.json"
is "$(gets "$l"):$(summary "$WORK/p7.json" renamed)" 0:1 \
	"with --preserve: renamed, no GET"
is "$(stat -c %i:%a "$D/new/j055.bin")" "$ino55:604" \
	"... the same inode, given the object's mode"

# --- with -X, which gives a file the attributes its object carries and
# takes none away, a moved file could keep some its new object lacks:
# downloaded instead
mv "$T/new/f056.bin" "$T/new/k056.bin"
push >/dev/null
l=$(proxy_lines)
pull --track-renames -X >"$WORK/p8.json" 2>/dev/null
is "$(gets "$l"):$(summary "$WORK/p8.json" renamed):$(summary "$WORK/p8.json" deleted)" \
	1:0:1 "with -X: a GET and a delete, no move"
check "... the tree the bucket's" same

# --- without --track-renames, the same rename is a GET and a delete
mv "$T/new/f054.bin" "$T/new/i054.bin"
push >/dev/null
l=$(proxy_lines)
pull >"$WORK/p6.json"
is "$(gets "$l"):$(summary "$WORK/p6.json" renamed):$(summary "$WORK/p6.json" deleted)" \
	1:0:1 "without --track-renames: a GET and a delete"
check "... the tree the bucket's" same

# --- -H with --track-renames is refused before anything is done
"$FERRY" sync "s3://$B/p" "$D" --endpoint-url "$PROXY" --delete -H \
	--track-renames >"$WORK/h.out" 2>"$WORK/h.err"
is "$?" 2 "a pull with -H and --track-renames exits 2"
like "$(cat "$WORK/h.err")" "--track-renames and -H, --hard-links cannot be used together" \
	"... saying the two cannot be used together"

done_testing
