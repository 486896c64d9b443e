#!/usr/bin/env bash
# --exclude-from, --include-from, --files-from, --min-size/--max-size and
# --min-age/--max-age on push, pull and mirror: what moves, that nothing
# they leave out is deleted, and that a bad file is refused by name and
# line.
. "$(dirname "$0")/lib.sh"

B=filters-$$
mkbucket "$B"

# mktree DIR: a.txt, b.log, old.txt (30 days old), big.bin (2000 bytes),
# sub/c.txt, sub/d.tmp
mktree() {
	mkdir -p "$1/sub"
	for f in a.txt b.log old.txt sub/c.txt sub/d.tmp; do
		echo "content of $f" >"$1/$f"
	done
	head -c 2000 /dev/zero >"$1/big.bin"
	touch -d '-30 days' "$1/old.txt"
}

# keys PREFIX: the keys under s3://$B/PREFIX/, relative, on one line
keys() {
	s3 ls "$B" "$1/" | cut -f2 | sed "s|^$1/||" | sort | tr '\n' ' '
}

# files DIR: the files under DIR, relative, on one line
files() {
	(cd "$1" && find . -type f | sed 's|^\./||' | sort | tr '\n' ' ')
}

# run ARGS...: a sync with JSON lines into $WORK/out.json
run() {
	"$FERRY" sync "$@" --json >"$WORK/out.json" 2>"$WORK/err"
}

# --exclude-from and --include-from, in their place among the rules
cat >"$WORK/ex" <<'EOF'
# logs and scratch stay home

*.log
	
