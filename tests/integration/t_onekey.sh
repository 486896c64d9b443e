#!/usr/bin/env bash
# One key, one source.  With --links, a symlink X goes as the key
# X.rclonelink, which a file of that name beside it also names: a push
# sends neither, says so naming both and exits 1, and sends the rest.  A
# bucket holding both f and f.rclonelink is pulled as the plain file f,
# with a warning naming both keys, and the next pull does nothing (no
# swap back to the link).
. "$(dirname "$0")/lib.sh"

B=onekey-$$
mkbucket "$B"

# keys PREFIX: size:key of each object under PREFIX, on one line
keys() {
	s3 ls "$B" "$1" | tr '\t\n' ': '
}

# --- push: a link X and a file X.rclonelink
T=$WORK/tree
mkdir -p "$T/d"
echo a >"$T/a.txt"
echo b >"$T/d/b.txt"
ln -s ../a.txt "$T/d/X"
echo "edited, to be backed up" >"$T/d/X.rclonelink"
"$FERRY" sync "$T" "s3://$B/p" --links --json >"$WORK/push.json" \
	2>"$WORK/err"
is "$?" 1 "a push where a link and a file go as one key exits 1"
like "$(cat "$WORK/err" "$WORK/push.json")" "symlink 'd/X'.*file 'd/X.rclonelink'|file 'd/X.rclonelink'.*symlink 'd/X'" \
	"... naming both, with their folder"
is "$(keys p/)" "2:p/a.txt 2:p/d/b.txt " \
	"... sends the other files, and neither of the two"
is "$(summary "$WORK/push.json" failed)" 1 "... and counts one failure"

# the link gone, the file goes up as any other
rm "$T/d/X"
"$FERRY" sync "$T" "s3://$B/p" --links --quiet
is "$?" 0 "once the link is gone, the push exits 0"
s3 get "$B" p/d/X.rclonelink "$WORK/got"
is "$(cat "$WORK/got")" "edited, to be backed up" "... and sends the file"

# --- pull: a bucket holding f and f.rclonelink
echo "the plain file" >"$WORK/plain"
printf 'a.txt' >"$WORK/target"
echo a >"$WORK/a"
s3 put "$B" q/a.txt "$WORK/a"
s3 put "$B" q/f "$WORK/plain"
s3 put "$B" q/f-between "$WORK/a"
s3 put "$B" q/f.rclonelink "$WORK/target" "x-amz-meta-mode:120777"
P=$WORK/pull
"$FERRY" sync "s3://$B/q" "$P" --links --json >"$WORK/pull1.json" \
	2>"$WORK/err"
is "$?" 0 "a pull of f and f.rclonelink with --links exits 0"
like "$(cat "$WORK/err")" "'f' and 'f.rclonelink' both name the file 'f'.*'f' is made" \
	"... warning, naming both keys and which it made"
check "... making f the plain file" test -f "$P/f" -a ! -L "$P/f"
is "$(cat "$P/f")" "the plain file" "... with the plain object's bytes"
m=$(mark)
"$FERRY" sync "s3://$B/q" "$P" --links --json >"$WORK/pull2.json" \
	2>"$WORK/err"
is "$?" 0 "a second pull exits 0"
is "$(summary "$WORK/pull2.json" downloaded)" 0 "... downloads nothing"
is "$(requests "$m" get)" 0 "... and the gateway sees no GET"
check "... f is still the plain file" test -f "$P/f" -a ! -L "$P/f"
like "$(cat "$WORK/err")" "'f' and 'f.rclonelink' both name the file 'f'" \
	"... and says so again"
"$FERRY" sync "s3://$B/q" "$P" --links --json >"$WORK/pull3.json" 2>/dev/null
is "$(summary "$WORK/pull3.json" downloaded)" 0 "a third pull downloads nothing"

# without the plain object, the link is made
s3 del "$B" q/f
rm "$P/f"
"$FERRY" sync "s3://$B/q" "$P" --links --quiet 2>"$WORK/err"
is "$?" 0 "with f deleted, a pull exits 0"
check "... and makes the link" test -L "$P/f"
is "$(cat "$WORK/err")" "" "... without a warning"
done_testing
