#!/usr/bin/env bash
# sync --watch on a pull and a mirror: the source's listing is polled
# every --watch-interval, each poll a whole run with the warm manifest.
# A pull watcher and a mirror watcher follow puts, overwrites and deletes
# made by another client (s3.py) and by a ferry push; an idle poll of
# 1,015 keys sends its two listing pages alone (counted at the proxy:
# the warm manifest knows every key has been pulled); a source prefix
# emptied holds the deletes and says so; SIGTERM exits 0.  SIGHUP reads
# an --exclude-from file again, which changes what the next run sends,
# for a pull watcher and a push watcher; a file that cannot be read then
# keeps the filters in use.  A pull watcher into a folder not made yet
# lives through an outage of its first runs, and --max-delete N holds per
# hour.
. "$(dirname "$0")/lib.sh"

B=watchpoll-$$
mkbucket "$B"
# every request logged, to count those of an idle poll
start_proxy pass --rate 0 --log-headers x-amz-copy-source
LOG=$WORK/pass.log

# waits (at most $1 s) until the command $2... succeeds
wait_for() {
	local end=$((SECONDS + $1))
	shift
	while [ $SECONDS -lt $end ]; do
		"$@" && return 0
		sleep 0.1
	done
	"$@"
}

# put KEY TEXT: TEXT as the object KEY, by another client
put() {
	printf '%s' "$2" >"$WORK/obj"
	s3 put "$B" "$1" "$WORK/obj" >/dev/null
}

# has FILE TEXT: whether FILE holds TEXT exactly
has() {
	[ -f "$1" ] && [ "$(cat "$1")" = "$2" ]
}

# same_prefixes A B: whether the prefixes A/ and B/ of the bucket list the
# same names and sizes
same_prefixes() {
	[ "$(s3 ls "$B" "$1/" | sed "s|	$1/|	|")" = \
		"$(s3 ls "$B" "$2/" | sed "s|	$2/|	|")" ]
}

# stopped FILE: whether the watcher writing FILE said it stops, and each
# of its lines is valid against the event schema
stopped() {
	grep -q '"event":"stop"' "$1" && json_valid "$1"
}

# runs FILE: how many runs the watcher has ended (summary lines)
runs() {
	grep -c '"type":"summary"' "$1"
}

# waits (at most $2 s) until the watcher writing $1 has ended $3 runs
wait_runs() {
	for _ in $(seq $(($2 * 10))); do
		[ "$(runs "$1")" -ge "$3" ] && return 0
		sleep 0.1
	done
	return 1
}

t0=$(date +%s)
# --- a pull watcher -------------------------------------------------------
put src/a "one"
put src/b "two"
put src/d/c "three"
put src/x.skip "left out"
# past a page of the listing (1,000 keys), put by a ferry push
mkdir -p "$WORK/bulk"
for i in $(seq 1010); do echo "$i" >"$WORK/bulk/f$i"; done
"$FERRY" sync "$WORK/bulk" "s3://$B/src/bulk" >/dev/null 2>&1
echo "# source put at $(($(date +%s) - t0)) s"
P=$WORK/pull
echo '*.skip' >"$WORK/pull.exclude"
"$FERRY" sync "s3://$B/src" "$P" --endpoint-url "$PROXY" --watch \
	--watch-interval 1s --delete --max-delete 100% \
	--exclude-from "$WORK/pull.exclude" --json \
	>"$WORK/p.json" 2>"$WORK/p.err" &
ppid=$!
check "a pull watcher's first run ends" \
	wait_line "$WORK/p.json" 30 '"type":"summary"'
check "... it says it polls the listing" \
	wait_line "$WORK/p.json" 5 '"event":"watching","reason":"no event comes from a bucket'
check "... and the folder holds the objects, but the one --exclude-from leaves out" \
	eval 'has "$P/a" one && has "$P/b" two && has "$P/d/c" three &&
		has "$P/bulk/f1010" 1010 && test ! -e "$P/x.skip"'

