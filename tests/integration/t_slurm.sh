#!/usr/bin/env bash
# examples/slurm-array.sh run as written on a real Slurm (tests/server/slurm:
# munged, slurmctld and slurmd on 127.0.0.1), with "sbatch --array=0-3
# --wait": four tasks push one shard each, hash shards and then range
# shards (ferry ls --ranges); together they make what one unsharded run
# makes, each key going up once, each task COMPLETED in sacct; a task whose
# key the server refuses fails the array (sbatch's exit, sacct's FAILED,
# the task's log) and the array run again converges; a task killed mid-run
# by "scontrol requeue" runs again and the array converges.
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"
export LC_ALL=C # sort in byte order, as S3 and ferry order keys

SLURMD=$WORK/slurm
trap '"$TOP/tests/server/slurm" stop "$SLURMD" >/dev/null 2>&1; stop_proxy;
	rm -rf "$WORK"' EXIT
t0=$SECONDS
if [ "$(id -u)" -ne 0 ]; then
	not_ok "Slurm runs here as root only (slurmd starts jobs as their user)"
	done_testing
	exit
fi
if ! "$TOP/tests/server/slurm" start "$SLURMD" 2>"$WORK/slurm.err"; then
	not_ok "a one-node Slurm starts on loopback"
	sed 's/^/# /' "$WORK/slurm.err"
	done_testing
	exit
fi
ok "a one-node Slurm starts on loopback ($((SECONDS - t0)) s)"
# shellcheck disable=SC1091
. "$SLURMD/env"

B=slurm-$$
T=$WORK/tree
N=120
mkbucket "$B"
python3 "$TOP/tests/integration/gen_tree.py" "$T" "$N" 7 2048
find "$T" -type f -printf '%P\n' | sort >"$WORK/files"

# array RUN DST [FERRY-OPTION...]: examples/slurm-array.sh as a job array of
# 4 tasks pushing the tree to DST, submitted from $WORK/RUN (where the
# tasks write their logs and events) with its own manifests; the job id
# goes to $WORK/RUN/job.  Returns sbatch's exit: the highest of the tasks'.
array() {
	local run=$1 dst=$2 rc t=$SECONDS
	shift 2
	mkdir -p "$WORK/$run"
	(
		cd "$WORK/$run" || exit 99
		FERRY_SHARD_STATE=$WORK/state-$run sbatch --array=0-3 --wait \
			--parsable "$TOP/examples/slurm-array.sh" "$T" "$dst" "$@" \
			>job 2>sbatch.err
	)
	rc=$?
	echo "# the array $run took $((SECONDS - t)) s"
	[ "$rc" -eq 0 ] || sed 's/^/# sbatch: /' "$WORK/$run/sbatch.err"
	return "$rc"
}

# tasks RUN: "TASK STATE EXITCODE" for each task of RUN's array, from the
# job completion records that sacct -c reads.
tasks() {
	local job
	job=$(cat "$WORK/$1/job")
	sacct -c -n -P -o JobID,State,ExitCode 2>/dev/null >"$WORK/$1/sacct"
	# sacct -c names a task by its own job id: the records map it to the
	# array's task.
	awk -v job="$job" '
	FILENAME == ARGV[1] {
		id = ""; task = ""
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^JobId=/) id = substr($i, 7)
			if ($i ~ /^ArrayJobId=/ && substr($i, 12) != job) id = ""
			if ($i ~ /^ArrayTaskId=/) task = substr($i, 13)
		}
		if (id != "") of[id] = task
		next
	}
	{ split($0, f, "|"); if (f[1] in of) print of[f[1]], f[2], f[3] }' \
		"$SLURMD/log/jobcomp.txt" "$WORK/$1/sacct" | sort
}

# events RUN PREFIX: from RUN's tasks' events, "TASK<TAB>KEY" for each
# upload into $WORK/RUN/up (by key), and each task's summary's shard.
events() {
	python3 -c '
import json, sys
job, prefix, d = sys.argv[1:4]
up, shards = [], []
for t in range(4):
    shard = ""
    for line in open("%s/events-%s-%d.jsonl" % (d, job, t)):
        e = json.loads(line)
        if e["type"] == "upload":
            up.append((e["key"][len(prefix):].encode(), t))
        elif e["type"] == "summary":
            shard = e.get("shard", "")
    shards.append(shard)
with open(d + "/up", "wb") as f:
    for k, t in sorted(up):
        f.write(b"%d\t%s\n" % (t, k))
print(" ".join(shards))' "$(cat "$WORK/$1/job")" "$2" "$WORK/$1"
}

# ls_keys URL PREFIX: the keys under URL, less PREFIX, by ferry ls.
ls_keys() {
	"$FERRY" ls --json "$1" | python3 -c '
import json, sys
for line in sys.stdin:
    print(json.loads(line)["key"][len(sys.argv[1]):])' "$2" | sort
}

