#!/usr/bin/env bash
# Push: a local tree to a bucket through the manifest, checked with an
# independent client and with requests counted at the gateway.
. "$(dirname "$0")/lib.sh"

B=push-$$
T=$WORK/tree
mkbucket "$B"
python3 "$TOP/tests/integration/gen_tree.py" "$T" 2000 7

# 1. first upload, compared with what an independent client lists
m=$(mark)
"$FERRY" sync "$T" "s3://$B/p" --json >"$WORK/1.json"
is "$?" 0 "first push exits 0"
is "$(summary "$WORK/1.json" uploaded)" 2000 "first push uploads 2000 files"
is "$(requests "$m" put)" 2000 "the gateway saw 2000 PUTs"
check "the bucket lists the same keys and sizes as the tree" \
	python3 "$TOP/tests/integration/bucket_equals_tree.py" "$T" "$B" p/
check "... and the AWS CLI lists the same keys and sizes" cmp -s \
	<(awscli s3api list-objects-v2 --bucket "$B" --prefix p/ \
		--query 'Contents[].[Key,Size]' --output text | LC_ALL=C sort) \
	<(s3 ls "$B" p/ | awk -F '\t' '{ print $2 "\t" $1 }' | LC_ALL=C sort)
# the independent client fetches a sample of the objects
s3 getall "$B" p/ "$WORK/sample" '*0?7.bin'
n=0
same=0
while IFS= read -r -d '' f; do
	n=$((n + 1))
	cmp -s "$f" "$T/${f#"$WORK"/sample/}" && same=$((same + 1))
done < <(find "$WORK/sample" -type f -print0)
check "a sample of objects was fetched ($n)" test "$n" -ge 20
is "$same" "$n" "... and each holds the same bytes as its file"

# 2. an unchanged rerun lists, and reads no file
m=$(mark)
if need strace; then
	traced "$WORK/trace" -e trace=openat -- \
		"$FERRY" sync "$T" "s3://$B/p" --json >"$WORK/2.json"
	is "$?" 0 "unchanged rerun exits 0"
	opened=$(file_opens "$WORK/trace")
	is "$opened" 0 "unchanged rerun opens no file of the tree"
else
	"$FERRY" sync "$T" "s3://$B/p" --json >"$WORK/2.json"
	is "$?" 0 "unchanged rerun exits 0"
fi
is "$(requests "$m" total)" 2 "unchanged rerun sends 2 requests"
is "$(requests "$m" list)" 2 "... both of them ListObjectsV2"
is "$(summary "$WORK/2.json" uploaded)" 0 "unchanged rerun uploads nothing"

# 3. touched files, same bytes: no byte goes up, only the new mtimes
# (each object copied onto itself with its new metadata: t_metaonly.sh)
later=$(($(date +%s) + 3600))
find "$T" -type f -exec touch -d "@$later" {} +
m=$(mark)
"$FERRY" sync "$T" "s3://$B/p" --json >"$WORK/3.json"
is "$?" 0 "touch-only rerun exits 0"
is "$(summary "$WORK/3.json" uploaded):$(summary "$WORK/3.json" bytes_sent)" \
	0:0 "touch-only rerun uploads nothing"
is "$(summary "$WORK/3.json" metadata)" 2000 "... and sends 2000 new mtimes"
is "$(requests "$m" total)" 2002 "... in 2000 copies after the listing"

# 4. five changed in place (same size, older mtime), five new, five gone
mapfile -d '' files < <(cd "$T" && find . -type f -size +16c -print0 | sort -z)
for i in 0 1 2 3 4; do
	f="$T/${files[$i]#./}"
	old=$(stat -c %Y "$f")
	size=$(stat -c %s "$f")
	head -c "$size" /dev/urandom >"$f.new" && mv "$f.new" "$f"
	touch -d "@$((old - 86400))" "$f"
done
for i in 1 2 3 4 5; do
	head -c $((i * 100)) /dev/urandom >"$T/new file $i.dat"
done
for i in 10 11 12 13 14; do
	rm "$T/${files[$i]#./}"
done
m=$(mark)
"$FERRY" sync "$T" "s3://$B/p" --delete --json >"$WORK/4.json"
is "$?" 0 "change/add/delete run exits 0"
is "$(requests "$m" put)" 10 "exactly 10 uploads reach the gateway"
is "$(summary "$WORK/4.json" uploaded)" 10 "ferry reports 10 uploads"
is "$(summary "$WORK/4.json" deleted)" 5 "ferry reports 5 deletions"
check "the bucket equals the tree after --delete" \
	python3 "$TOP/tests/integration/bucket_equals_tree.py" "$T" "$B" p/