put src/new "new"
put src/a "one, longer"
s3 del "$B" src/b >/dev/null
check "a put, an overwrite and a delete by another client are followed" \
	wait_for 10 eval 'has "$P/new" new && has "$P/a" "one, longer" &&
		test ! -e "$P/b"'

echo "# followed at $(($(date +%s) - t0)) s"
"$FERRY" sync "s3://$B/src" "$P" --endpoint-url "$PROXY" --watch \
	--watch-interval 1s >/dev/null 2>"$WORK/p2.err"
is "$?" 4 "a second pull watcher of the pair is refused (exit 4)"
# idle polls: only listings
n=$(runs "$WORK/p.json")
wait_runs "$WORK/p.json" 10 $((n + 1))
line=$(wc -l <"$LOG")
n=$(runs "$WORK/p.json")
wait_runs "$WORK/p.json" 10 $((n + 3))
sleep 0.5
idle=$(tail -n "+$((line + 1))" "$LOG" | grep '^hdr ')
polls=$(($(runs "$WORK/p.json") - n))
lists=$(printf '%s\n' "$idle" | grep -c "^hdr GET /$B?.*list-type=2")
others=$(printf '%s\n' "$idle" | grep -vc "^hdr GET /$B?.*list-type=2")
echo "# $polls idle polls of 1,015 keys: $lists listing pages, $others other requests"
is "$others" 0 "idle polls send nothing but the listing"
check "... two pages a poll of 1,015 keys ($lists for $polls polls)" \
	eval '[ "$polls" -ge 3 ] &&
		between "$lists" $((2 * polls)) $((2 * polls + 2))'
like "$(grep '"type":"summary"' "$WORK/p.json" | tail -1)" \
	'"downloaded":0,.*"deleted":0,' "... and change nothing"

# SIGHUP: the exclude file read again; the next run pulls what it let in
echo '*.nothing' >"$WORK/pull.exclude"
kill -HUP $ppid
check "SIGHUP: the pull watcher reads its filter files again, and says so" \
	wait_line "$WORK/p.json" 10 '"event":"reload","reason":"SIGHUP: the filters were read again \(1 file\)'
check "... and its next run pulls what the new file lets in" \
	wait_for 10 has "$P/x.skip" "left out"
rm -f "$WORK/pull.exclude"
kill -HUP $ppid
check "SIGHUP with the file gone: the filters in use are kept, and said" \
	wait_line "$WORK/p.json" 10 '"event":"reload","reason":"SIGHUP: .*pull.exclude.*: the filters in use are kept'
kill -0 $ppid
is "$?" 0 "... and the watcher goes on"

echo "# reloads done at $(($(date +%s) - t0)) s"
# a bulk delete is followed; then the source prefix emptied (one request):
# its deletes are held
had=$(cat "$P/bulk/f1" 2>/dev/null)
s3 rm "$B" src/bulk/ >/dev/null
check "a delete of 1,010 keys by another client is followed" \
	wait_for 20 eval '[ "$had" = 1 ] && test ! -e "$P/bulk/f1" &&
		test ! -e "$P/bulk/f1010"'
echo "# bulk delete followed at $(($(date +%s) - t0)) s"
s3 rm "$B" src/ >/dev/null
check "an emptied source prefix holds the deletes, and says so" \
	wait_line "$WORK/p.json" 15 '"event":"held","reason":"the source lists no key under its prefix: its [0-9]+ deletes? (is|are) held'
grep -q '"event":"held","reason":"the source lists' "$WORK/p.json" ||
	grep '"type":"watch"\|"type":"summary"\|"type":"error"' \
	"$WORK/p.json" | tail -12 | cut -c1-250 | sed 's/^/# /'
n=$(runs "$WORK/p.json")
wait_runs "$WORK/p.json" 10 $((n + 2))
check "... and no file is deleted over the next polls" \
	eval 'has "$P/new" new && has "$P/a" "one, longer" && has "$P/d/c" three'
put src/back "back"
check "a key back under the prefix: the deletes go again" \
	wait_for 10 eval 'has "$P/back" back && test ! -e "$P/new"'
term $ppid
is "$?" 0 "SIGTERM: the pull watcher exits 0"
check "... having said it stops, in lines valid against the event schema" \
	stopped "$WORK/p.json"
