#!/usr/bin/env bash
# Hard links (-H): the names of one inode go up once; the others are
# server-side copies of the first (PUT with x-amz-copy-source, no byte
# sent), each marked with the first name's key (x-amz-meta-ferry-hardlink,
# relative to the prefix); a pull -H makes them links again, inside the
# folder only.  Without -H, names are files as before.  Copies and
# uploads are counted at a proxy in front of the gateway.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

B=hardlinks-$$
T=$WORK/tree
mkbucket "$B"

mkdir -p "$T/h"
head -c 100000 /dev/urandom >"$T/h/l0"
for i in 1 2 3 4 5 6 7 8 9; do
	ln "$T/h/l0" "$T/h/l$i"
done
echo plain >"$T/plain.txt"

start_proxy p --rate 0 --log-headers x-amz-copy-source,x-amz-metadata-directive
LOG=$WORK/p.log
push() {
	local prefix=$1
	shift
	"$FERRY" sync "$T" "s3://$B/$prefix" --endpoint-url "$PROXY" --json "$@"
}
# meta KEY HEADER: a header of the object's HEAD reply ("" when absent)
meta() {
	head_field "$B" "$1" "$2"
}
# inodes DIR NAME...: how many distinct inodes the names have
inodes() {
	local d=$1
	shift
	(cd "$d" && stat -c %i "$@") | sort -u | wc -l
}
pull() {
	"$FERRY" sync "s3://$B/$1" "$WORK/$2" --endpoint-url "$FERRY_TEST_ENDPOINT" \
		--json "${@:3}"
}
names() {
	local n
	for n in "$@"; do echo "h/l$n"; done
}

# --- 10 names of one file: one upload, 9 copies
l=$(proxy_lines)
push p -H >"$WORK/1.json"
is "$?" 0 "a push -H of 10 links exits 0"
is "$(proxy_uploads "$l"):$(proxy_copies "$l")" 2:9 \
	"... one upload of the file (and one of plain.txt), 9 copies"
is "$(summary "$WORK/1.json" uploaded):$(summary "$WORK/1.json" linked)" 2:9 \
	"... counted as 2 uploaded, 9 linked"
is "$(summary "$WORK/1.json" bytes_sent)" 100006 "... the file's bytes sent once"
json_valid "$WORK/1.json"
is "$?" 0 "... its output valid against the event schema"
is "$(meta p/h/l5 x-amz-meta-ferry-hardlink)" h/l0 \
	"a link's object is marked with the first name, relative to the prefix"
is "$(meta p/h/l0 x-amz-meta-ferry-hardlink)" "" "... the first name is not"
like "$(meta p/h/l5 x-amz-meta-ferry-xxh128)" '^[0-9a-f]{32}$' \
	"... the copy carries the file's content hash"

# --- pull -H: 10 names of one inode
pull p r1 -H >"$WORK/r1.json"
is "$?" 0 "pull -H exits 0"
is "$(stat -c %h "$WORK/r1/h/l0"):$(inodes "$WORK/r1" $(names 0 1 2 3 4 5 6 7 8 9))" \
	10:1 "... the 10 names are links of one inode"
is "$(summary "$WORK/r1.json" linked)" 9 "... 9 counted as linked"
check "... with the file's bytes" cmp -s "$T/h/l0" "$WORK/r1/h/l9"
is "$(stat -c %h "$WORK/r1/plain.txt")" 1 "... a plain file stays one"

# --- pull without -H: plain files
pull p r2 >/dev/null
is "$(stat -c %h "$WORK/r2/h/l0"):$(inodes "$WORK/r2" $(names 0 1 2 3 4 5 6 7 8 9))" \
	1:10 "pull without -H: 10 plain files"

# --- an unchanged group sends nothing
l=$(proxy_lines)
push p -H >"$WORK/2.json"
is "$?:$(proxy_uploads "$l"):$(proxy_copies "$l")" 0:0:0 "an unchanged push -H sends nothing"
is "$(summary "$WORK/2.json" skipped)" 11 "... all 11 unchanged"

