#!/usr/bin/env bash
# --shard I/N: four shards run at once into one prefix, each key uploaded
# once, by the shard the documented hash names; each shard keeps its own
# manifest and deletes only its own keys; pulls and mirrors agree;
# --shards with JOB_COMPLETION_INDEX, Slurm's variables, bad values.
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"
export LC_ALL=C # sort and comm in byte order, as Python sorts UTF-8 keys

B=shard-$$
T=$WORK/tree
N=300
mkbucket "$B"
python3 "$TOP/tests/integration/gen_tree.py" "$T" "$N" 11 2048

# The contract of ferry-sync.1, computed here independently of ferry: XXH3-64
# (seed 0) of the key relative to the prefix, modulo N.  Listings come
# from "ferry ls"; bucket_equals_tree.py checks with another client.
cat >"$WORK/keys.py" <<'PY'
import ctypes, ctypes.util, json, os, subprocess, sys

lib = ctypes.CDLL(ctypes.util.find_library("xxhash"))
lib.XXH3_64bits.restype = ctypes.c_uint64
lib.XXH3_64bits.argtypes = [ctypes.c_char_p, ctypes.c_size_t]


def shard(key, n):
    b = key.encode()
    return lib.XXH3_64bits(b, len(b)) % n


def files(root):
    if root == "-":
        yield from (k for k in sys.stdin.read().split("\n") if k)
        return
    for d, _, names in os.walk(root):
        for f in names:
            yield os.path.relpath(os.path.join(d, f), root)


def main(cmd, a):
    if cmd == "split":  # DIR|- N: "SHARD<TAB>KEY", of files or stdin lines
        for k in files(a[0]):
            yield "%d\t%s" % (shard(k, int(a[1])), k)
    elif cmd == "bucket":  # URL PREFIX: the keys, less the prefix
        out = subprocess.run([os.environ["FERRY"], "ls", "--json", a[0]],
                             check=True, capture_output=True).stdout
        for line in out.decode().splitlines():
            yield json.loads(line)["key"][len(a[1]):]
    elif cmd == "events":  # TYPE PREFIX FILE...: "J<TAB>KEY", J the file
        for j, path in enumerate(a[2:]):
            for line in open(path):
                d = json.loads(line)
                if d["type"] == a[0]:
                    yield "%d\t%s" % (j, d["key"][len(a[1]):])
    elif cmd == "pick":  # N: "I<TAB>NAME", a name "kJ" in each shard I
        for i in range(int(a[0])):
            yield "%d\t%s" % (i, next(k for k in ("k%d" % j for j in range(999))
                                      if shard(k, int(a[0])) == i))


for line in sorted(main(sys.argv[1], sys.argv[2:])):
    print(line)
PY
keys() {
	FERRY=$FERRY python3 "$WORK/keys.py" "$@"
}
# lines TEXT: how many non-empty lines
lines() {
	printf '%s' "$1" | grep -c .
}
# in_shard J [FILE]: the keys of the "J<TAB>KEY" lines of FILE (default:
# the tree's files of shard J of 4)
in_shard() {
	awk -F'\t' -v j="$1" '$1 == j { print $2 }' "${2:-$WORK/split}"
}
# tree DIR: its files, sorted
tree() {
	find "$1" -type f -printf '%P\n' | sort
}
# field NAME FILE...: the NAME of each file's last summary ("" if none)
field() {
	local f v out=
	for f in "${@:2}"; do
		v=$(grep '"type":"summary"' "$f" | tail -n 1 |
			grep -o "\"$1\":[^,}]*" | cut -d: -f2 | tr -d '"')
		out="$out${out:+ }$v"
	done
	printf '%s' "$out"
}
# sum NAME FILE...: the sum of field NAME over the files
sum() {
	field "$@" | awk '{ for (i = 1; i <= NF; i++) n += $i } END { print n + 0 }'
}
keys split "$T" 4 >"$WORK/split"

# shards NAME: runs the four shards of the tree to s/ at once, each with
# its events in $WORK/NAME0.json to NAME3.json; the last failure's status.
shards() {
	local i p st=0 pids=()
	for i in 0 1 2 3; do
		"$FERRY" sync --shard "$i/4" --json "$T" "s3://$B/s" \
			>"$WORK/$1$i.json" 2>"$WORK/$1$i.err" &
		pids+=($!)
	done
	for p in "${pids[@]}"; do
		wait "$p" || st=$?
	done
	return "$st"
}

# 1. four shards at once into one prefix
m=$(mark)
shards s
is "$?" 0 "four shards run at once all exit 0"
check "the bucket holds the tree" \
	python3 "$TOP/tests/integration/bucket_equals_tree.py" "$T" "$B" s/
is "$(requests "$m" put)" "$N" "the gateway saw $N PUTs: each file went up once"
s=("$WORK"/s[0-3].json)
keys events upload s/ "${s[@]}" >"$WORK/up"
for i in 0 1 2 3; do
	want=$(in_shard "$i")
	is "$(in_shard "$i" "$WORK/up")" "$want" \
		"shard $i/4 uploaded the keys the hash gives it"
	check "... which are some ($(lines "$want"))" test "$(lines "$want")" -gt 0
