#!/usr/bin/env bash
# --fsync: a pull makes each file durable before its name (fsync of the
# file), the name after (fsync of its folder, and of the parent of each
# folder it makes), and the manifest at each of its commits and before the
# summary; without it, no file is synced.  Seen through strace.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

B=fsync-$$
T=$WORK/tree
mkbucket "$B"
mkdir -p "$T/d/e"
echo one >"$T/a.txt"
echo two >"$T/d/b.txt"
echo three >"$T/d/e/c.txt"
head -c $(($(mib 10 9) << 20)) /dev/urandom >"$T/d/big.bin"
"$FERRY" sync "$T" "s3://$B/p" -q
is "$?" 0 "the push to pull exits 0"

# durable TRACE FILE...: checks the trace of a pull (strace -y) of the
# files named: each is synced, then named, then its folder synced; each
# folder made has its parent synced; the manifest is synced before the
# summary is written.  Prints what is wrong, nothing when all is right.
durable() {
	python3 - "$@" <<'PY'
import re, sys
# the loop's thread alone (the first to appear): the workers' wake-ups
# (writes to an eventfd) fall between its calls in strace -f's output,
# and a call another thread's line cut in two is joined again
lines, main = [], None
for l in open(sys.argv[1]):
    if " " not in l:
        continue
    pid, l = l.split(None, 1)
    main = main or pid
    if pid != main:
        continue
    if l.startswith("<... ") and lines and lines[-1].endswith(
            " <unfinished ...>\n"):
        lines[-1] = lines[-1][:-len(" <unfinished ...>\n")] + \
            l.split("resumed>", 1)[1]
        continue
    lines.append(l)
want = set(sys.argv[2:])
call = re.compile(r'^(\w+)\((\d+)<([^>]*)>')
named = {}
for i, l in enumerate(lines):
    m = call.match(l)
    if not m or m.group(1) not in ("linkat", "renameat"):
        continue
    name = re.findall(r'"([^"]*)"', l)[-1]
    if name.startswith(".ferry-tmp-"):
        continue
    dirfd = re.findall(r'(\d+)<([^>]*)>', l)[-1]
    path = dirfd[1] + "/" + name
    prev = call.match(lines[i - 1]) if i > 0 else None
    nxt = call.match(lines[i + 1]) if i + 1 < len(lines) else None
    if not prev or prev.group(1) != "fsync" or (
            m.group(1) == "linkat" and prev.group(2) != m.group(2)):
        print("%s: not synced before it was named" % path)
    if not nxt or nxt.group(1) != "fsync" or nxt.group(2) != dirfd[0]:
        print("%s: its folder not synced after" % path)
    named[path] = i
for w in want:
    if not any(p.endswith("/" + w) for p in named):
        print("%s: never named" % w)
for i, l in enumerate(lines):
    m = re.match(r'mkdirat\((\d+)<([^>]*)>, "([^"]*)"', l)
    if m and not any(re.match(r'fsync\(%s<' % m.group(1), x)
                     for x in lines[i + 1:i + 3]):
        print("%s/%s: its parent not synced after" % (m.group(2), m.group(3)))
syncs = [i for i, l in enumerate(lines)
         if re.match(r'f(data)?sync\(\d+<[^>]*data\.mdb>', l)]
summ = [i for i, l in enumerate(lines) if r'\"type\":\"summary\"' in l]
if not summ or not any(i < summ[-1] for i in syncs):
    print("the manifest is not synced before the summary")
PY
}

files="a.txt b.txt c.txt big.bin"
opts=(-e trace=fsync,fdatasync,linkat,renameat,mkdirat,write -y -s 65536)
traced "$WORK/t1" "${opts[@]}" -- "$FERRY" sync "s3://$B/p" "$WORK/p1" \
	--fsync --json >"$WORK/p1.json"
is "$?" 0 "a pull with --fsync exits 0"
# shellcheck disable=SC2086
is "$(durable "$WORK/t1" $files)" "" \
	"... each file synced, named, its folder synced; the manifest before the summary"
check "... the files are the bucket's" python3 \
	"$TOP/tests/integration/bucket_equals_tree.py" "$WORK/p1" "$B" p/

traced "$WORK/t0" "${opts[@]}" -- "$FERRY" sync "s3://$B/p" "$WORK/p0" \
	--json >"$WORK/p0.json"
is "$?" 0 "a pull without --fsync exits 0"
is "$(grep -c '^[0-9]* *fsync(' "$WORK/t0")" 0 "... and syncs no file"
like "$(durable "$WORK/t0")" "manifest is not synced before the summary" \
	"... nor the manifest before the summary"

# A long pull commits its manifest every 500 files: with --fsync each of
# those commits reaches the disk, not only the last, so a crash loses the
# records of at most the files since.
mkdir -p "$WORK/many"
for i in $(seq 1 1100); do echo "$i" >"$WORK/many/f$i"; done
"$FERRY" sync "$WORK/many" "s3://$B/many" -q
is "$?" 0 "a push of 1100 files exits 0"
traced "$WORK/t2" -e trace=fsync,fdatasync,linkat,renameat -y -- \
	"$FERRY" sync "s3://$B/many" "$WORK/pm" --fsync -q
is "$?" 0 "a pull of them with --fsync exits 0"
n=$(python3 - "$WORK/t2" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
named = [i for i, l in enumerate(lines) if re.search(r"(linkat|renameat)\(", l)
         and ".ferry-tmp-" not in re.findall(r'"([^"]*)"', l)[-1]]
syncs = [i for i, l in enumerate(lines)
         if re.search(r"f(data)?sync\(\d+<[^>]*data\.mdb>", l)]
# the manifest synced while files were still being named
print(sum(1 for i in syncs if named and named[0] < i < named[-1]))
PY
)
check "... the manifest is synced during the run too ($n times)" test "$n" -ge 2

done_testing