sub/*.tmp
EOF
printf 'sub/\r\n*.txt\r\n' >"$WORK/inc"
mktree "$WORK/e"
run "$WORK/e" "s3://$B/e" --exclude-from "$WORK/ex"
is "$?" 0 "a push with --exclude-from exits 0"
is "$(keys e)" "a.txt big.bin old.txt sub/c.txt " \
	"... and leaves out the patterns of the file, comments and blank lines skipped"
run "$WORK/e" "s3://$B/i" --exclude old.txt --include-from "$WORK/inc" \
	--exclude '*'
is "$(keys i)" "a.txt sub/c.txt " \
	"--include-from takes its place in the rule order (CRLF lines too)"
mktree "$WORK/e2"
rm "$WORK/e2/b.log" "$WORK/e2/sub/d.tmp" "$WORK/e2/a.txt"
s3 put "$B" e/b.log "$WORK/e/b.log"
s3 put "$B" e/sub/d.tmp "$WORK/e/sub/d.tmp"
run "$WORK/e2" "s3://$B/e" --exclude-from "$WORK/ex" --delete \
	--max-delete 10
is "$(keys e)" "b.log big.bin old.txt sub/c.txt sub/d.tmp " \
	"--delete removes a.txt and nothing --exclude-from left out"

# a pull with --exclude-from, and --delete keeping what it leaves out
mkdir -p "$WORK/pe/sub"
echo local >"$WORK/pe/sub/local.tmp"
echo local >"$WORK/pe/gone.txt"
run "s3://$B/e" "$WORK/pe" --exclude-from "$WORK/ex" --delete \
	--max-delete 10
is "$?" 0 "a pull with --exclude-from exits 0"
is "$(files "$WORK/pe")" "big.bin old.txt sub/c.txt sub/local.tmp " \
	"... gets what the file does not exclude, deletes gone.txt, keeps sub/local.tmp"

# --files-from: only the listed paths, deletes only among them
printf '# two files and one gone\n./a.txt\n/sub/c.txt\nbig.bin\n' \
	>"$WORK/list"
mktree "$WORK/f"
run "$WORK/f" "s3://$B/f"
echo "changed, and longer than before" >"$WORK/f/a.txt"
echo "changed, and longer than before" >"$WORK/f/b.log"
rm "$WORK/f/big.bin" "$WORK/f/old.txt"
run "$WORK/f" "s3://$B/f" --files-from "$WORK/list" --delete \
	--max-delete 10
is "$?" 0 "a push with --files-from exits 0"
is "$(summary "$WORK/out.json" uploaded)/$(summary "$WORK/out.json" deleted)" \
	"1/1" "... uploads a.txt alone and deletes only the listed big.bin"
is "$(keys f)" "a.txt b.log old.txt sub/c.txt sub/d.tmp " \
	"... old.txt, not listed, is not deleted"
is "$(s3 ls "$B" f/b.log | cut -f1)" 17 \
	"... and the changed b.log, not listed, is not uploaded"

mkdir -p "$WORK/pf/sub"
echo local >"$WORK/pf/big.bin"
echo local >"$WORK/pf/x.txt"
run "s3://$B/f" "$WORK/pf" --files-from "$WORK/list" --delete \
	--max-delete 10
is "$?" 0 "a pull with --files-from exits 0"
is "$(files "$WORK/pf")" "a.txt sub/c.txt x.txt " \
	"... gets the listed keys, deletes the listed big.bin, keeps x.txt"

s3 put "$B" m/keep.log "$WORK/e/b.log"
s3 put "$B" m/big.bin "$WORK/e/b.log"
run "s3://$B/f" "s3://$B/m" --files-from "$WORK/list" --delete \
	--max-delete 10
is "$?" 0 "a mirror with --files-from exits 0"
is "$(keys m)" "a.txt keep.log sub/c.txt " \
	"... copies the listed keys, deletes the listed big.bin, keeps keep.log"

# --min-size and --max-size: the source's size decides
mktree "$WORK/s"
run "$WORK/s" "s3://$B/s" --min-size 1K
is "$(keys s)" "big.bin " "--min-size 1K pushes big.bin alone"
run "$WORK/s" "s3://$B/t" --max-size 100
is "$(keys t)" "a.txt b.log old.txt sub/c.txt sub/d.tmp " \
	"--max-size 100 pushes the small ones"
run "$WORK/s" "s3://$B/s"
rm "$WORK/s/big.bin" "$WORK/s/a.txt"
run "$WORK/s" "s3://$B/s" --max-size 100 --delete --max-delete 10
is "$(keys s)" "b.log big.bin old.txt sub/c.txt sub/d.tmp " \
	"--max-size with --delete removes a.txt, not the larger big.bin"

mkdir -p "$WORK/ps"
echo small >"$WORK/ps/small.txt"
head -c 3000 /dev/zero >"$WORK/ps/large.bin"
run "s3://$B/s" "$WORK/ps" --min-size 1K --delete --max-delete 10
is "$?" 0 "a pull with --min-size exits 0"
is "$(files "$WORK/ps")" "big.bin small.txt " \
	"... gets big.bin alone, deletes large.bin, keeps the smaller small.txt"

# --min-age and --max-age: a push goes by the local mtime
mktree "$WORK/a"
run "$WORK/a" "s3://$B/a" --max-age 7d
is "$(keys a)" "a.txt b.log big.bin sub/c.txt sub/d.tmp " \
	"--max-age 7d leaves the 30 days old old.txt at home"
run "$WORK/a" "s3://$B/b" --min-age 2w
is "$(keys b)" "old.txt " "--min-age 2w pushes old.txt alone"
rm "$WORK/a/a.txt"
run "$WORK/a" "s3://$B/a" --min-age 1h --delete --max-delete 10
is "$(keys a)" "a.txt b.log big.bin old.txt sub/c.txt sub/d.tmp " \
	"--min-age 1h pushes old.txt and does not delete a.txt, written just now"
run "$WORK/a" "s3://$B/a" --max-age 86400 --delete --max-delete 10
is "$(keys a)" "b.log big.bin old.txt sub/c.txt sub/d.tmp " \
	"--max-age in seconds with --delete deletes a.txt, not old.txt, too old"

# a pull goes by LastModified: the objects were all written just now
mkdir -p "$WORK/pa"
echo local >"$WORK/pa/new.txt"
echo local >"$WORK/pa/ancient.txt"
touch -d '-30 days' "$WORK/pa/ancient.txt"
run "s3://$B/a" "$WORK/pa" --min-age 15m
is "$(files "$WORK/pa")" "ancient.txt new.txt " \
	"a pull with --min-age 15m gets none of the new objects"
run "s3://$B/a" "$WORK/pa" --max-age 1d --delete --max-delete 10
is "$(files "$WORK/pa")" "ancient.txt b.log big.bin old.txt sub/c.txt sub/d.tmp " \
	"... with --max-age 1d it gets them, deletes new.txt, keeps the older ancient.txt"

# bad files and values: exit 2, naming the file and the line
bad() {
	"$FERRY" sync "$WORK/e" "s3://$B/e" "$@" >/dev/null 2>"$WORK/err"
	echo "$?"
}
printf '*.log\n\na//b\n' >"$WORK/bad1"
is "$(bad --exclude-from "$WORK/bad1")" 2 "a bad pattern exits 2"
like "$(cat "$WORK/err")" "bad1:3: bad filter pattern" "... naming file:line"
{
	echo ok
	head -c 5000 /dev/zero | tr '\0' a
	echo
} >"$WORK/bad2"
is "$(bad --include-from "$WORK/bad2")" 2 "a line too long exits 2"
like "$(cat "$WORK/err")" "bad2:2: .*longer than 4096" "... naming file:line"
printf 'a.txt\nx\0y\n' >"$WORK/bad3"
is "$(bad --exclude-from "$WORK/bad3")" 2 "a NUL byte exits 2"
like "$(cat "$WORK/err")" "bad3:2: .*NUL" "... naming file:line"
printf 'a.txt\nsub/../../etc/passwd\n' >"$WORK/bad4"
is "$(bad --files-from "$WORK/bad4")" 2 "a '..' in --files-from exits 2"
like "$(cat "$WORK/err")" "bad4:2: bad path" "... naming file:line"
is "$(bad --exclude-from "$WORK/none")" 2 "an unreadable file exits 2"
like "$(cat "$WORK/err")" "none: No such file" "... naming the file"
is "$(bad --files-from "$WORK")" 2 "a folder as --files-from exits 2"
is "$(bad --min-age 3y)" 2 "--min-age 3y exits 2"
is "$(bad --max-size 1Q)" 2 "--max-size 1Q exits 2"
is "$(bad --min-size 2K --max-size 1K)" 2 "--min-size above --max-size exits 2"
is "$(bad --min-age 2d --max-age 1d)" 2 "--min-age above --max-age exits 2"
is "$(keys e)" "b.log big.bin old.txt sub/c.txt sub/d.tmp " \
	"... and none of them changed the bucket"

done_testing