echo "# pull watcher done at $(($(date +%s) - t0)) s"

# --- a mirror watcher, following a ferry push -----------------------------
T=$WORK/tree
mkdir -p "$T/d"
echo one >"$T/a"
echo two >"$T/d/b"
"$FERRY" sync "$T" "s3://$B/msrc" >/dev/null 2>&1
"$FERRY" sync "s3://$B/msrc" "s3://$B/mdst" --endpoint-url "$PROXY" \
	--watch --watch-interval 1s --delete --json \
	>"$WORK/m.json" 2>"$WORK/m.err" &
mpid=$!
check "a mirror watcher's first run copies the source" \
	wait_for 20 same_prefixes msrc mdst
"$FERRY" sync "s3://$B/msrc" "s3://$B/mdst" --endpoint-url "$PROXY" \
	--watch --watch-interval 1s >/dev/null 2>"$WORK/m2.err"
is "$?" 4 "a second mirror watcher of the pair is refused (exit 4)"
echo three >"$T/c"
echo "one, changed" >"$T/a"
rm "$T/d/b"
"$FERRY" sync "$T" "s3://$B/msrc" --delete >/dev/null 2>&1
check "... it follows a put, an overwrite and a delete by a ferry push" \
	wait_for 10 eval 's3 ls "$B" mdst/ | grep "	mdst/c" >/dev/null &&
		same_prefixes msrc mdst'
s3 get "$B" mdst/a "$WORK/a.got" >/dev/null
is "$(cat "$WORK/a.got")" "one, changed" "... the overwrite's bytes"
check "... by server-side copies" \
	grep -q "^hdr PUT /$B/mdst/c x-amz-copy-source=[^-]" "$LOG"
s3 rm "$B" msrc/ >/dev/null
check "an emptied source prefix holds the mirror's deletes, and says so" \
	wait_line "$WORK/m.json" 10 '"event":"held","reason":"the source lists no key under its prefix: its 2 deletes are held'
is "$(s3 ls "$B" mdst/ | wc -l)" 2 "... and no object is deleted"
term $mpid
is "$?" 0 "SIGTERM: the mirror watcher exits 0"
check "... having said it stops, in lines valid against the event schema" \
	stopped "$WORK/m.json"
echo "# mirror watcher done at $(($(date +%s) - t0)) s"

# --- SIGHUP on a push watcher ---------------------------------------------
H=$WORK/htree
mkdir -p "$H"
echo keep >"$H/a.txt"
echo log >"$H/b.log"
echo '*.log' >"$WORK/push.exclude"
"$FERRY" sync "$H" "s3://$B/h" --endpoint-url "$PROXY" --watch \
	--watch-settle 1 --delete --exclude-from "$WORK/push.exclude" --json \
	>"$WORK/h.json" 2>"$WORK/h.err" &
hpid=$!
wait_line "$WORK/h.json" 20 '"type":"summary"' >/dev/null
first=$(s3 ls "$B" h/ | cut -f2 | tr '\n' ' ')
echo '*.txt' >"$WORK/push.exclude"
kill -HUP $hpid
check "SIGHUP: the push watcher reads its filter files again, and says so" \
	wait_line "$WORK/h.json" 10 '"event":"reload","reason":"SIGHUP: the filters were read again'
check "... and runs with them, with no event: the file they let in is sent" \
	wait_for 10 eval 's3 ls "$B" h/ | grep -q "	h/b.log"'
is "$first| $(s3 ls "$B" h/ | cut -f2 | tr '\n' ' ')" \
	"h/a.txt | h/a.txt h/b.log " \
	"... and what they now leave out (sent by the first) is not deleted"
printf '*.log\n[oops\n' >"$WORK/push.exclude"
kill -HUP $hpid
check "SIGHUP with a bad line: the filters in use are kept, and said" \
	wait_line "$WORK/h.json" 10 'push.exclude:2: bad filter pattern.*the filters in use are kept'