f="${files[0]#./}"
s3 get "$B" "p/$f" "$WORK/got"
check "a file changed in place has its new bytes" cmp -s "$WORK/got" "$T/$f"

# 5. a 200 MiB file as a multipart upload
big=$(mib 200 24)
head -c $((big << 20)) /dev/urandom >"$T/big.bin"
m=$(mark)
"$FERRY" sync "$T" "s3://$B/p" --json >"$WORK/5.json"
is "$?" 0 "multipart push exits 0"
# the part size chosen: 8 MiB, or an eighth of the file rounded up to MiB
ps=$(((big * 1048576 / 8 + 1048575) / 1048576))
[ "$ps" -lt 8 ] && ps=8
is "$(requests "$m" put)" $(((big + ps - 1) / ps)) \
	"$big MiB go up as $(((big + ps - 1) / ps)) parts of $ps MiB"
is "$(requests "$m" post)" 2 "one create and one complete"
s3 get "$B" p/big.bin "$WORK/big.bin"
check "an independent client downloads it byte-identical" \
	cmp -s "$WORK/big.bin" "$T/big.bin"
rm -f "$WORK/big.bin"
m=$(mark)
"$FERRY" sync "$T" "s3://$B/p" --json >"$WORK/5b.json"
is "$(requests "$m" total)" 3 "rerun after multipart lists only (3 pages)"

# 5c. one file sent in one PUT above 8 MiB (--multipart-threshold raised):
# hashed, then read from the file as it is sent, holding no buffer of its
# size
one=96
mkdir -p "$WORK/one"
head -c $((one << 20)) /dev/urandom >"$WORK/one/one.bin"
m=$(mark)
peak_rss "$WORK/5c.rss" "$FERRY" sync "$WORK/one" "s3://$B/one" \
	--multipart-threshold 1G --json >"$WORK/5c.json"
is "$?" 0 "a $one MiB file in one PUT: the push exits 0"
is "$(requests "$m" put)" 1 "... in one request"
check "... holding less than half its size ($(($(cat "$WORK/5c.rss") / 1024)) MiB at the peak)" \
	test "$(cat "$WORK/5c.rss")" -lt $((one << 9))
s3 get "$B" one/one.bin "$WORK/one.got"
check "... and the object is byte-identical" \
	cmp -s "$WORK/one.got" "$WORK/one/one.bin"
is "$(s3 head "$B" one/one.bin | python3 -c 'import json, sys
print(json.load(sys.stdin)["etag"].strip(chr(34)))')" \
	"$(md5sum <"$WORK/one/one.bin" | cut -c1-32)" "... with the MD5 of the file as its ETag"
rm -rf "$WORK/one" "$WORK/one.got"

# 5d. each upload's Content-Type comes from its extension, as other sync
# tools give it: in one PUT and in a multipart upload alike; a name with
# no known extension goes without one (the server's default)
mkdir -p "$WORK/web/css"
echo '<p>hi</p>' >"$WORK/web/index.html"
echo 'p{}' >"$WORK/web/css/Site.CSS"
echo '{}' >"$WORK/web/data.json"
echo 'read me' >"$WORK/web/README"
head -c $((12 << 20)) /dev/urandom >"$WORK/web/clip.mp4"
"$FERRY" sync "$WORK/web" "s3://$B/web" -q
is "$?" 0 "a push of web files exits 0"
ctype() {
	s3 head "$B" "web/$1" | python3 -c \
		'import json, sys; print(json.load(sys.stdin)["content-type"])'
}
is "$(ctype index.html)" text/html "index.html goes up as text/html"
is "$(ctype css/Site.CSS)" text/css "Site.CSS as text/css"
is "$(ctype data.json)" application/json "data.json as application/json"
is "$(ctype clip.mp4)" video/mp4 "a multipart clip.mp4 as video/mp4"
is "$(ctype README)" binary/octet-stream \
	"README with none: the server's default"
rm -rf "$WORK/web"

