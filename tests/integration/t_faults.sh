#!/usr/bin/env bash
# Faults: ferry pushes through tests/faultproxy.py, which fails, cuts,
# resets and delays requests on their way to the gateway; the bucket is
# then checked through the gateway's own address.  Also the delete guard:
# no delete after a failed listing, from an empty source, or beyond
# --max-delete.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

# Debian's python3 (and aws), not a per-user shim: the proxy and the
# checks start many times, and must not be slowed or changed by one.
PATH=/usr/bin:$PATH
# faults NAME: how many faults the proxy NAME injected.
faults() {
	awk '$1 == "fault" { n++ } END { print n + 0 }' "$WORK/$1.log" \
		2>/dev/null
}

# fault_kinds NAME: "kind count" pairs on one line, for a TAP comment.
fault_kinds() {
	awk '$1 == "fault" { n[$2]++ }
		END { for (k in n) printf "%s=%d ", k, n[k] }' "$WORK/$1.log" |
		sed 's/ $//'
}

# elapsed START: seconds since START (from date +%s.%N), to 0.1 s.
elapsed() {
	awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'
}

# lap NAME: prints how long the previous part took, then times NAME.
_lap=
_lap_t=
lap() {
	[ -n "$_lap" ] && echo "# $_lap took $(elapsed "$_lap_t") s"
	_lap=$1
	_lap_t=$(date +%s.%N)
}

lap setup
B=faults-$$
T=$WORK/tree
mkbucket "$B"
python3 "$TOP/tests/integration/gen_tree.py" "$T" 1000 11
head -c $((24 << 20)) /dev/urandom >"$T/big one.bin"
head -c $((24 << 20)) /dev/urandom >"$T/big two.bin"

# (a) 10% faults of every kind: the push still ends complete and correct
lap "(a)"
start_proxy a --seed 11 --rate 0.10 --kinds all
t0=$(date +%s.%N)
"$FERRY" sync "$T" "s3://$B/a" --endpoint-url "$PROXY" --part-size 8M \
	--json >"$WORK/a1.json" 2>"$WORK/a1.err"
is "$?" 0 "push through 10% faults exits 0"
echo "# push through faults: $(elapsed "$t0") s, $(faults a) faults" \
	"($(fault_kinds a)), $(summary "$WORK/a1.json" retries) retries"
check "faults were injected" test "$(faults a)" -gt 0
is "$(summary "$WORK/a1.json" uploaded)" 1002 "all 1002 files reported uploaded"
check "the bucket lists the same keys and sizes as the tree" \
	python3 "$TOP/tests/integration/bucket_equals_tree.py" "$T" "$B" a/
s3 getall "$B" a/ "$WORK/got" 'big *'
for f in "big one.bin" "big two.bin"; do
	check "'$f' (multipart) downloads byte-identical" \
		cmp -s "$WORK/got/$f" "$T/$f"
done
rm -rf "$WORK/got"
n0=$(faults a)
m=$(mark)
"$FERRY" sync "$T" "s3://$B/a" --endpoint-url "$PROXY" --part-size 8M \
	--json >"$WORK/a2.json" 2>"$WORK/a2.err"
is "$?" 0 "unchanged rerun through faults exits 0"
is "$(summary "$WORK/a2.json" uploaded)" 0 "unchanged rerun uploads nothing"
is "$(requests "$m" put)" 0 "the gateway saw no PUT on the rerun"
echo "# unchanged rerun: $(($(faults a) - n0)) faults"

# through WHAT JSON DST: syncs the a/ prefix to DST through the proxy of
# (a), checks the exit status and that faults were injected, and reports.
through() {
	local n0 t0 rc
	n0=$(faults a)
	t0=$(date +%s.%N)
	"$FERRY" sync "s3://$B/a" "$3" --endpoint-url "$PROXY" --part-size 8M \
		--multipart-threshold 8M --json >"$WORK/$2" 2>"$WORK/$2.err"
	rc=$?
	is "$rc" 0 "$1 through 10% faults exits 0"
	echo "# $1 through faults: $(elapsed "$t0") s," \
		"$(($(faults a) - n0)) faults, $(summary "$WORK/$2" retries) retries"
	check "... faults were injected" test "$(($(faults a) - n0))" -gt 0
}

