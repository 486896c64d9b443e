#!/usr/bin/env bash
# The progress line knows the total before everything is planned: how
# many keys the run goes through (a push's scan, the count a pull or a
# mirror kept from its last run) and how far it is through them, with an
# estimated ETA ("~") until the last key is planned, never an exact ETA
# of what is planned so far; a scan counts out of the files the last
# one found.
. "$(dirname "$0")/lib.sh"

B=progress-$$
T=$WORK/tree
N=1500
mkbucket "$B"
python3 "$TOP/tests/integration/gen_tree.py" "$T" "$N" 5 2000

# lines FILE: the progress lines of a run's stderr, one a line
lines() {
	tr '\r' '\n' <"$1" | sed 's/^\x1b\[K//' | grep 'objects'
}

# unkeyed FILE TOTAL: the lines planned in part ("+ objects") that do
# not say "K/TOTAL keys" with K at most TOTAL, or show an exact ETA
unkeyed() {
	lines "$1" | grep '+ objects' | awk -v t="$2" '
	{
		if (!match($0, /, [0-9]+\/[0-9]+ keys/)) { print; next }
		split(substr($0, RSTART + 2, RLENGTH - 7), k, "/")
		if (k[2] != t || k[1] + 0 > t + 0 || $0 ~ /ETA [0-9]/) print
	}'
}

# change FROM TO TEXT: appends TEXT to the files FROM to TO-1 of the tree
# (in path order), then pushes them
change() {
	local i=0 f
	while IFS= read -r -d '' f; do
		[ $i -ge "$1" ] && [ $i -lt "$2" ] && echo "$3" >>"$f"
		i=$((i + 1))
	done < <(find "$T" -type f -print0 | sort -z)
	"$FERRY" sync "$T" "s3://$B/p" -q
}

# 1. a first push: the scan counted the files
"$FERRY" sync "$T" "s3://$B/p" --progress -j 2 2>"$WORK/push.err"
is "$?" 0 "a first push with --progress exits 0"
check "... shows lines planned in part" grep -q '+ objects' \
	<(lines "$WORK/push.err")
is "$(unkeyed "$WORK/push.err" "$N")" "" \
	"... each says how many of the $N keys it went through"
check "... and an estimated ETA" grep -q 'keys, ETA ~[0-9]*s' \
	<(lines "$WORK/push.err")
"$FERRY" sync "$T" "s3://$B/p" --progress 2>"$WORK/again.err"
is "$?" 0 "an unchanged push with --progress exits 0"
like "$(tr '\r' '\n' <"$WORK/again.err" | sed 's/^\x1b\[K//' |
	grep -m 1 '^scanning')" "^scanning: [0-9]+/~$N files, " \
	"... its scan counts out of the files the last scan found"

# again NAME DST CHANGED: syncs s3://$B/p to DST once, changes CHANGED
# files, then syncs again with --progress: every line planned in part
# counts the keys out of the N the first run recorded.
again() {
	"$FERRY" sync "s3://$B/p" "$2" -q
	is "$?" 0 "a first $1 exits 0"
	change 0 "$3" "changed for $1"
	"$FERRY" sync "s3://$B/p" "$2" --progress -j 1 2>"$WORK/$1.err"
	is "$?" 0 "a $1 of $3 changed objects with --progress exits 0"
	check "... shows lines planned in part" grep -q '+ objects' \
		<(lines "$WORK/$1.err")
	is "$(unkeyed "$WORK/$1.err" "$N")" "" \
		"... each out of the $N keys the first $1 recorded"
	like "$(lines "$WORK/$1.err" | tail -n 1)" "^$3/$3 objects, " \
		"... the last one with the known total"
}

# 2. a pull and 3. a mirror
again pull "$WORK/restore" 400
again mirror "s3://$B/m" 300

done_testing