# 5e. symlinks, fifos and sockets are left out, and said to be: each in a
# JSON line, their count in the summary; an excluded one is not counted
mkdir -p "$WORK/sl/real"
echo data >"$WORK/sl/real/f.txt"
ln -s real/f.txt "$WORK/sl/to-file"
ln -s real "$WORK/sl/to-dir"
mkfifo "$WORK/sl/pipe"
ln -s nowhere "$WORK/sl/skip.me"
"$FERRY" sync "$WORK/sl" "s3://$B/sl" --exclude 'skip.*' --json \
	>"$WORK/5e.json" 2>"$WORK/5e.err"
is "$?" 0 "a push of a tree with symlinks and a fifo exits 0"
is "$(summary "$WORK/5e.json" uploaded)" 1 "... uploads the one file"
is "$(summary "$WORK/5e.json" left_out)" 3 "... and counts 3 left out"
is "$(python3 -c 'import json, sys
print(" ".join(sorted(j["key"] + "=" + j["path"] + ":" + j["reason"]
      for j in map(json.loads, open(sys.argv[1]))
      if j["type"] == "left_out")))' "$WORK/5e.json")" \
	"sl/pipe=pipe:fifo sl/to-dir=to-dir:symlink sl/to-file=to-file:symlink" \
	"... each named with its kind, by key and by path"
is "$(s3 ls "$B" sl/ | wc -l)" 1 "... and the bucket holds only the file"
"$FERRY" sync "$WORK/sl" "s3://$B/sl" --exclude 'skip.*' 2>"$WORK/5e.err"
check "the summary line says 3 left out" \
	grep -q ', 3 left out (not files or folders; -v names them)' "$WORK/5e.err"
"$FERRY" sync "$WORK/sl" "s3://$B/sl" --exclude 'skip.*' -v \
	>"$WORK/5e.out" 2>/dev/null
check "-v names each" grep -qx 'left out: to-dir (a symlink, not a file)' \
	"$WORK/5e.out"
# 5f. -L pushes what symlinks point to: a file's bytes under the link's
# name, a folder walked under it; a link back up the path, and a dangling
# one, are left out; a change to a target is seen through its links
ln -s .. "$WORK/sl/real/up"
m=$(mark)
"$FERRY" sync "$WORK/sl" "s3://$B/sl" -L --exclude 'skip.*' --json \
	>"$WORK/5f.json"
is "$?" 0 "-L: the push exits 0"
is "$(s3 ls "$B" sl/ | awk '{ print $2 }' | sort | tr '\n' ' ')" \
	"sl/real/f.txt sl/to-dir/f.txt sl/to-file " \
	"... and the bucket holds the file, and it again through each link"
is "$(python3 -c 'import json, sys
print(" ".join(sorted(j["path"] + ":" + j["reason"] for j in map(json.loads,
      open(sys.argv[1])) if j["type"] == "left_out")))' "$WORK/5f.json")" \
	"pipe:fifo real/up:symlink loop to-dir/up:symlink loop" \
	"... leaving out the fifo and the links back up the path"
s3 get "$B" sl/to-file "$WORK/5f.got"
check "... the link to a file holding its bytes" \
	cmp -s "$WORK/5f.got" "$WORK/sl/real/f.txt"
ln -s nowhere "$WORK/sl/dangling"
echo "more data" >"$WORK/sl/real/f.txt"
"$FERRY" sync "$WORK/sl" "s3://$B/sl" -L --exclude 'skip.*' --json \
	>"$WORK/5f2.json"
is "$(summary "$WORK/5f2.json" uploaded)" 3 \
	"a changed target goes up again under each of its 3 names"
check "... and a dangling link is left out as such" grep -q \
	'"type":"left_out","key":"sl/dangling","path":"dangling","reason":"dangling symlink"' \
	"$WORK/5f2.json"
"$FERRY" plan "$WORK/sl" "s3://$B/sl2" -L --exclude 'skip.*' \
	>"$WORK/5f.plan"
"$FERRY" apply "$WORK/5f.plan" -q
is "$?" 0 "a plan made with -L applies"
is "$(s3 ls "$B" sl2/ | wc -l)" 3 "... through the links, as planned"
rm -rf "$WORK/sl" "$WORK/5f.got"

