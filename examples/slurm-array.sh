#!/usr/bin/env bash
# slurm-array.sh: archive a large results folder to a bucket with a Slurm
# job array of 8 tasks, each task syncing one shard of the files.
#
# Inside a job array, ferry is a shard by itself: Slurm gives each task
# its id in SLURM_ARRAY_TASK_ID (counted from SLURM_ARRAY_TASK_MIN) and the
# number of tasks in SLURM_ARRAY_TASK_COUNT, and "ferry sync" then handles
# the keys whose hash modulo the count is the task's index (as with
# --shard I/N), keeps a manifest of its own and deletes only within its
# own keys, so the 8 tasks never touch the same object.  The array must
# number its tasks one by one (0-7 or 1-8, without a step).
#
# Range shards: with FERRY_SHARD_RANGES naming a file that "ferry ls
# --ranges 8" wrote, task I holds the I-th of 8 ranges of keys instead
# and lists only that range of the bucket, so the 8 tasks together list
# it about once (hash shards each list all of it):
#
#   ferry ls s3://archive/results --ranges 8 > ranges.json
#   FERRY_SHARD_RANGES=$PWD/ranges.json sbatch slurm-array.sh ...
#
#   sbatch slurm-array.sh /scratch/project/results s3://archive/results
#   sacct -j JOBID --format=JobID,State,ExitCode
#
# Credentials: ~/.aws/credentials and ~/.aws/config, or AWS_* variables
# exported before sbatch (sbatch passes the environment on by default).
#
#SBATCH --job-name=ferry-archive
#SBATCH --array=0-7
#SBATCH --cpus-per-task=2
#SBATCH --mem=1G
#SBATCH --time=04:00:00
#SBATCH --output=ferry-archive-%A_%a.log
set -u

if [ $# -lt 2 ]; then
	echo "usage: sbatch $0 SOURCE_DIR s3://BUCKET[/PREFIX] [ferry options...]" >&2
	exit 2
fi
src=$1
dst=$2
shift 2

FERRY=${FERRY:-ferry}
task=${SLURM_ARRAY_TASK_ID:?run this with sbatch, as a job array}
: "${SLURM_ARRAY_TASK_COUNT:?run this with sbatch, as a job array}"
events=events-${SLURM_ARRAY_JOB_ID:-$$}-$task.jsonl

# Each shard's manifest has its own folder under FERRY_STATE_DIR.  LMDB
# wants a local file system with working mmap and locks: if $HOME is on
# NFS, point FERRY_SHARD_STATE at node-local disk that survives the job
# (a lost manifest costs one slower run, never data).
export FERRY_STATE_DIR=${FERRY_SHARD_STATE:-$HOME/.local/state/ferry}

ranges=()
if [ -n "${FERRY_SHARD_RANGES:-}" ]; then
	ranges=(--shard-ranges "$FERRY_SHARD_RANGES")
fi

echo "task $task of $SLURM_ARRAY_TASK_COUNT: $src -> $dst on $(hostname)"
"$FERRY" sync --jobs "$((4 * ${SLURM_CPUS_PER_TASK:-2}))" --memory 512M \
	--json "${ranges[@]}" "$@" "$src" "$dst" >"$events"
status=$?

# The summary goes to the task's log; the events stay in their file.
grep '"type":"summary"' "$events" | tail -n 1
if [ "$status" -ne 0 ]; then
	echo "task $task: ferry exited $status (1 some objects failed," \
		"2 usage or configuration error, 3 aborted)" >&2
	grep '"type":"error"' "$events" |
		head -n 20 >&2
fi
# Slurm records the exit status per task; "sacct" shows which failed.
exit "$status"
