#!/usr/bin/env bash
# Pull: a bucket to a local folder through the manifest, compared with
# diff, requests counted at the gateway; keys that would land outside the
# target refused; the delete guard.
. "$(dirname "$0")/lib.sh"

B=pull-$$
T=$WORK/tree
D=$WORK/restore
mkbucket "$B"
python3 "$TOP/tests/integration/gen_tree.py" "$T" 1000 11
big=$(mib 64 16)
head -c $((big << 20)) /dev/urandom >"$T/big.bin"
"$FERRY" sync "$T" "s3://$B/p" --json >"$WORK/0.json"
is "$?" 0 "the tree goes up with ferry"

same_tree() {
	diff -r "$1" "$2" >"$WORK/diff" 2>&1
}

# twins_match WHAT A B: every file under A, temporary ones aside, has the
# WHAT of its twin under B: "mtime" (to the second) or "bytes".  Names as
# gen_tree.py makes them, spaces and all.
twins_match() {
	python3 - "$@" <<'EOF'
import filecmp, os, sys
what, a, b = sys.argv[1:4]
bad = 0
for d, _, files in os.walk(a):
    for f in files:
        if f.startswith(".ferry-tmp-"):
            continue
        p = os.path.join(d, f)
        q = os.path.join(b, os.path.relpath(p, a))
        if what == "mtime":
            bad += int(os.stat(p).st_mtime) != int(os.stat(q).st_mtime)
        else:
            bad += not filecmp.cmp(p, q, False)
sys.exit(1 if bad else 0)
EOF
}

# ranged MARK KEY: how many GETs of KEY answered 206 since MARK.
ranged() {
	"$COUNT" --dump "$FERRY_TEST_LOG" "$1" |
		awk -v t="/$B/$2" '$2 == "GET" && $3 == t && $4 == 206 { n++ }
			END { print n + 0 }'
}

temps() {
	find "$1" -name '.ferry-tmp-*' | wc -l
}

# delay_proxy NAME MATCH: a fault proxy (start_proxy) that holds each GET
# whose path matches MATCH 3 s (long enough for a check to stop the pull
# while it waits, even on a loaded machine).
delay_proxy() {
	start_proxy "$1" --seed 7 --always --kinds delay --delay 3 --only-methods GET \
		--match "$2"
}

# via_proxy ARGS...: runs ferry ARGS in the background (pid in $pid)
# through the proxy last started, its output thrown away.
via_proxy() {
	"$FERRY" "$@" --endpoint-url "$PROXY" >/dev/null 2>&1 &
	pid=$!
}

# proxy_saw NAME N: waits (up to 10 s) for the proxy NAME to log N requests.
proxy_saw() {
	for i in $(seq 500); do
		[ "$(cat "$WORK/$1.log" 2>/dev/null | wc -l)" -ge "$2" ] && return
		sleep 0.02
	done
}

# 1. into an empty (and not yet existing) folder
m=$(mark)
"$FERRY" sync "s3://$B/p" "$D" --json >"$WORK/1.json"
is "$?" 0 "first pull exits 0"
is "$(summary "$WORK/1.json" downloaded)" 1001 "first pull downloads 1001 objects"
check "diff -r finds no difference" same_tree "$T" "$D"
check "every file has its original mtime, to the second" \
	twins_match mtime "$T" "$D"
is "$(ranged "$m" p/big.bin)" $((big / 8)) \
	"the $big MiB object came as $((big / 8)) ranged GETs"
is "$(requests "$m" get)" $((1000 + big / 8)) \
	"1000 GETs for the small files, $((big / 8)) for the big one"
is "$(temps "$D")" 0 "no temporary file is left"

# 1b. the bytes of ranges in flight stay within --memory (16M: two of 8M)
m=$(mark)
"$FERRY" sync "s3://$B/p" "$WORK/mem" --include big.bin --exclude '*' \
	--memory 16M -q