# the same tree pulled, then mirrored, through the same 10% of faults
through pull a3.json "$WORK/pulled"
check "... and the pulled folder equals the tree, byte for byte" \
	diff -r "$T" "$WORK/pulled"
rm -rf "$WORK/pulled"
through mirror a4.json "s3://$B/am"
check "... and the copy lists the same keys and sizes as the tree" \
	python3 "$TOP/tests/integration/bucket_equals_tree.py" "$T" "$B" am/
s3 getall "$B" am/ "$WORK/got" 'big *'
for f in "big one.bin" "big two.bin"; do
	check "'$f' (multipart copy) is byte-identical" \
		cmp -s "$WORK/got/$f" "$T/$f"
done
rm -rf "$WORK/got"
stop_proxy

# (b) every continuation page of the listing fails: nothing is deleted
lap "(b)"
mapfile -d '' files < <(cd "$T" && find . -type f -name '*[0-9].bin' -print0 |
	LC_ALL=C sort -z)
for i in 0 1 2 3 4; do
	rm "$T/${files[$i]#./}"
done
start_proxy b --always --kinds 500 --match 'continuation-token='
m=$(mark)
"$FERRY" sync "$T" "s3://$B/a" --endpoint-url "$PROXY" --delete \
	--retries 3 --json >"$WORK/b.json" 2>"$WORK/b.err"
is "$?" 3 "a failing continuation page aborts the run (exit 3)"
is "$(requests "$m" delete)" 0 "... with no DELETE at the gateway"
is "$(requests "$m" post)" 0 "... and no DeleteObjects"
check "the continuation page was failed ($(faults b) times)" \
	test "$(faults b)" -ge 1
stop_proxy

# (c) an empty source deletes nothing
lap "(c)"
mkdir "$WORK/empty"
m=$(mark)
"$FERRY" sync "$WORK/empty" "s3://$B/a" --delete --json >"$WORK/c.json" \
	2>"$WORK/c.err"
is "$?" 3 "--delete from an empty folder is refused (exit 3)"
is "$(requests "$m" delete)" 0 "... with no DELETE at the gateway"
is "$(requests "$m" post)" 0 "... and no DeleteObjects"

# (d) deletes beyond --max-delete are refused, unless --force
lap "(d)"
doomed=()
for i in "${!files[@]}"; do
	[ $((i % 5)) -lt 3 ] && doomed+=("$T/${files[$i]#./}")
done
rm -f -- "${doomed[@]}"
gone=$((1002 - $(find "$T" -type f | wc -l)))
echo "# $gone of 1002 files removed locally"
m=$(mark)
"$FERRY" sync "$T" "s3://$B/a" --delete --json >"$WORK/d1.json" \
	2>"$WORK/d1.err"
is "$?" 3 "$gone deletes of 1002 pass the default --max-delete: refused"
"$FERRY" sync "$T" "s3://$B/a" --delete --max-delete 100 \
	--json >"$WORK/d2.json" 2>"$WORK/d2.err"
is "$?" 3 "... and beyond --max-delete 100: refused"
is "$(requests "$m" delete)" 0 "... with no DELETE at the gateway"
is "$(requests "$m" post)" 0 "... and no DeleteObjects"
m=$(mark)
"$FERRY" sync "$T" "s3://$B/a" --delete --force --json >"$WORK/d3.json" \
	2>"$WORK/d3.err"
is "$?" 0 "with --force the deletes go (exit 0)"
is "$(summary "$WORK/d3.json" deleted)" "$gone" "... all $gone of them"
# Swift refuses the ETags of DeleteObjects (400 MalformedXML): that
# request, then one without them after a HEAD of each key.
want=1
[ "${FERRY_TEST_SERVER:-ceph}" = swift ] && want=2
is "$(requests "$m" post)" "$want" "... in one DeleteObjects request (Swift: after one refused)"
check "the bucket equals the tree after the deletes" \
	python3 "$TOP/tests/integration/bucket_equals_tree.py" "$T" "$B" a/