# --- a new link to a stored file, its name first in key order: one copy
ln "$T/h/l0" "$T/h/a-new"
l=$(proxy_lines)
push p -H >"$WORK/3.json"
is "$?:$(proxy_uploads "$l"):$(proxy_copies "$l")" 0:0:1 "a new link is one copy, no upload"
is "$(meta p/h/a-new x-amz-meta-ferry-hardlink)" h/l0 \
	"... from a name stored already"
l=$(proxy_lines)
push p -H >/dev/null
is "$(proxy_uploads "$l"):$(proxy_copies "$l")" 0:0 "... and the next push sends nothing"

# --- new bytes through one name: every name changed, one upload + copies
head -c 50000 /dev/urandom >"$WORK/new"
cat "$WORK/new" >"$T/h/l3"
l=$(proxy_lines)
push p -H >"$WORK/4.json"
is "$?:$(proxy_uploads "$l"):$(proxy_copies "$l")" 0:1:10 \
	"new bytes through one name: 1 upload, 10 copies"
s3 get "$B" p/h/l7 "$WORK/l7"
check "... the objects hold the new bytes" cmp -s "$WORK/new" "$WORK/l7"

# --- a chmod of the file: every name's metadata, no byte
chmod 0600 "$T/h/l0"
l=$(proxy_lines)
push p -H >"$WORK/4m.json"
is "$?:$(proxy_uploads "$l"):$(proxy_copies "$l")" 0:0:11 \
	"a chmod of the file: 11 copies, no upload"
is "$(summary "$WORK/4m.json" metadata):$(summary "$WORK/4m.json" linked)" 1:10 \
	"... one onto itself, 10 from it"
is "$(meta p/h/l7 x-amz-meta-mode):$(meta p/h/a-new x-amz-meta-mode)" 100600:100600 \
	"... each name's object with the new mode"

# --- pull -H again: the first name replaced in the same run
pull p r1 -H >"$WORK/r1b.json"
is "$?" 0 "pull -H of the changed group exits 0"
is "$(stat -c %h "$WORK/r1/h/a-new"):$(inodes "$WORK/r1" h/a-new $(names 0 1 2 3 4 5 6 7 8 9))" \
	11:1 "... its 11 names one inode"
check "... holding the new bytes" cmp -s "$WORK/new" "$WORK/r1/h/l0"

# --- a group split by a filter: only the names synced
l=$(proxy_lines)
push q -H --exclude 'h/a-new' >"$WORK/5.json"
is "$?:$(proxy_uploads "$l"):$(proxy_copies "$l")" 0:2:9 \
	"--exclude of one name: one upload of the file, 9 copies"
is "$(meta q/h/l1 x-amz-meta-ferry-hardlink)" h/l0 \
	"... marked with the first name synced"
is "$(s3 ls "$B" q/h/a-new | wc -l)" 0 "... the excluded name not sent"

# --- without -H: each name uploaded, as before
l=$(proxy_lines)
push n >/dev/null
is "$(proxy_uploads "$l"):$(proxy_copies "$l")" 12:0 "without -H: 12 uploads, no copy"
stop_proxy

# --- the first name fails to upload: no copy, the run fails
start_proxy f --always --kinds 500 --only-methods PUT --match "/f/h/a-new"
LOG=$WORK/f.log
"$FERRY" sync "$T" "s3://$B/f" --endpoint-url "$PROXY" --json -H \
	--retries 1 >"$WORK/6.json" 2>"$WORK/6.err"
is "$?" 1 "a push -H whose first name fails exits 1"
is "$(s3 ls "$B" f/h/ | wc -l)" 0 "... and no name of the file is copied"
is "$(summary "$WORK/6.json" failed):$(summary "$WORK/6.json" linked)" 11:0 \
	"... all 11 names failed, none linked"
like "$(cat "$WORK/6.json" "$WORK/6.err")" "not copied: h/a-new, the first name of its file, was not stored" \
	"... saying why"
stop_proxy