is "$?" 0 "a pull of the big object alone with --memory 16M exits 0"
cmp -s "$WORK/mem/big.bin" "$T/big.bin"
is "$?" 0 "... byte-identical"
n_in=$(in_flight "$m" '/p/big\.bin$')
check "... with at most 2 ranges in flight (saw $n_in)" \
	test "$n_in" -le 2 -a "$n_in" -ge 1
rm -rf "$WORK/mem"

# 2. an unchanged re-pull lists, and reads no file
m=$(mark)
if need strace; then
	traced "$WORK/trace" -y -e trace=openat -- \
		"$FERRY" sync "s3://$B/p" "$D" --json >"$WORK/2.json"
	is "$?" 0 "unchanged re-pull exits 0"
	opened=$(grep -F "$D" "$WORK/trace" | grep -vc O_DIRECTORY)
	is "$opened" 0 "unchanged re-pull opens no file of the folder"
else
	"$FERRY" sync "s3://$B/p" "$D" --json >"$WORK/2.json"
	is "$?" 0 "unchanged re-pull exits 0"
fi
is "$(requests "$m" total)" 2 "unchanged re-pull sends 2 requests"
is "$(requests "$m" list)" 2 "... both of them ListObjectsV2"
is "$(summary "$WORK/2.json" downloaded)" 0 "unchanged re-pull downloads nothing"
err=$("$FERRY" sync "s3://$B/p" "$D" 2>&1 >/dev/null)
like "$err" '^0 downloaded, 0 B moved, 0 deleted' \
	"... and its summary says what a pull moves: 0 downloaded"

# 3. keys that would resolve outside the target, written by another tool
E=evil-$$
mkbucket "$E"
printf 'x' >"$WORK/x"
for k in 'P/../escape1.txt' 'P/a/../../escape2.txt' 'P/x/../../../escape4' \
	'P//empty-seg' 'P/good.txt' 'P/sub/good2.txt' 'P/folder/' \
	'C/a' 'C/a/b' 'C/a.txt'; do
	s3 put "$E" "$k" "$WORK/x"