# the_array RUN PREFIX WHAT: the checks of a run that went up whole.
the_array() {
	local run=$1 p=$2 what=$3
	is "$(tasks "$run")" "$(printf '%s COMPLETED 0:0\n' 0 1 2 3)" \
		"$what: sacct -c shows each of the 4 tasks COMPLETED, exit 0"
	is "$(events "$run" "$p/")" "0/4 1/4 2/4 3/4" \
		"$what: each task's summary names its shard of 4"
	is "$(cut -f2 "$WORK/$run/up")" "$(cat "$WORK/files")" \
		"$what: the tasks' uploads are the tree, each file once"
	is "$(cut -f1 "$WORK/$run/up" | sort -u | tr '\n' ' ')" "0 1 2 3 " \
		"$what: ... shared by all four tasks"
	is "$(requests "$m" put)" "$N" "$what: the gateway saw $N PUTs"
	check "$what: the bucket holds the tree" python3 \
		"$TOP/tests/integration/bucket_equals_tree.py" "$T" "$B" "$p/"
	is "$(ls_keys "s3://$B/$p" "$p/")" "$(cat "$WORK/u.keys")" \
		"$what: ... the same keys as the unsharded run's"
	like "$(cat "$WORK/$run"/ferry-archive-*_2.log)" '"type":"summary"' \
		"$what: task 2's log holds its summary"
}

# 1. the reference: one unsharded run
"$FERRY" sync --json "$T" "s3://$B/u" >"$WORK/u.json"
is "$?" 0 "an unsharded push exits 0"
ls_keys "s3://$B/u" u/ >"$WORK/u.keys"

# 2. hash shards
m=$(mark)
array hash "s3://$B/h"
is "$?" 0 "sbatch --array=0-3 --wait of slurm-array.sh (hash shards) exits 0"
the_array hash h "hash shards"

# 3. range shards, cut from the unsharded run's keys
"$FERRY" ls "s3://$B/u" --ranges 4 >"$WORK/ranges.json"
is "$?" 0 "ferry ls --ranges 4 exits 0"
m=$(mark)
FERRY_SHARD_RANGES=$WORK/ranges.json array range "s3://$B/r"
is "$?" 0 "... and the array with FERRY_SHARD_RANGES exits 0"
the_array range r "range shards"
check "range shards: task I uploaded only the keys of range I" python3 -c '
import json, sys
cuts = [c.encode() for c in json.load(open(sys.argv[1]))["cuts"]]
for line in open(sys.argv[2]):
    t, key = line.rstrip("\n").split("\t")
    t, k = int(t), key.encode()
    if (t > 0 and k <= cuts[t - 1]) or (t < 3 and k > cuts[t]):
        sys.exit("task %d uploaded %r, outside its range" % (t, key))' \
	"$WORK/ranges.json" "$WORK/range/up"

# 4. a task that fails: the gateway refuses one key (500 on each PUT of it,
# through a fault proxy), and that task's ferry exits 1
start_proxy refuse --always --kinds 500 --only-methods PUT \
	--match '/f/plain%2000000\.bin$'
array fail "s3://$B/f" --endpoint-url "$PROXY" --retries 2
is "$?" 1 "a task that exits 1 makes sbatch --wait exit 1"
stop_proxy
st=$(tasks fail)
is "$(printf '%s\n' "$st" | awk '$2 == "FAILED" && $3 == "1:0"' | wc -l)" 1 \
	"sacct -c shows one task FAILED with exit 1"
is "$(printf '%s\n' "$st" | awk '$2 == "COMPLETED" && $3 == "0:0"' | wc -l)" 3 \
	"... and three COMPLETED"
bad=$(printf '%s\n' "$st" | awk '$2 == "FAILED" { print $1 }')
job=$(cat "$WORK/fail/job")
is "$(pick "$WORK/fail/events-$job-${bad:-x}.jsonl" \
	'l["key"] for l in L if l["type"] == "error"' 2>/dev/null)" \
	"f/plain 00000.bin" "... the one whose events name the refused key"
like "$(cat "$WORK/fail/ferry-archive-${job}_${bad:-x}.log" 2>/dev/null)" \
	"task $bad: ferry exited 1" "... and whose log says it exited 1"

# 5. the array again, the server well: only the refused key goes up
m=$(mark)
array fail "s3://$B/f"
is "$?" 0 "the array run again exits 0"
is "$(requests "$m" put)" 1 "... and puts only the refused key"
check "... and the bucket holds the tree" python3 \
	"$TOP/tests/integration/bucket_equals_tree.py" "$T" "$B" f/

# 6. a task killed mid-run and requeued: the gateway's answer to one key's
# PUT is held (by a fault proxy) until the task that sent it, the one
# still running, is requeued; Slurm runs it again and the array converges
start_proxy hold --always --kinds delay --only-methods PUT \
	--match '/k/plain%2000000\.bin$' --hold "$WORK/go"
m=$(mark)
array kill "s3://$B/k" --endpoint-url "$PROXY" &
sb=$!
held hold
for _ in $(seq 300); do
	running=$(squeue -h -t R -o %i)
	[ "$(printf '%s' "$running" | grep -c .)" != 1 ] || break
	sleep 0.2
done
scontrol requeue "$running"
is "$?" 0 "scontrol requeue of the task still running ($running) exits 0"
touch "$WORK/go"
wait "$sb"
is "$?" 0 "... and the array, its task run again, exits 0"
stop_proxy
st=$(tasks kill)
is "$(printf '%s\n' "$st" | awk '$2 == "COMPLETED" && $3 == "0:0" { print $1 }' |
	tr '\n' ' ')" "0 1 2 3 " "sacct -c shows each task COMPLETED, exit 0"
is "$(printf '%s\n' "$st" | grep -vc COMPLETED)" 1 \
	"... and one record of the task before it was requeued"
check "... and the bucket holds the tree" python3 \
	"$TOP/tests/integration/bucket_equals_tree.py" "$T" "$B" k/
p=$(requests "$m" put)
check "... its keys put once, the held one at most twice ($p PUTs)" \
	between "$p" "$N" $((N + 1))

echo "# t_slurm took $((SECONDS - t0)) s"
done_testing