done
is "$(field shard "${s[@]}")" "0/4 1/4 2/4 3/4" \
	"each summary names its shard"
is "$(sum uploaded "${s[@]}")" "$N" "the four summaries add up to the tree"

# 2. an unsharded run finds the same keys
"$FERRY" sync --json "$T" "s3://$B/u" >"$WORK/u.json"
is "$?" 0 "an unsharded push exits 0"
is "$(keys bucket "s3://$B/u" u/)" "$(keys bucket "s3://$B/s" s/)" \
	"... and its prefix holds the same keys as the sharded one"
is "$(field shard "$WORK/u.json")" "" "... and its summary names no shard"

# 3. each shard has its own manifest
is "$(find "$FERRY_STATE_DIR" -mindepth 1 -maxdepth 1 -type d | wc -l)" 5 \
	"five manifests: four shards and the unsharded pair"
out=$("$FERRY" manifest info --json --shard 2/4 "$T" "s3://$B/s")
is "$?" 0 "manifest info --shard 2/4 finds shard 2's manifest"
check "... which names the shard and holds only its files" python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d["shard"] == "2/4", d
assert d["destination"].endswith(" shard 2/4"), d
assert d["local_entries"] == int(sys.argv[2]), d' "$out" "$(in_shard 2 | wc -l)"
"$FERRY" manifest info --json "$T" "s3://$B/s" >/dev/null 2>&1
is "$?" 1 "the unsharded pair of s/ has no manifest"
err=$("$FERRY" sync --shard 1/4 --manifest "$WORK/mine" "$T" "s3://$B/s" 2>&1)
like "$err" '^shard 1/4: 0 uploaded' "the summary on stderr names the shard"
"$FERRY" sync --shard 3/4 --manifest "$WORK/mine" -q "$T" "s3://$B/s" \
	2>/dev/null
is "$?" 2 "another shard's --manifest DIR is refused with exit 2"

# 4. a sharded rerun only lists
m=$(mark)
shards r
is "$?" 0 "the sharded rerun exits 0"
is "$(requests "$m" put)" 0 "... and sends no PUT"
is "$(requests "$m" head)" 0 "... and no HEAD"
is "$(sum skipped "$WORK"/r[0-3].json)" "$N" \
	"... and its shards find all $N files unchanged"

# 5. the defaults: --shards with JOB_COMPLETION_INDEX, Slurm's variables
JOB_COMPLETION_INDEX=2 "$FERRY" sync --shards 4 --json "$T" "s3://$B/s" \
	>"$WORK/job.json"
is "$?" 0 "--shards 4 with JOB_COMPLETION_INDEX=2 exits 0"
is "$(field shard "$WORK/job.json")" 2/4 "... and runs shard 2/4"
is "$(field skipped "$WORK/job.json")" "$(in_shard 2 | wc -l)" \
	"... over shard 2's files only, with its manifest"
JOB_COMPLETION_INDEX=2 "$FERRY" sync --json "$T" "s3://$B/u" >"$WORK/nojob.json"
is "$(field skipped "$WORK/nojob.json")" "$N" \
	"JOB_COMPLETION_INDEX without --shards shards nothing"
SLURM_ARRAY_TASK_ID=4 SLURM_ARRAY_TASK_COUNT=4 SLURM_ARRAY_TASK_MIN=1 \
	"$FERRY" sync --json --dry-run "$T" "s3://$B/slurm" >"$WORK/slurm.json"
is "$?" 0 "Slurm task 4 of an array 1-4 exits 0"
is "$(keys events plan slurm/ "$WORK/slurm.json" | cut -f2)" "$(in_shard 3)" \
	"... and plans exactly shard 3/4's files"
SLURM_ARRAY_TASK_ID=1 "$FERRY" sync --json --dry-run "$T" "s3://$B/slurm" \
	>"$WORK/slurm1.json"
is "$(field uploaded "$WORK/slurm1.json")" "$N" \
	"SLURM_ARRAY_TASK_ID without a count shards nothing"

# 6. pulls and mirrors agree with pushes on each key's shard
"$FERRY" sync --shard 1/4 -q "s3://$B/s" "$WORK/pull1"
is "$?" 0 "a pull of shard 1/4 exits 0"
is "$(tree "$WORK/pull1")" "$(in_shard 1)" \
	"... and fetches shard 1's files, no others"
"$FERRY" sync --shard 3/4 -q "s3://$B/s" "s3://$B/m"
is "$?" 0 "a mirror of shard 3/4 exits 0"
is "$(keys bucket "s3://$B/m" m/)" "$(in_shard 3)" \
	"... and copies shard 3's objects, no others"