done
J=$WORK/jail
mkdir -p "$J"
"$FERRY" sync "s3://$E/P" "$J/t" --json >"$WORK/3.json" 2>/dev/null
is "$?" 1 "a pull with refused keys exits 1"
is "$(find "$WORK" -name 'escape*' | wc -l)" 0 "nothing named escape* was written anywhere"
is "$(ls -A "$J")" "t" "the target's parent holds only the target"
for k in 'P/../escape1.txt' 'P/a/../../escape2.txt' 'P/x/../../../escape4' \
	'P//empty-seg'; do
	n=$(python3 -c '
import json, sys
print(sum(1 for l in open(sys.argv[1]) if json.loads(l).get("type") ==
    "error" and json.loads(l).get("key") == sys.argv[2]))' "$WORK/3.json" "$k")
	is "$n" 1 "'$k' is reported as an error"
done
is "$(summary "$WORK/3.json" failed)" 4 "four keys count as failed"
check "the other keys are pulled" test -f "$J/t/good.txt" -a \
	-f "$J/t/sub/good2.txt" -a -d "$J/t/folder"

# 4. a key that is a file and a folder prefix
"$FERRY" sync "s3://$E/C" "$WORK/conflict" --json >"$WORK/4.json" 2>/dev/null
is "$?" 1 "a pull with a file/folder conflict exits 1"
like "$(grep '"type":"error"' "$WORK/4.json")" '"key":"C/a/b".*conflict' \
	"C/a/b is reported as a conflict with the file C/a"
check "the file a and a.txt are pulled" test -f "$WORK/conflict/a" -a \
	-f "$WORK/conflict/a.txt"

# 5. --delete removes what the bucket no longer has, and only then
victim=$(cd "$D" && find . -type f -name '*.bin' ! -name big.bin | sort | head -n 1)
victim=${victim#./}
s3 del "$B" "p/$victim"
n0=$(find "$D" -type f | wc -l)
"$FERRY" sync "s3://$B/nothing-here" "$D" --delete --json >"$WORK/5a.json" 2>/dev/null
is "$?" 3 "--delete from an empty bucket side is refused (exit 3)"
"$FERRY" sync "s3://no-such-bucket-$$/p" "$D" --delete --json \
	>"$WORK/5b.json" 2>/dev/null
is "$?" 3 "a missing bucket aborts (exit 3)"
is "$(find "$D" -type f | wc -l)" "$n0" "... and neither run deleted anything"
m=$(mark)
"$FERRY" sync "s3://$B/p" "$D" --delete --json >"$WORK/5c.json"
is "$?" 0 "pull --delete exits 0"
is "$(summary "$WORK/5c.json" deleted)" 1 "one local file deleted"
check "the file whose object was deleted is gone" test ! -e "$D/$victim"
is "$(($(requests "$m" total) - $(requests "$m" list)))" 0 \
	"the delete needs only the listing"
for f in 1 3 4 5a 5b 5c; do
	check "$f.json: every line is valid against the event schema" \
		json_valid "$WORK/$f.json"
done

# 6. an object rewritten by another tool, same size, new bytes
f=$(cd "$D" && find . -type f -size +16c -name '*.bin' ! -name big.bin | sort | sed -n 5p)
f=${f#./}
size=$(stat -c %s "$D/$f")
head -c "$size" /dev/urandom >"$WORK/new"
s3 put "$B" "p/$f" "$WORK/new"
m=$(mark)
"$FERRY" sync "s3://$B/p" "$D" --json >"$WORK/6.json"
is "$?" 0 "pull after a same-size rewrite exits 0"
is "$(summary "$WORK/6.json" downloaded)" 1 "the rewritten object is downloaded"
is "$(requests "$m" get)" 1 "... with one GET"
check "the local file holds the new bytes" cmp -s "$WORK/new" "$D/$f"

# 7. a local file changed by hand comes back; a lost manifest costs no GET
printf 'local edit' >>"$D/$f"
"$FERRY" sync "s3://$B/p" "$D" --json >"$WORK/7.json"
check "a locally modified file is restored" cmp -s "$WORK/new" "$D/$f"
rm -rf "$FERRY_STATE_DIR"
m=$(mark)
"$FERRY" sync "s3://$B/p" "$D" --json >"$WORK/7b.json"
is "$?" 0 "pull without a manifest exits 0"
is "$(requests "$m" get)" 0 "without a manifest nothing is downloaded"
is "$(requests "$m" head)" 1 "one HEAD, for the multipart object's stored hash"

# 8. an object replaced while its ranges are downloaded (If-Match: 412).
# With one request in flight, the next range is asked for only when the
# first has come back; the proxy holds that first GET a moment, ferry is
# stopped meanwhile, and the object is replaced before it goes on.
if [ -f "$TOP/tests/faultproxy.py" ]; then
	mkdir -p "$WORK/r"
	head -c $(($(mib 30 15) << 20)) /dev/urandom >"$WORK/r/big"
	"$FERRY" sync "$WORK/r" "s3://$B/r" >/dev/null 2>&1
	delay_proxy proxy "^/$B/r/big"
	"$FERRY" sync "s3://$B/r" "$WORK/r2" --json -j 1 --part-size 5M \
		--endpoint-url "$PROXY" \
		>"$WORK/8.json" 2>/dev/null &
	pid=$!
	proxy_saw proxy 1
	kill -STOP "$pid"
	s3 put "$B" r/big "$WORK/x"
	kill -CONT "$pid"
	wait "$pid"
	is "$?" 1 "a pull whose object is replaced mid-download exits 1"
	like "$(grep '"type":"error"' "$WORK/8.json")" 'replaced' \
		"the replacement is reported"
	check "no partial file is left" test ! -e "$WORK/r2/big"
	is "$(temps "$WORK/r2")" 0 "no temporary file is left"
	stop_proxy
fi

# 9. how a new file gets its name.  An empty unnamed file (O_TMPFILE) is
# linked in under a temporary name and removed, once per pull, to find out
# whether linking works; every new file is then written unnamed and linked
# in: no temporary name to see or to leave behind.
mkdir -p "$WORK/n"
for f in a b c d; do head -c 3000 /dev/urandom >"$WORK/n/$f"; done
"$FERRY" sync "$WORK/n" "s3://$B/n" >/dev/null 2>&1
is "$?" 0 "four small files go up"
# pull9 DEST TRACE [STRACE-ARGS...]: the pull of n, traced
pull9() {
	local dest=$1 trace=$2
	shift 2
	traced "$trace" -e trace=linkat,renameat,renameat2,unlinkat "$@" -- \
		"$FERRY" sync "s3://$B/n" "$dest" -j 1 >/dev/null 2>&1
}
if need strace; then
	pull9 "$WORK/n1" "$WORK/trace9"
	is "$?" 0 "a pull into a new folder exits 0"
	is "$(calls "$WORK/trace9" 'linkat(')" 5 \
		"five links: the probe's temporary name, then the four files"
	is "$(calls "$WORK/trace9" 'unlinkat(')" 1 "one removal: the probe's"
	is "$(calls "$WORK/trace9" 'rename')" 0 "no rename"
	check "the pulled folder is the uploaded one" same_tree "$WORK/n" "$WORK/n1"
	# root may link a descriptor in (AT_EMPTY_PATH) on any kernel
	if [ "$(id -u)" = 0 ]; then
		is "$(calls "$WORK/trace9" 'linkat([0-9]*, "",.*AT_EMPTY_PATH')" \
			5 "... each by its descriptor"
	fi
	# A kernel that refuses AT_EMPTY_PATH (older ones do, without
	# CAP_DAC_READ_SEARCH) answers ENOENT: the pull links through
	# /proc/self/fd instead.
	pull9 "$WORK/n2" "$WORK/trace9p" -e inject=linkat:error=ENOENT:when=1
	is "$?" 0 "a pull refused AT_EMPTY_PATH exits 0"
	is "$(calls "$WORK/trace9p" 'linkat(AT_FDCWD, "/proc/self/fd/')" 5 \
		"... and links the probe and the four files through /proc"
	is "$(calls "$WORK/trace9p" 'rename')" 0 "... with no rename"
	check "... and gives the same folder" same_tree "$WORK/n" "$WORK/n2"
	# Where neither way links (no /proc either), the files are written
	# under temporary names and renamed.
	pull9 "$WORK/n3" "$WORK/trace9n" -e inject=linkat:error=ENOENT:when=1..2
	is "$?" 0 "a pull that cannot link exits 0"
	is "$(calls "$WORK/trace9n" 'linkat(')" 2 "... after two refused links"
	is "$(calls "$WORK/trace9n" 'rename')" 4 \
		"... and renames its four files from temporary names"
	check "... and gives the same folder" same_tree "$WORK/n" "$WORK/n3"
	is "$(temps "$WORK/n3")" 0 "... with no temporary file left"
fi
# Without /proc (a private mount namespace that unmounts it), a pull
# still links by descriptor.  (Not with AddressSanitizer, which cannot
# start there.)
if [ "$(id -u)" = 0 ] && need unshare strace &&
	! ldd "$FERRY" | grep -q libasan; then
	ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0} unshare -m sh -c \
		'umount -l /proc && exec "$@"' sh strace -f -qq \
		-e trace=linkat,renameat,renameat2 -o "$WORK/trace9b" \
		"$FERRY" sync "s3://$B/n" "$WORK/n6" -j 2 >/dev/null 2>&1
	is "$?" 0 "a pull without /proc exits 0"
	is "$(calls "$WORK/trace9b" 'linkat([0-9]*, "",.*AT_EMPTY_PATH')" 5 \
		"... and links its files in by descriptor"
	is "$(calls "$WORK/trace9b" 'rename')" 0 "... with no rename"
	check "... and gives the same folder" same_tree "$WORK/n" "$WORK/n6"
	is "$(temps "$WORK/n6")" 0 "... with no temporary file left"
fi
# A file that appears at a name after the scan, while the object is on its
# way, is replaced, as a rename over it would: the unnamed file is linked
# in under a temporary name and renamed over it.
if [ -f "$TOP/tests/faultproxy.py" ]; then
	delay_proxy proxy9 "^/$B/n/c"
	via_proxy sync "s3://$B/n" "$WORK/n4" -j 1
	proxy_saw proxy9 1
	kill -STOP "$pid"
	echo "written meanwhile" >"$WORK/n4/c"
	kill -CONT "$pid"
	wait "$pid"
	is "$?" 0 "a pull whose new file appeared meanwhile exits 0"
	check "... and the object replaced it" cmp -s "$WORK/n/c" "$WORK/n4/c"
	check "... and the folder is the uploaded one" \
		same_tree "$WORK/n" "$WORK/n4"
	is "$(temps "$WORK/n4")" 0 "... with no temporary file left"
	stop_proxy
fi

# Killed (SIGKILL) with 16 downloads in flight, a pull leaves no partial
# file at any name (the objects are those $D holds since 7) and no
# temporary file: unnamed files go with the process.
if [ -f "$TOP/tests/faultproxy.py" ]; then
	delay_proxy proxy9k "^/$B/p/"
	via_proxy sync "s3://$B/p" "$WORK/n5" -j 16
	proxy_saw proxy9k 40
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null
	is "$(temps "$WORK/n5")" 0 "a killed pull leaves no temporary file"
	check "... and every file it left is whole" \
		twins_match bytes "$WORK/n5" "$D"
	stop_proxy
fi

# 10. the loop waits on its sockets with epoll and hands curl only those
# that are ready, so that curl does not poll every transfer at every turn;
# each connection's socket stays in the epoll set from one request to the
# next: the set changes per connection, not per GET.
if need strace; then
	traced "$WORK/trace10" -e trace=epoll_ctl,poll,sendto -- \
		"$FERRY" sync "s3://$B/p" "$WORK/n7" -j 16 >/dev/null 2>&1
	is "$?" 0 "a pull of the tree with 16 connections exits 0"
	check "... and gives the objects" twins_match bytes "$WORK/n7" "$D"
	gets=$(calls "$WORK/trace10" 'sendto([0-9]*, "GET ')
	ctl=$(calls "$WORK/trace10" 'epoll_ctl(')
	polls=$(calls "$WORK/trace10" 'poll(')
	check "... in more than 1000 GETs ($gets)" test "$gets" -gt 1000
	check "... with the epoll set changed 2 to 60 times ($ctl)" \
		test "$ctl" -ge 2 -a "$ctl" -le 60
	check "... and fewer than 4 polls per GET ($polls)" \
		test "$polls" -lt $((4 * gets))
fi

# 11. a GET's file is made once the GET is sent (while the replies are
# awaited), not before: the hundred or more GETs that start at once are
# begun (their connections opened, after the listing's) before more than
# a few files are made (the probe of how to link, big.bin's: a ranged
# download makes its file first).
# Whether a request has left by then depends on its connection being up:
# on a loaded machine 56 files were made first, as they should be.
if need strace; then
	traced "$WORK/trace11" -e trace=openat,connect -- \
		"$FERRY" sync "s3://$B/p" "$WORK/n8" >/dev/null 2>&1
	is "$?" 0 "a pull of the tree with the default requests in flight exits 0"
	check "... and gives the objects" twins_match bytes "$WORK/n8" "$D"
	made=$(awk '/connect\(/ && ++n == 2 { exit }
		/O_TMPFILE|O_EXCL/ { m++ } END { print m + 0 }' "$WORK/trace11")
	check "... having made $made files (at most 8) before its GETs began" \
		test "$made" -le 8
fi

done_testing
