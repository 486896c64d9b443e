#!/usr/bin/env bash
# sync --watch, its settle time per path: while one file is appended to
# without a pause (every 0.2 s for 12 s), five files closed at once and
# one written once and kept open, idle, are listable within a few settle
# times, not at the end of the window the writer keeps busy; the file
# being written is held back by the runs meanwhile (never listed before
# its cap, 10 settle times, and then at a size it had), and once closed
# its object is its bytes.
. "$(dirname "$0")/lib.sh"

B=wsettle-$$
T=$WORK/tree
mkbucket "$B"
mkdir -p "$T"
echo seed >"$T/seed"

"$FERRY" sync "$T" "s3://$B/s" --watch --watch-settle 1 --json \
	>"$WORK/w.json" 2>"$WORK/w.err" &
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

term "$wpid"
is "$?" 0 "SIGTERM: the watcher exits 0"
grep -o '"type":"watch","event":"run"[^}]*' "$WORK/w.json" | sed 's/^/# /'
check "every line of the watcher is valid against the event schema" \
	json_valid "$WORK/w.json"
"$FERRY" sync "$T" "s3://$B/s" --json >"$WORK/once.json" 2>&1
like "$(grep '"type":"summary"' "$WORK/once.json")" '"uploaded":0,' \
	"a one-off run afterwards finds nothing to send"

done_testing
