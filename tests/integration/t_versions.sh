#!/usr/bin/env bash
# Versions: ls --versions lists every version and delete marker of a
# versioned bucket; a pull --at TIME restores a prefix as it was at that
# time (the newest version not after it, a delete marker meaning absent),
# by GETs of those versions, writing nothing to the bucket.  Three
# backups of a changing tree are restored at three times and compared
# with snapshots taken then.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

PATH=/usr/bin:$PATH
B=versions-$$
T=$WORK/tree
mkbucket "$B"
awscli s3api put-bucket-versioning --bucket "$B" \
	--versioning-configuration Status=Enabled
is "$?" 0 "the bucket is made versioned"

# backup N: pushes the tree with --delete, snapshots it as $WORK/sN, and
# sets TN to a time after the push and before the next one.
backup() {
	"$FERRY" sync "$T" "s3://$B/p" --delete --force -q
	is "$?" 0 "backup $1 exits 0"
	cp -a "$T" "$WORK/s$1"
	# versions are dated to the second: the times fall between them
	sleep 1.1
	eval "T$1=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	sleep 1.1
}

mkdir -p "$T/d"
echo one >"$T/a.txt"
echo bee >"$T/d/b.txt"
head -c $(($(mib 10 9) << 20)) /dev/urandom >"$T/d/big.bin"
backup 1
echo "one, changed" >"$T/a.txt"
rm "$T/d/b.txt"
echo new >"$T/e.txt"
head -c 100000 /dev/urandom >"$T/d/big.bin"
backup 2
echo "one, changed again" >"$T/a.txt"
echo "bee, back" >"$T/d/b.txt"
rm "$T/e.txt"
echo eff >"$T/f.txt"
backup 3

# (a) ls --versions
"$FERRY" ls --versions "s3://$B/p" >"$WORK/ls.out"
is "$?" 0 "ls --versions exits 0"
is "$(grep -c ' p/a[.]txt$' "$WORK/ls.out")" 3 "... three versions of a.txt"
like "$(grep ' p/a[.]txt$' "$WORK/ls.out" | head -n 1)" "^ +19  [0-9T:Z-]+  latest  " \
	"... the newest first, marked latest"
is "$(grep -c '  delete  .* p/d/b[.]txt$' "$WORK/ls.out")" 1 \
	"... b.txt's delete marker"
is "$(grep -c '  delete  .* p/e[.]txt$' "$WORK/ls.out")" 1 \
	"... and e.txt's, the newest of it"
"$FERRY" ls --versions --json "s3://$B/p" >"$WORK/ls.json"
check "... --json: every line is valid against the schema" \
	json_valid "$WORK/ls.json"
is "$(pick "$WORK/ls.json" 'l["key"] for l in L if l["delete_marker"] and l["latest"]')" \
	"p/e.txt" "... e.txt is the one deleted now"
is "$(wc -l <"$WORK/ls.json")" 11 "... 11 versions and markers in all"

# (b) three restores, each the tree as it was
m=$(mark)
for i in 1 2 3; do
	eval "at=\$T$i"
	"$FERRY" sync "s3://$B/p" "$WORK/r$i" --at "$at" -q
	is "$?" 0 "the restore at time $i ($at) exits 0"
	check "... the tree is the snapshot of backup $i" \
		diff -r "$WORK/s$i" "$WORK/r$i"
done
is "$(requests "$m" put)$(requests "$m" post)$(requests "$m" delete)" 000 \
	"... and the restores wrote nothing to the bucket" ||
	"$COUNT" --dump "$FERRY_TEST_LOG" "$m" | grep -v '^get\|^list' | sed 's/^/# /' 
n=$("$COUNT" --dump "$FERRY_TEST_LOG" "$m" | grep -c '^get GET .*versionId=')
check "... each GET named its version ($n)" test "$n" -ge 10

# (c) a folder restored at the last time, then in place at the first:
# what changed is fetched, what was absent then is removed
"$FERRY" sync "s3://$B/p" "$WORK/r3" --at "$T1" --delete --json \
	>"$WORK/c.json"
is "$?" 0 "the restore at time 1 over the tree of time 3 exits 0"
check "... leaves the snapshot of backup 1" diff -r "$WORK/s1" "$WORK/r3"
is "$(pick "$WORK/c.json" 'l["type"] + ":" + l["key"] for l in L if l["type"] in ("download", "delete")')" \
	"delete:p/f.txt download:p/a.txt download:p/d/b.txt download:p/d/big.bin" \
	"... by the downloads and the delete needed, no more"
"$FERRY" sync "s3://$B/p" "$WORK/r3" --json >"$WORK/c2.json"
is "$?" 0 "a pull of the current state over it exits 0"
check "... and leaves the snapshot of backup 3" diff -r "$WORK/s3" "$WORK/r3"

# a file of the version's size, unknown to the manifest, whose key is
# deleted now: compared with that version, not with the current state
mkdir "$WORK/r5"
echo xxx >"$WORK/r5/e.txt"
"$FERRY" sync "s3://$B/p" "$WORK/r5" --at "$T2" --manifest "$WORK/m5" -q
is "$?" 0 "a restore at time 2 over another e.txt of its size exits 0"
check "... leaves the snapshot of backup 2" diff -r "$WORK/s2" "$WORK/r5"

# (d) examples/restore-at.sh: the versions, and a restore at time 2
EX=$TOP/examples/restore-at.sh
like "$(FERRY=$FERRY "$EX" "s3://$B/p" list)" "latest .* p/a[.]txt" \
	"restore-at.sh list shows the versions"
out=$(FERRY=$FERRY "$EX" "s3://$B/p" "$T2" "$WORK/ex")
is "$?" 0 "restore-at.sh at time 2 exits 0"
is "$out" "restore: s3://$B/p as at $T2 into $WORK/ex: 3 files, 0 failed, exit 0" \
	"... saying what it restored"
check "... the tree is the snapshot of backup 2" diff -r "$WORK/s2" "$WORK/ex"
FERRY=$FERRY "$EX" "s3://$B/p" "$T1" "$WORK/ex" 2>"$WORK/ex.err"
is "$?" 2 "... and refuses to restore into a folder that is not empty"

# (e) the command line
"$FERRY" sync "$T" "s3://$B/p" --at "$T1" 2>"$WORK/d.err"
is "$?" 2 "--at on a push is refused"
"$FERRY" sync "s3://$B/p" "$WORK/r9" --at yesterday 2>"$WORK/d2.err"
is "$?" 2 "--at with no time is refused"
check "... and makes no folder" test ! -e "$WORK/r9"

done_testing