# 6. a lost manifest: nothing goes up, a same-size change is still found
rm -rf "$FERRY_STATE_DIR"
m=$(mark)
"$FERRY" sync "$T" "s3://$B/p" --json >"$WORK/6.json"
is "$?" 0 "run without a manifest exits 0"
is "$(requests "$m" put)" 0 "without a manifest nothing is uploaded"
check "the manifest is rebuilt" test -n "$(find "$FERRY_STATE_DIR" -name data.mdb)"
m=$(mark)
"$FERRY" sync "$T" "s3://$B/p" --json >"$WORK/6b.json"
is "$(requests "$m" total)" 3 "the rebuilt manifest makes the next run list only"
f="$T/${files[20]#./}"
size=$(stat -c %s "$f")
head -c "$size" /dev/urandom >"$f"
rm -rf "$FERRY_STATE_DIR"
m=$(mark)
"$FERRY" sync "$T" "s3://$B/p" --json >"$WORK/6c.json"
is "$(requests "$m" put)" 1 "a same-size change is found without a manifest"

# 7. parts hashed in batches ahead of their sends, however few requests the
# window and memory allow: 43 MiB in parts of 5 MiB is 8 whole parts and one
# of 3 MiB.
mkdir -p "$WORK/mp"
head -c $((43 << 20)) /dev/urandom >"$WORK/mp/odd.bin"
want=$(python3 -c '
import hashlib, sys
d = open(sys.argv[1], "rb").read()
ps = 5 << 20
parts = [hashlib.md5(d[i:i + ps]).digest() for i in range(0, len(d), ps)]
print("\"%s-%d\"" % (hashlib.md5(b"".join(parts)).hexdigest(), len(parts)))
' "$WORK/mp/odd.bin")
n=0
for opts in "--memory 16M" "--jobs 1" "--jobs 4" ""; do
	n=$((n + 1))
	m=$(mark)
	# shellcheck disable=SC2086 # opts is several words
	timeout 300 "$FERRY" sync "$WORK/mp" "s3://$B/mp$n" --part-size 5M \
		$opts -q
	is "$?" 0 "multipart with ${opts:-the defaults} exits 0"
	is "$(requests "$m" put)" 9 "... in 9 parts"
	etag=$(s3 head "$B" "mp$n/odd.bin" | python3 -c \
		'import json, sys; print(json.load(sys.stdin)["etag"])')
	is "$etag" "$want" "... and the ETag is the MD5 of its parts' MD5s"
	# the bytes of parts being sent stay within --memory (16M: three of
	# 5M), and with those whose replies are awaited, within twice that
	case $opts in
	--memory*)
		n_in=$(in_flight "$m" 'partNumber=')
		check "... with at most 6 parts in flight (saw $n_in)" \
			test "$n_in" -le 6 -a "$n_in" -ge 1
		;;
	esac
done
# Parts go one at a time at first, then twice as many for as long as
# that sends faster: through a proxy 0.5 s away each way, as a far
# endpoint would be, the parts sent side by side grow past three.  The
# proxy counts the requests it holds as each arrives: what ferry kept in
# flight, however loaded the machine (a window of arrival times at the
# gateway was not: a loaded proxy spreads a wave over more than it).
mkdir -p "$WORK/mpd"
head -c $((80 << 20)) /dev/urandom >"$WORK/mpd/wide.bin"
start_proxy mpd --rate 0 --latency 500
timeout 300 "$FERRY" sync "$WORK/mpd" "s3://$B/mpd" --part-size 5M \
	--endpoint-url "$PROXY" -v 2>"$WORK/mpd.err"
is "$?" 0 "16 parts through a proxy 0.5 s away each way: exit 0"
stop_proxy
# held_at PATTERN: the requests the proxy held at once as each request
# matching PATTERN arrived, in the order they arrived
held_at() {
	sed -n "s/^lat [A-Z]* .*$1.* inflight=\([0-9]*\)\$/\1/p" "$WORK/mpd.log"
}
first=$(held_at 'partNumber=' | head -n 1)
most=$(held_at 'partNumber=' | sort -n | tail -n 1)
is "$(held_at 'partNumber=' | wc -l)" 16 "... the proxy saw the 16 parts"
is "$first" 1 "... the first part went alone"
check "... and later ones went 6 or more at once (saw $most)" \
	test "${most:-0}" -ge 6
rm -rf "$WORK/mpd"
s3 get "$B" mp1/odd.bin "$WORK/mp.got"
check "an independent client downloads it byte-identical" \
	cmp -s "$WORK/mp.got" "$WORK/mp/odd.bin"
rm -rf "$WORK/mp" "$WORK/mp.got"

# ls lists what the independent client lists
n=$("$FERRY" ls "s3://$B/p" | wc -l)
is "$n" "$(find "$T" -type f | wc -l)" "ferry ls prints one line per object"

done_testing