# 7. deletes stay within the shard
grep -E '3\.bin$' "$WORK/split" | sort -t "$(printf '\t')" -k2 >"$WORK/gone-split"
cut -f2 "$WORK/gone-split" >"$WORK/gone"
while IFS= read -r f; do
	rm "$T/$f"
done <"$WORK/gone"
gone0=$(in_shard 0 "$WORK/gone-split")
check "some removed files are shard 0's ($(lines "$gone0") of $(wc -l <"$WORK/gone"))" \
	test "$(lines "$gone0")" -gt 0 -a "$(lines "$gone0")" -lt "$(wc -l <"$WORK/gone")"
"$FERRY" sync --shard 0/4 --delete --json "$T" "s3://$B/s" >"$WORK/d0.json"
is "$?" 0 "shard 0 with --delete exits 0"
is "$(keys events delete s/ "$WORK/d0.json" | cut -f2)" "$gone0" \
	"... and deletes its own removed files, no others"
keys bucket "s3://$B/s" s/ >"$WORK/listed"
keys split - 4 <"$WORK/listed" >"$WORK/listed-split"
is "$(comm -12 "$WORK/listed" "$WORK/gone")" \
	"$(comm -23 "$WORK/gone" <(printf '%s\n' "$gone0"))" \
	"... the other shards' removed files stay until their shards run"

# --max-delete N% counts the shard's objects, not the prefix's
d1=$(comm -12 <(in_shard 1 "$WORK/listed-split") "$WORK/gone" | wc -l)
n1=$(in_shard 1 "$WORK/listed-split" | wc -l)
all=$(wc -l <"$WORK/listed")
pct=$(((d1 * 100 + all - 1) / all))
check "precondition: $pct% of the prefix's $all allows $d1 deletes, of shard 1's $n1 not" \
	test "$((all * pct / 100))" -ge "$d1" -a "$((n1 * pct / 100))" -lt "$d1"
"$FERRY" sync --shard 1/4 --delete --max-delete "$pct%" --json "$T" \
	"s3://$B/s" >"$WORK/d1.json" 2>/dev/null
is "$?" 3 "--max-delete $pct% refuses shard 1's $d1 deletes out of its $n1"
for i in 1 2 3; do
	"$FERRY" sync --shard "$i/4" --delete -q "$T" "s3://$B/s"
done
is "$(keys bucket "s3://$B/s" s/)" "$(tree "$T")" \
	"once every shard ran, the bucket holds the tree's keys again"

# "the source is empty" is judged per shard
mkdir -p "$WORK/two"
keys pick 2 >"$WORK/pick"
a=$(in_shard 0 "$WORK/pick")
b=$(in_shard 1 "$WORK/pick")
echo a >"$WORK/two/$a"
echo b >"$WORK/two/$b"
"$FERRY" sync -q "$WORK/two" "s3://$B/two"
rm "$WORK/two/$b"
"$FERRY" sync --shard 1/2 --delete --json "$WORK/two" "s3://$B/two" \
	>"$WORK/two.json" 2>/dev/null
is "$?" 3 "shard 1/2, with no file left, refuses to delete $b"
like "$(cat "$WORK/two.json")" 'the source is empty' "... as from an empty source"

# 8. bad values are usage errors
# bad_run [VAR=VALUE...] FERRY sync OPTIONS...: exits 2 with one line
bad_run() {
	local err rc
	err=$(env "$@" "$T" "s3://$B/s" 2>&1 >/dev/null)
	rc=$?
	set -- "${@/#"$FERRY"/ferry}"
	if [ "$rc" = 2 ] && [ "$(lines "$err")" = 2 ] &&
		printf '%s' "$err" | tail -n 1 | grep -q "^Try 'ferry --help'"; then
		ok "exit 2 and a one-line message: $*"
	else
		not_ok "exit 2 and a one-line message: $* (got $rc: $err)"
	fi
}
m=$(mark)
for a in 4/4 0/0 x/4 1 -1/4 1/4/4 ''; do
	bad_run "$FERRY" sync --shard "$a"
done
bad_run "$FERRY" sync --shards 0
bad_run "$FERRY" sync --shards 4
bad_run JOB_COMPLETION_INDEX=4 "$FERRY" sync --shards 4
bad_run JOB_COMPLETION_INDEX=x "$FERRY" sync --shards 4
bad_run JOB_COMPLETION_INDEX=1 "$FERRY" sync --shard 1/4 --shards 4
bad_run SLURM_ARRAY_TASK_ID=8 SLURM_ARRAY_TASK_COUNT=8 "$FERRY" sync
bad_run SLURM_ARRAY_TASK_ID=x SLURM_ARRAY_TASK_COUNT=8 "$FERRY" sync
bad_run SLURM_ARRAY_TASK_ID=2 SLURM_ARRAY_TASK_COUNT=4 SLURM_ARRAY_TASK_MIN=0 \
	SLURM_ARRAY_TASK_MAX=6 SLURM_ARRAY_TASK_STEP=2 "$FERRY" sync
is "$(requests "$m" total)" 0 "bad values send no request"

done_testing
