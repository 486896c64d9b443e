#!/usr/bin/env bash
# slurm-array.sh: archive a large results folder to a bucket with a Slurm
# job array of 8 tasks, each task syncing one shard of the files.
#
# PLANNED WORK: "ferry sync --shard I/N" is designed (DESIGN.md, "Scale
# beyond one machine") but this version of ferry does not have it yet and
# rejects the option with exit status 2.  The rest of the script is what
# the sharded run will look like.
#
# With --shard I/N, a task handles the keys whose hash modulo N is I,
# keeps its own manifest and deletes only within its own keys, so the 8
# tasks never touch the same object.  Slurm gives each task its index in
# SLURM_ARRAY_TASK_ID and the number of tasks in SLURM_ARRAY_TASK_COUNT.
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
index=${SLURM_ARRAY_TASK_ID:?run this with sbatch, as a job array}
count=${SLURM_ARRAY_TASK_COUNT:-8}
events=events-${SLURM_ARRAY_JOB_ID:-$$}-$index.jsonl

# One manifest per shard.  LMDB wants a local file system with working
# mmap and locks: if $HOME is on NFS, point FERRY_SHARD_STATE at
# node-local disk that survives the job (a lost manifest costs one slower
# run, never data).
state=${FERRY_SHARD_STATE:-$HOME/.local/state/ferry-shards}
manifest=$state/$(basename "$src")-shard-$index-of-$count

echo "shard $index of $count: $src -> $dst on $(hostname)"
"$FERRY" sync --shard "$index/$count" --manifest "$manifest" \
	--jobs "$((4 * ${SLURM_CPUS_PER_TASK:-2}))" --memory 512M \
	--json "$@" "$src" "$dst" >"$events"
status=$?

# The summary goes to the task's log; the events stay in their file.
grep '"type":"summary"' "$events" | tail -n 1
if [ "$status" -ne 0 ]; then
	echo "shard $index: ferry exited $status (1 some objects failed," \
		"2 usage or configuration error, 3 aborted)" >&2
	grep '"type":"error"' "$events" |
		head -n 20 >&2
fi
# Slurm records the exit status per task; "sacct" shows which failed.
exit "$status"