# (e) 30% of requests get 503 SlowDown: the push completes
lap "(e)"
TE=$WORK/tree-e
python3 "$TOP/tests/integration/gen_tree.py" "$TE" 150 12
head -c $((9 << 20)) /dev/urandom >"$TE/big.bin"
start_proxy e --seed 12 --rate 0.30 --kinds 503
t0=$(date +%s.%N)
"$FERRY" sync "$TE" "s3://$B/e" --endpoint-url "$PROXY" \
	--json >"$WORK/e.json" 2>"$WORK/e.err"
is "$?" 0 "push through 30% SlowDown exits 0"
echo "# push through SlowDown: $(elapsed "$t0") s, $(faults e) faults," \
	"$(summary "$WORK/e.json" retries) retries"
check "SlowDown replies were injected" test "$(faults e)" -gt 0
is "$(summary "$WORK/e.json" uploaded)" 151 "... and all 151 files went up"
stop_proxy

# (f) a dead endpoint ends the run promptly
lap "(f)"
dead=$(python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])')
t0=$(date +%s.%N)
"$FERRY" sync "$TE" "s3://$B/e" --endpoint-url "http://127.0.0.1:$dead" \
	--retries 3 --json >"$WORK/f.json" 2>"$WORK/f.err"
is "$?" 3 "a dead endpoint aborts the run (exit 3)"
secs=$(elapsed "$t0")
echo "# dead endpoint: gave up after $secs s"
check "... within 120 s" awk -v s="$secs" 'BEGIN { exit !(s < 120) }'

# (g) a listing reply cut in the middle of its body is fetched again
lap "(g)"
TG=$WORK/tree-g
python3 "$TOP/tests/integration/gen_tree.py" "$TG" 10 13
start_proxy g --always --kinds cut --match 'list-type=2' --max-faults 1
"$FERRY" sync "$TG" "s3://$B/g" --endpoint-url "$PROXY" \
	--json >"$WORK/g.json" 2>"$WORK/g.err"
is "$?" 0 "push whose listing reply is cut exits 0"
is "$(faults g)" 1 "... after one cut listing reply"
is "$(summary "$WORK/g.json" uploaded)" 10 "... and all 10 files went up"
stop_proxy

# (h) the reply to CompleteMultipartUpload is lost: the retry completes it
lap "(h)"
TH=$WORK/tree-h
mkdir "$TH"
head -c $((6 << 20)) /dev/urandom >"$TH/big.bin"
start_proxy h --always --kinds cut --only-methods POST --match 'uploadId=' \
	--max-faults 1
"$FERRY" sync "$TH" "s3://$B/h" --endpoint-url "$PROXY" --part-size 5M \
	--multipart-threshold 5M --json >"$WORK/h1.json" 2>"$WORK/h1.err"
is "$?" 0 "push whose Complete reply is lost exits 0"
is "$(faults h)" 1 "... after one lost Complete reply"
s3 get "$B" h/big.bin "$WORK/got"
check "the object downloads byte-identical" cmp -s "$WORK/got" "$TH/big.bin"
rm -f "$WORK/got"
m=$(mark)
"$FERRY" sync "$TH" "s3://$B/h" --endpoint-url "$PROXY" --part-size 5M \
	--multipart-threshold 5M --json >"$WORK/h2.json" 2>"$WORK/h2.err"
is "$?" 0 "the unchanged rerun exits 0"
is "$(requests "$m" total)" 1 "... and sends only the listing"
stop_proxy

# (i) a pull checks every byte: one bit flipped on the way in fails the
# file, whether it is checked by the XXH3-128 ferry stored at upload or,
# for an object another tool wrote, by the MD5 of its ETag
lap "(i)"
TI=$WORK/tree-i
mkdir "$TI"
head -c 100000 /dev/urandom >"$TI/f1.bin"
head -c 50000 /dev/urandom >"$TI/o1.bin"
head -c 3000 /dev/urandom >"$TI/w1.bin"
"$FERRY" sync "$TI" "s3://$B/i" -q 2>"$WORK/i0.err"
is "$?" 0 "push of the files to pull exits 0"
s3 put "$B" i/o1.bin "$TI/o1.bin" # another tool's: no stored XXH3-128
s3 put "$B" i/w1.bin "$TI/w1.bin" \
	"x-amz-meta-ferry-xxh128:0123456789abcdef0123456789abcdef"