# --- markers that name no file here, or a path outside the folder
echo secret >"$WORK/outside"
echo x >"$WORK/x"
s3 put "$B" m/inside "$WORK/x" >/dev/null
s3 put "$B" m/up "$WORK/x" "x-amz-meta-ferry-hardlink:..%2Foutside" >/dev/null
s3 put "$B" m/dots "$WORK/x" "x-amz-meta-ferry-hardlink:../outside" >/dev/null
s3 put "$B" m/abs "$WORK/x" "x-amz-meta-ferry-hardlink:%2Fetc%2Fpasswd" >/dev/null
s3 put "$B" m/gone "$WORK/x" "x-amz-meta-ferry-hardlink:missing" >/dev/null
s3 put "$B" m/bad "$WORK/x" "x-amz-meta-ferry-hardlink:a%zz" >/dev/null
s3 put "$B" m/other "$WORK/x" "x-amz-meta-ferry-hardlink:inside" >/dev/null
mkdir -p "$WORK/r3"
pull m r3/d -H >"$WORK/r3.json" 2>"$WORK/r3.err"
is "$?" 0 "pull -H of objects with bad markers exits 0"
is "$(stat -c %h "$WORK/r3/d/up"):$(stat -c %h "$WORK/r3/d/dots"):$(stat -c %h "$WORK/r3/d/abs"):$(stat -c %h "$WORK/r3/d/gone"):$(stat -c %h "$WORK/r3/d/bad")" \
	1:1:1:1:1 "... each a plain file"
is "$(cat "$WORK/r3/d/up" "$WORK/r3/d/dots" "$WORK/r3/d/gone" "$WORK/r3/d/bad")" \
	"x
x
x
x" "... with its own bytes"
is "$(stat -c %h "$WORK/outside"):$(cat "$WORK/outside")" 1:secret \
	"... nothing outside the folder linked or touched"
is "$(grep -c 'kept as a plain file' "$WORK/r3.err")" 5 "... each warned about"
is "$(stat -c %h "$WORK/r3/d/inside"):$(inodes "$WORK/r3/d" inside other)" 2:1 \
	"... a good marker beside them makes a link"

# --- a mirror carries the marker as metadata
"$FERRY" sync "s3://$B/p" "s3://$B/mir" --endpoint-url "$FERRY_TEST_ENDPOINT" -q
is "$(meta mir/h/l5 x-amz-meta-ferry-hardlink)" "$(meta p/h/l5 x-amz-meta-ferry-hardlink)" \
	"a mirror copies the marker along"
pull mir r4 -H >/dev/null
is "$(inodes "$WORK/r4" h/a-new $(names 0 1 2 3 4 5 6 7 8 9))" 1 \
	"... and a pull -H of the mirror makes the links"

# --- pull -H of a file of 10 names above 1 MiB: its bytes come down once,
# the other names asked with a HEAD and linked; requests counted at a proxy
T2=$WORK/tree2
mkdir -p "$T2/h"
head -c 2100000 /dev/urandom >"$T2/h/l0"
for i in 1 2 3 4 5 6 7 8 9; do
	ln "$T2/h/l0" "$T2/h/l$i"
done
"$FERRY" sync "$T2" "s3://$B/big" --endpoint-url "$FERRY_TEST_ENDPOINT" -q -H
is "$?" 0 "a push -H of 10 names of a 2 MB file exits 0"
# object requests METHOD PREFIX LINE: method and path of each request on
# an object under PREFIX since LINE of the log, sorted
objreqs() {
	proxy_at "$3" | awk -v m="$1" '$2 == m { sub(/\?.*/, "", $3); print $2, $3 }' |
		grep " /$B/$2/" | sort
}
start_proxy g --rate 0 --log-headers range
LOG=$WORK/g.log
l=$(proxy_lines)
"$FERRY" sync "s3://$B/big" "$WORK/r5" --endpoint-url "$PROXY" --json -H \
	>"$WORK/r5.json"
is "$?" 0 "pull -H of the 2 MB file's 10 names exits 0"
is "$(objreqs GET big "$l" | wc -l):$(objreqs HEAD big "$l" | wc -l)" 1:9 \
	"... one GET of its bytes, 9 HEADs"