n=$(runs "$WORK/h.json")
echo new >"$H/c.txt"
echo new >"$H/d.log"
wait_runs "$WORK/h.json" 10 $((n + 1))
is "$(s3 ls "$B" h/ | cut -f2 | tr '\n' ' ')" "h/a.txt h/b.log h/d.log " \
	"... the next run sends by the filters kept (*.txt left out)"
term $hpid
is "$?" 0 "SIGTERM: the push watcher exits 0"
check "... having said it stops, in lines valid against the event schema" \
	stopped "$WORK/h.json"

# --- a pull watcher through an outage, into a folder not made yet ---------
# its first runs fail before the folder (and the watcher's lock beside its
# manifest) can be made; it tries again, the wait doubling, and takes the
# lock once a run has made the folder.  --max-delete 3 then counts per hour.
for k in k1 k2 k3 k4 k5; do put "lsrc/$k" "$k"; done
port=${PROXY##*:}
stop_proxy
start_proxy down --always --kinds 503 --port "$port"
L=$WORK/later/pull
"$FERRY" sync "s3://$B/lsrc" "$L" --endpoint-url "$PROXY" --watch \
	--watch-interval 1s --retries 1 --delete --max-delete 3 --json \
	>"$WORK/l.json" 2>"$WORK/l.err" &
lpid=$!
check "a pull watcher whose runs fail before its folder is made goes on" \
	wait_line "$WORK/l.json" 20 '"event":"held","reason":"the run did not end synced: again in 2 s'
kill -0 $lpid
is "$?" 0 "... still running, its wait doubled (1 s, then 2 s)"
stop_proxy
start_proxy back --rate 0 --port "$port"
check "... once the server answers, the folder is made and filled" \
	wait_for 20 eval 'has "$L/k1" k1 && has "$L/k5" k5'
n=$(runs "$WORK/l.json")
wait_runs "$WORK/l.json" 10 $((n + 1))
timeout 20 "$FERRY" sync "s3://$B/lsrc" "$L" --endpoint-url "$PROXY" \
	--watch --watch-interval 1s >/dev/null 2>"$WORK/l2.err"
is "$?" 4 "... and a second watcher of the pair is then refused (exit 4)"
s3 del "$B" lsrc/k1 >/dev/null
s3 del "$B" lsrc/k2 >/dev/null
check "a poll's 2 deletes within --max-delete 3 go" \
	wait_for 10 eval 'test ! -e "$L/k1" && test ! -e "$L/k2"'
n=$(runs "$WORK/l.json")
wait_runs "$WORK/l.json" 10 $((n + 1))
s3 del "$B" lsrc/k3 >/dev/null
s3 del "$B" lsrc/k4 >/dev/null
check "... the next poll's 2 are refused: 3 an hour" \
	wait_line "$WORK/l.json" 15 'refusing 2 deletes: more deletes than'
check "... and the folder keeps those 2" \
	eval 'has "$L/k3" k3 && has "$L/k4" k4 && has "$L/k5" k5'
term $lpid
is "$?" 0 "SIGTERM: the watcher exits 0"
check "... having said it stops, in lines valid against the event schema" \
	stopped "$WORK/l.json"

# the options: exit 2, and why
like "$("$FERRY" sync "$H" "s3://$B/h" --watch --watch-interval 5s 2>&1)" \
	"--watch-interval: a push's runs follow the folder's events" \
	"--watch-interval on a push is refused: its runs follow events"
like "$("$FERRY" sync "s3://$B/h" "$WORK/x" --watch --watch-interval 0 2>&1)" \
	"--watch-interval must be at least 1s" \
	"--watch-interval under 1s is refused"
like "$("$FERRY" sync "s3://$B/h" "$WORK/x" --watch-interval 5s 2>&1)" \
	"--watch-interval go with --watch" \
	"--watch-interval without --watch is refused"
like "$("$FERRY" sync "s3://$B/h" "$WORK/x" --watch --watch-settle 5s 2>&1)" \
	"--watch-settle and --watch-rescan are a push's" \
	"--watch-settle on a pull is refused: its runs follow the poll"
echo "# wall time $(($(date +%s) - t0)) s"
done_testing
