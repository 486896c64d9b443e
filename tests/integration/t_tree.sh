#!/usr/bin/env bash
# A tree that changes between the scan and the upload.  A file is opened
# again where the scan found it and used only while it is the file
# scanned: a folder on its path swapped for a symbolic link to a folder
# outside the tree, a fifo, or another file put at its name is reported
# and not uploaded (exit 1), and nothing hangs; a push, an apply and a
# pull's check alike.  The swap is made while a proxy holds the listing,
# which a push and a pull send only once their scan is done, and the
# listing goes on only once it is made.  ferry's own temporary files
# (a killed pull's) are never uploaded.
. "$(dirname "$0")/lib.sh"

B=tree-$$
mkbucket "$B"
GO=$WORK/go
# what a folder swapped in leads to: the same names and sizes
OUT=$WORK/outside
mkdir -p "$OUT"
printf 'SECRET\n' >"$OUT/f"

# run_swapped NAME SWAP ARGS...: ferry ARGS (bounded by a timeout: a
# hang is exit 124) through a proxy that holds the listing until SWAP has
# run; its exit status in rc, its output in $WORK/NAME.out and .err.
run_swapped() {
	local name=$1 swap=$2 pid
	shift 2
	rm -f "$GO"
	start_proxy "$name" --always --kinds delay --only-methods GET \
		--match 'list-type=2' --hold "$GO"
	timeout 30 "$FERRY" "$@" --endpoint-url "$PROXY" --json \
		>"$WORK/$name.out" 2>"$WORK/$name.err" &
	pid=$!
	held "$name"
	"$swap"
	touch "$GO"
	wait "$pid"
	rc=$?
	stop_proxy
}

# keys PREFIX: the keys under PREFIX, on one line
keys() {
	s3 ls "$B" "$1" | cut -f2 | sort | tr '\n' ' '
}

# unleaked PREFIX: whether no object under PREFIX holds the outside bytes
unleaked() {
	rm -rf "$WORK/got"
	mkdir "$WORK/got"
	s3 getall "$B" "$1" "$WORK/got" && ! grep -rqs SECRET "$WORK/got"
}

# 1. push: a folder swapped for a symbolic link to a folder outside the
# tree that holds a file of the same name and size
T=$WORK/t1
mkdir -p "$T/d"
printf 'inside\n' >"$T/d/f"
printf 'keep\n' >"$T/k"
swap_dir() {
	mv "$T/d" "$WORK/d.away"
	ln -s "$OUT" "$T/d"
}
run_swapped p1 swap_dir sync "$T" "s3://$B/p1/"
is "$rc" 1 "push, folder swapped for a symlink: exit 1"
check "... the outside file is not uploaded" unleaked p1/
is "$(keys p1/)" "p1/k " "... and the rest is"
like "$(cat "$WORK/p1.err")" \
	'p1/d/f: changed since the scan: d is now a symbolic link' \
	"... the error names the file and the link"
rm "$T/d"
mv "$WORK/d.away" "$T/d"
"$FERRY" sync "$T" "s3://$B/p1/" -q
is "$?" 0 "... and once the folder is back, the next run exits 0"
is "$(keys p1/)" "p1/d/f p1/k " "... with the file uploaded"

# 2. push: a fifo put at a scanned name does not hang the run
T=$WORK/t2
mkdir -p "$T"
printf 'pipe\n' >"$T/p"
printf 'keep\n' >"$T/k"
swap_fifo() {
	rm "$T/p"
	mkfifo "$T/p"
}
run_swapped p2 swap_fifo sync "$T" "s3://$B/p2/"
is "$rc" 1 "push, a fifo at a scanned name: exit 1, no hang"
like "$(cat "$WORK/p2.err")" \
	'p2/p: changed since the scan: now a fifo, not a regular file' \
	"... the error names the file and what it is now"
is "$(keys p2/)" "p2/k " "... and the rest is uploaded"

# 3. push: another file put at the name (a new inode, same size)
T=$WORK/t3
mkdir -p "$T"
printf 'before\n' >"$T/e"
swap_file() {
	printf 'after!\n' >"$T/e.new"
	touch -r "$T/e" "$T/e.new"
	mv "$T/e.new" "$T/e"
}
run_swapped p3 swap_file sync "$T" "s3://$B/p3/"
is "$rc" 1 "push, another file put at the name: exit 1"
like "$(cat "$WORK/p3.err")" 'p3/e: changed since the scan: now another file' \
	"... the error says so"
is "$(keys p3/)" "" "... and nothing is uploaded"

# 4. apply: the folder is swapped after the plan
T=$WORK/t4
mkdir -p "$T/d"
printf 'inside\n' >"$T/d/f"
touch -r "$T/d/f" "$OUT/f"
printf 'pipe\n' >"$T/p"
"$FERRY" plan "$T" "s3://$B/p4/" >"$WORK/p4.plan"
swap_dir
swap_fifo
timeout 30 "$FERRY" apply "$WORK/p4.plan" >"$WORK/p4.out" 2>"$WORK/p4.err"
is "$?" 1 "apply, a folder swapped and a fifo since the plan: exit 1, no hang"
check "... the outside file is not uploaded" unleaked p4/
like "$(cat "$WORK/p4.err")" 'd/f: changed since the scan: d is now a symbolic' \
	"... the folder is reported as a symbolic link"
like "$(cat "$WORK/p4.err")" 'p4/p: changed since the scan: now a fifo' \
	"... and the fifo as one"
is "$(keys p4/)" "" "... and nothing is uploaded"

# 5. a pull's check of a local file of the listed size, which is then
# swapped for a fifo: no hang, and the fifo stays
P=$WORK/t5
mkdir -p "$P"
printf 'pulled\n' >"$WORK/obj"
s3 put "$B" p5/q "$WORK/obj"
printf 'local!\n' >"$P/q"
swap_pulled() {
	rm "$P/q"
	mkfifo "$P/q"
}
run_swapped p5 swap_pulled sync "s3://$B/p5/" "$P"
is "$rc" 1 "pull, a fifo at the name being checked: exit 1, no hang"
like "$(cat "$WORK/p5.err")" 'p5/q: changed since the scan: now a fifo' \
	"... the error says so"
check "... and the fifo is left as it is" test -p "$P/q"

# 6. a killed pull's temporary files are not uploaded; a name like one
# that is not one is
T=$WORK/t6
mkdir -p "$T/sub"
echo a >"$T/.ferry-tmp-0123456789ab"
echo b >"$T/sub/.ferry-tmp-abcdef012345"
echo c >"$T/.ferry-tmp-notes"
echo d >"$T/.ferry-tmp-0123456789AB"
echo e >"$T/x"
"$FERRY" sync "$T" "s3://$B/p6/" --json >"$WORK/p6.json"
is "$?" 0 "push of a tree holding temporary files: exit 0"
is "$(keys p6/)" "p6/.ferry-tmp-0123456789AB p6/.ferry-tmp-notes p6/x " \
	"... which are not uploaded, the other names are"
is "$(summary "$WORK/p6.json" uploaded)" 3 "... and not counted"

done_testing