s3 head "$B" i/f1.bin >"$WORK/i-f1.head"
s3 head "$B" i/o1.bin >"$WORK/i-o1.head"
check "f1.bin, pushed by ferry, carries its XXH3-128" \
	grep -q x-amz-meta-ferry-xxh128 "$WORK/i-f1.head"
is "$(grep -c x-amz-meta-ferry-xxh128 "$WORK/i-o1.head")" 0 \
	"o1.bin, written by another tool, does not"
start_proxy i --always --kinds flip --only-methods GET \
	--match '/i/(f1|o1)[.]bin$'
"$FERRY" sync "s3://$B/i" "$WORK/pi" --endpoint-url "$PROXY" --json \
	>"$WORK/i1.json" 2>"$WORK/i1.err"
is "$?" 1 "a pull with bits flipped in two bodies exits 1"
check "... both bodies were flipped ($(faults i) faults)" \
	test "$(faults i)" -ge 2
check "... the XXH3-128 check caught f1.bin" \
	grep -q 'f1.bin.*XXH3-128 of the bytes received' "$WORK/i1.err"
check "... the MD5 check caught o1.bin" \
	grep -q 'o1.bin.*MD5 of the bytes received' "$WORK/i1.err"
check "... neither file was written" \
	test ! -e "$WORK/pi/f1.bin" -a ! -e "$WORK/pi/o1.bin"
is "$(find "$WORK/pi" -name '.ferry-tmp-*' | wc -l)" 0 \
	"... and no temporary file is left"
check "... w1.bin, whose stored hash is wrong, is refused" \
	grep -q 'w1.bin.*is not the stored x-amz-meta-ferry-xxh128' \
	"$WORK/i1.err"
check "... and not written" test ! -e "$WORK/pi/w1.bin"
stop_proxy
"$FERRY" sync "s3://$B/i" "$WORK/pi" --json >"$WORK/i2.json" \
	2>"$WORK/i2.err"
is "$?" 1 "the pull again without faults exits 1 (w1.bin still refused)"
check "... f1.bin is byte-identical" cmp -s "$WORK/pi/f1.bin" "$TI/f1.bin"
check "... o1.bin is byte-identical" cmp -s "$WORK/pi/o1.bin" "$TI/o1.bin"

# (i2) a large object is pulled in ranges, and the file they make is read
# back and hashed as they come in, on worker threads, not on the loop's:
# its MD5 is checked so too, one bit flipped in one range failing the file
lap "(i2)"
head -c $((12 << 20)) /dev/urandom >"$TI/big.bin"
s3 put "$B" i2/big.bin "$TI/big.bin" # another tool's: its ETag, an MD5
start_proxy i2 --always --kinds flip --only-methods GET \
	--match '/i2/big[.]bin$' --max-faults 1
"$FERRY" sync "s3://$B/i2" "$WORK/pi2" --endpoint-url "$PROXY" \
	--multipart-threshold 5M --part-size 5M -q 2>"$WORK/i3.err"
is "$?" 1 "a pull in ranges, a bit flipped in one, exits 1"
is "$(faults i2)" 1 "... one range was flipped"
check "... the MD5 check caught big.bin" \
	grep -q 'big.bin.*MD5 of the bytes received' "$WORK/i3.err"
check "... and it was not written" test ! -e "$WORK/pi2/big.bin"
stop_proxy
traced "$WORK/trace-i2" -e trace=sendto,pread64 -- \
	"$FERRY" sync "s3://$B/i2" "$WORK/pi2" --multipart-threshold 5M \
	--part-size 5M -q
is "$?" 0 "the same pull without faults exits 0"
check "... big.bin is byte-identical" cmp -s "$WORK/pi2/big.bin" "$TI/big.bin"
is "$(calls "$WORK/trace-i2" 'sendto([0-9]*, "GET /[^?]*i2/big.bin')" 3 \
	"... in three ranged GETs"