is "$(stat -c %h "$WORK/r5/h/l0"):$(inodes "$WORK/r5" $(names 0 1 2 3 4 5 6 7 8 9))" \
	10:1 "... the 10 names are links of one inode"
check "... with the file's bytes" cmp -s "$T2/h/l0" "$WORK/r5/h/l7"
is "$(summary "$WORK/r5.json" linked):$(summary "$WORK/r5.json" downloaded)" 9:1 \
	"... counted as 1 downloaded, 9 linked"
is "$(summary "$WORK/r5.json" bytes_sent)" 2100000 "... its bytes counted once"
l=$(proxy_lines)
"$FERRY" sync "s3://$B/big" "$WORK/r5" --endpoint-url "$PROXY" --json -H \
	>"$WORK/r5b.json"
is "$?:$(objreqs GET big "$l" | wc -l):$(objreqs HEAD big "$l" | wc -l)" 0:0:0 \
	"... and the next pull -H sends no request for them"
stop_proxy
# HEADs refused: the names are downloaded, then linked as their markers say
start_proxy gh --rate 0 --always --kinds 500 --only-methods HEAD \
	--log-headers range
LOG=$WORK/gh.log
"$FERRY" sync "s3://$B/big" "$WORK/r9" --endpoint-url "$PROXY" --json -H \
	--retries 1 >"$WORK/r9.json" 2>"$WORK/r9.err"
is "$?:$(objreqs GET big 0 | wc -l)" 0:10 \
	"pull -H whose HEADs fail: exits 0, every name downloaded"
is "$(inodes "$WORK/r9" $(names 0 1 2 3 4 5 6 7 8 9))" 1 \
	"... and linked after, as the markers say"
check "... with the file's bytes" cmp -s "$T2/h/l0" "$WORK/r9/h/l4"
stop_proxy
start_proxy g2 --rate 0 --log-headers range
LOG=$WORK/g2.log

# --- two files of equal bytes, not links (two uploads, no marker)
T3=$WORK/tree3
mkdir -p "$T3"
head -c 2100000 /dev/urandom >"$T3/a"
cp "$T3/a" "$T3/b"
"$FERRY" sync "$T3" "s3://$B/twins" --endpoint-url "$FERRY_TEST_ENDPOINT" -q -H
is "$(meta twins/a etag)" "$(meta twins/b etag)" \
	"two uploads of equal bytes have one ETag"
l=$(proxy_lines)
"$FERRY" sync "s3://$B/twins" "$WORK/r6" --endpoint-url "$PROXY" --json -H \
	>"$WORK/r6.json"
is "$?:$(objreqs GET twins "$l" | wc -l)" 0:2 \
	"pull -H of two equal files not linked: both downloaded (2 GETs)"
is "$(stat -c %h "$WORK/r6/a"):$(stat -c %h "$WORK/r6/b"):$(inodes "$WORK/r6" a b)" \
	1:1:2 "... and no link made"
check "... each with the bytes" cmp -s "$T3/a" "$WORK/r6/b"

# --- a tree without links: -H sends the requests a pull without it does
T4=$WORK/tree4
mkdir -p "$T4/d"
head -c 1500000 /dev/urandom >"$T4/one"
head -c 1500000 /dev/urandom >"$T4/d/two"
echo small >"$T4/d/three"
"$FERRY" sync "$T4" "s3://$B/nolinks" --endpoint-url "$FERRY_TEST_ENDPOINT" -q
l=$(proxy_lines)
"$FERRY" sync "s3://$B/nolinks" "$WORK/r7" --endpoint-url "$PROXY" -q -H
a=$( (objreqs GET nolinks "$l"; objreqs HEAD nolinks "$l") | tr '\n' ' ')
l=$(proxy_lines)
"$FERRY" sync "s3://$B/nolinks" "$WORK/r8" --endpoint-url "$PROXY" -q
b=$( (objreqs GET nolinks "$l"; objreqs HEAD nolinks "$l") | tr '\n' ' ')
is "$a" "$b" "pull -H of a tree without links: the requests of a pull without"
like "$a" "GET /$B/nolinks/d/two" "... which are its GETs"
stop_proxy

done_testing
