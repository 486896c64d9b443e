#!/usr/bin/env bash
# sync --watch, its settle time per path: while one file is appended to
# without a pause (every 0.2 s for 12 s), five files closed at once and
# one written once and kept open, idle, are listable within a few settle
# times, not at the end of the window the writer keeps busy; the file
# being written is held back by the runs meanwhile (never listed before
# its cap, 10 settle times, and then at a size it had), and once closed
# its object is its bytes.  More files written at once than the watcher
# follows (4096) is said, and nothing is lost.
. "$(dirname "$0")/lib.sh"

B=wsettle-$$
T=$WORK/tree
mkbucket "$B"
mkdir -p "$T"
echo seed >"$T/seed"

# h00000... are the names of part 2, which need not be sent
"$FERRY" sync "$T" "s3://$B/s" --watch --watch-settle 1 --json -v \
	--exclude 'h[0-9]*' >"$WORK/w.json" 2>"$WORK/w.err" &
wpid=$!
check "the watcher's first run ends" \
	wait_line "$WORK/w.json" 20 '"type":"summary"'

python3 "$TOP/tests/integration/watch_settle.py" "$T" "$B" s/ \
	"$WORK/w.json" 12 >"$WORK/r" 2>"$WORK/r.err"
sed 's/^/# /' "$WORK/r" "$WORK/r.err"
r() { sed -n "s/^$1=//p" "$WORK/r"; }

# --watch-settle 1: the run one settle time after the closes, and the
# run itself, on a loaded machine: 4 s
like "$(r five_after)" '^[0-3]\.' \
	"five files closed while another is written are listable within 4 s"
like "$(r idle_after)" '^[0-3]\.' \
	"a file kept open, its write still for the settle time, is listable within 4 s"
# a run while it was written, which left it out: never listed before
# its cap, then, written on past it, sent as it was at a size it had
like "$(r held_runs)/$(r log_early)/$(r log_badsize)/$(r log_sent_open)" \
	'^[1-9][0-9]*/0/0/[1-9]' \
	"the file being written was held back by a run meanwhile, and sent at its cap (held runs/listed early/at a size it never had/listed at a size it had)"
is "$(r log_final)" 1 "once closed, its object is the file's bytes"

# 2. 4,200 names made at once (hard links: a create each, never closed),
# then a file closed: the set of files being written is full, which is
# said, the writes past it wait for the whole window, and the file closed
# after them is sent all the same.  The watcher is stopped meanwhile, so
# that it reads them at once: made more slowly than the settle time (a
# loaded machine), the first would be sent, still, before the last came.
kill -STOP "$wpid"
python3 - "$T" <<'PY'
import os, sys
t = sys.argv[1]
with open(os.path.join(t, "base"), "wb") as f:
    f.write(b"base")
for i in range(4200):
    os.link(os.path.join(t, "base"), os.path.join(t, "h%05d" % i))
with open(os.path.join(t, "after.txt"), "wb") as f:
    f.write(b"after")
PY
kill -CONT "$wpid"
check "more than 4096 files being written at once is said" \
	wait_line "$WORK/w.err" 10 'more than 4096 files are being written'
listed() {
	local i
	for i in $(seq 40); do
		s3 ls "$B" s/ | grep -q "	s/$1\$" && return 0
		sleep 0.25
	done
	return 1
}
check "... and a file closed after them is sent all the same" \
	listed after.txt

grep "watch:" "$WORK/w.err" | cut -c1-160 | tail -8 | sed "s/^/# /"
term "$wpid"
is "$?" 0 "SIGTERM: the watcher exits 0"
grep -o '"type":"watch","event":"run"[^}]*' "$WORK/w.json" | sed 's/^/# /'
check "every line of the watcher is valid against the event schema" \
	json_valid "$WORK/w.json"
"$FERRY" sync "$T" "s3://$B/s" --exclude 'h[0-9]*' --json \
	>"$WORK/once.json" 2>&1
like "$(grep '"type":"summary"' "$WORK/once.json")" '"uploaded":0,' \
	"a one-off run afterwards finds nothing to send"

done_testing