# the threads (strace -f's first column) that sent GETs, and those that
# read 256 KiB or more at once: the file read back
where=$(awk '/sendto\([0-9]+, "GET / { get[$1] = 1 }
	/^[0-9]+ +pread64\(/ && $NF + 0 >= 262144 { rd[$1] = 1 }
	END {
		for (t in rd) n++
		for (t in rd) if (t in get) both++
		print (n > 0 ? "read" : "unread"), both + 0
	}' "$WORK/trace-i2")
is "$where" "read 0" \
	"... read back on threads other than the one that sent the GETs"

# (j) a part is read from its file as it is sent.  The file is cut short
# while its part waits at a proxy (which reads no body while it holds the
# request): the read comes up short, the request ends, and the file is sent
# again at the end of the run as it now is, never as a mix of the two.
lap "(j)"
TJ=$WORK/tree-j
mkdir -p "$TJ"
head -c $((48 << 20)) /dev/urandom >"$TJ/cut.bin"
start_proxy j --always --kinds delay --delay 3 --only-methods PUT \
	--match "partNumber=1&"
"$FERRY" sync "$TJ" "s3://$B/j" --endpoint-url "$PROXY" --part-size 48M \
	--json -v >"$WORK/j.json" 2>"$WORK/j.err" &
pid=$!
for i in $(seq 600); do
	grep -q "fault delay" "$WORK/j.log" 2>/dev/null && break
	sleep 0.05
done
# the same file (ferry holds it open), cut to 20 MiB in one step: more
# than the socket buffers took of the part before the proxy held it
truncate -s $((20 << 20)) "$TJ/cut.bin"
wait "$pid"
is "$?" 0 "a file cut short while its part is sent: the run exits 0"
check "... the short read ended the part" \
	grep -q "cut.bin.*changed while it was read.*trying again" "$WORK/j.err"
stop_proxy
s3 get "$B" j/cut.bin "$WORK/j-got"
check "... and the object holds the file as it now is" \
	cmp -s "$WORK/j-got" "$TJ/cut.bin"
is "$(s3 uploads "$B" | grep -c j/cut.bin)" 0 \
	"... with no multipart upload left open"
# (k) part 1 of an upload goes out before its MD5 is known, with no
# Content-MD5, and the server's ETag for it is checked against the MD5
# afterwards.  A bit flipped on its way there makes the ETag another: the
# part goes again, with its Content-MD5.  A bucket under SSE-KMS, whose
# ETags are no MD5s, gets part 1 of the first file twice, then every part
# once hashed (no other part 1 goes early while the first one's check is
# pending), and its Complete names the parts by the ETags it gave.
lap "(k)"
TK=$WORK/tree-k
mkdir -p "$TK"
head -c $((12 << 20)) /dev/urandom >"$TK/a.bin"
head -c $((12 << 20)) /dev/urandom >"$TK/b.bin"
# part1_puts MARK: the PUTs of a part 1 the gateway saw since MARK
part1_puts() {
	"$COUNT" --dump "$FERRY_TEST_LOG" "$1" |
		awk '$2 == "PUT" && $3 ~ /partNumber=1&/' | wc -l
}
m=$(mark)
start_proxy k --always --kinds flipup --only-methods PUT \
	--match "a[.]bin[?]partNumber=1&" --max-faults 1
"$FERRY" sync "$TK" "s3://$B/k1" --endpoint-url "$PROXY" --part-size 5M \
	--json -v >"$WORK/k1.json" 2>"$WORK/k1.err"
is "$?" 0 "part 1 changed on its way to the server: the push exits 0"
is "$(faults k)" 1 "... after one bit flipped in part 1's body"
check "... its ETag told, and it went again" \
	grep -q "a.bin: the server's ETag .* for part 1 is not the MD5" \
	"$WORK/k1.err"
is "$(part1_puts "$m")" 3 "... 3 PUTs of a part 1 for 2 files"
stop_proxy
s3 get "$B" k1/a.bin "$WORK/k-got"
check "... and the object downloads byte-identical" \
	cmp -s "$WORK/k-got" "$TK/a.bin"
rm -f "$WORK/k-got"
m=$(mark)
start_proxy k2 --kms --rate 0
"$FERRY" sync "$TK" "s3://$B/k2" --endpoint-url "$PROXY" --part-size 5M \
	--jobs 1 --json -v >"$WORK/k2.json" 2>"$WORK/k2.err"
is "$?" 0 "a bucket under SSE-KMS, its ETags no MD5s: the push exits 0"
is "$(grep -c "is not the MD5 of its bytes" "$WORK/k2.err")" 1 \
	"... part 1 of the first file went again"
check "... then ferry stopped sending parts early" \
	grep -q "part ETags are not their MD5s" "$WORK/k2.err"
is "$(part1_puts "$m")" 3 "... 3 PUTs of a part 1 for 2 files"
is "$(grep -c kms-refused "$WORK/k2.log")" 0 \
	"... each Complete named the parts by the ETags given"
stop_proxy
s3 get "$B" k2/b.bin "$WORK/k-got"
check "... and the objects download byte-identical" \
	cmp -s "$WORK/k-got" "$TK/b.bin"
rm -f "$WORK/k-got"

# (l) a bucket under SSE-KMS end to end: objects PUT whole and in parts
# come back with ETags that are no MD5s, which ferry records as they are,
# so that the next run finds nothing to do; a pull checks the objects of
# another tool by no MD5, and those of ferry by their stored XXH3.  The
# pull takes each object whole: a ranged GET's If-Match, with the ETag
# given, is signed, and the proxy cannot put the gateway's in its place.
lap "(l)"
TL=$WORK/tree-l
mkdir -p "$TL/d"
head -c 3000 /dev/urandom >"$TL/small.txt"
head -c 70000 /dev/urandom >"$TL/d/mid.bin"
head -c $((11 << 20)) /dev/urandom >"$TL/d/big.bin"
start_proxy l --kms --rate 0
"$FERRY" sync "$TL" "s3://$B/l" --endpoint-url "$PROXY" --part-size 5M \
	--json >"$WORK/l1.json" 2>"$WORK/l1.err"
is "$?" 0 "SSE-KMS: the push of whole and multipart objects exits 0"
is "$(summary "$WORK/l1.json" uploaded)" 3 "... 3 files uploaded"
m=$(mark)
"$FERRY" sync "$TL" "s3://$B/l" --endpoint-url "$PROXY" --part-size 5M \
	--json >"$WORK/l2.json" 2>"$WORK/l2.err"
is "$?" 0 "... the push again exits 0"
is "$(summary "$WORK/l2.json" uploaded)" 0 "... and uploads nothing"
is "$("$COUNT" --dump "$FERRY_TEST_LOG" "$m" | awk '$2 != "GET"' | wc -l)" \
	0 "... nor sends a request but listings"
s3 put "$B" l/other.bin "$TL/d/mid.bin" >/dev/null
"$FERRY" sync "s3://$B/l" "$WORK/l-got" --endpoint-url "$PROXY" \
	--multipart-threshold 64M --json >"$WORK/l3.json" 2>"$WORK/l3.err"
is "$?" 0 "... a pull of them, one from another tool, exits 0"
check "... the files pulled are byte-identical" \
	diff -r "$TL" "$WORK/l-got" -x other.bin
check "... the other tool's too" \
	cmp -s "$WORK/l-got/other.bin" "$TL/d/mid.bin"
is "$(grep -c kms-refused "$WORK/l.log")" 0 "... no Complete was refused"
# without a manifest, a file's MD5 is not such an object's ETag: a HEAD
# tells the object is encrypted, and its stored XXH3 (or, from another
# tool, its time) decides
m=$(mark)
"$FERRY" sync "$TL" "s3://$B/l" --endpoint-url "$PROXY" --part-size 5M \
	--rebuild-manifest --json >"$WORK/l4.json" 2>"$WORK/l4.err"
is "$?" 0 "... a push with a new manifest exits 0"
is "$(summary "$WORK/l4.json" uploaded)" 0 "... and uploads nothing"
is "$("$COUNT" --dump "$FERRY_TEST_LOG" "$m" | awk '$2 == "HEAD"' | wc -l)" \
	3 "... after a HEAD of each object"
"$FERRY" sync "s3://$B/l" "$WORK/l-got" --endpoint-url "$PROXY" \
	--multipart-threshold 64M --rebuild-manifest \
	--json >"$WORK/l5.json" 2>"$WORK/l5.err"
is "$?" 0 "... a pull with a new manifest exits 0"
is "$(summary "$WORK/l5.json" downloaded)" 0 "... and downloads nothing"
stop_proxy
lap ""

if [ "$_fails" -gt 0 ]; then
	for f in "$WORK"/*.err; do
		[ -s "$f" ] && sed "s|^|# $(basename "$f"): |" "$f" | tail -n 5
	done
fi
done_testing
