#!/usr/bin/env bash
# restore-at.sh: restore a backup as it was at a past time, from a
# versioned bucket (the nightly backups of backup-cron.sh, for one), into
# a new folder, with ferry.  Each object comes back as its newest version
# written at or before that time; objects deleted by then stay deleted.
#
#   usage: restore-at.sh s3://BUCKET[/PREFIX] TIME TARGET_DIR [ferry options...]
#          restore-at.sh s3://BUCKET[/PREFIX] list
#
# TIME is UTC, as 2026-11-01T02:30:00Z.  "list" shows the versions the
# bucket holds (ferry ls --versions), to choose a time from.  The bucket
# must have had versioning on (aws s3api put-bucket-versioning ...
# Status=Enabled) when the backups ran: without it, only the last state
# is kept, and a time before it restores nothing.
#
# TARGET_DIR must not exist yet, or be empty: a restore never mixes with
# files already there.  Credentials and the endpoint come from the
# environment or the AWS files, as for backup-cron.sh; FERRY names the
# binary (default: ferry on PATH, then /usr/local/bin, ~/.local/bin).
#
# Prints one line: what was restored, from the run's summary.  Exit
# status: ferry's (0 restored, 1 some files failed, 2 usage, 3 aborted),
# or 2 for a bad TIME or a TARGET_DIR that is not empty.
set -u

usage() {
	echo "usage: $0 s3://BUCKET[/PREFIX] TIME TARGET_DIR [ferry options...]" >&2
	echo "       $0 s3://BUCKET[/PREFIX] list" >&2
	exit 2
}
[ $# -ge 2 ] || usage
src=$1
at=$2
shift 2

if [ -z "${FERRY:-}" ]; then
	for f in "$(command -v ferry)" /usr/local/bin/ferry "$HOME/.local/bin/ferry"; do
		if [ -n "$f" ] && [ -x "$f" ]; then
			FERRY=$f
			break
		fi
	done
fi
if [ -z "${FERRY:-}" ]; then
	echo "restore: ferry not found; set FERRY=/path/to/ferry" >&2
	exit 2
fi

if [ "$at" = list ]; then
	exec "$FERRY" ls --versions "$src"
fi
[ $# -ge 1 ] || usage
dst=$1
shift
if ! printf '%s' "$at" | grep -Eq '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$'; then
	echo "restore: TIME must be UTC, as 2026-11-01T02:30:00Z (got '$at')" >&2
	exit 2
fi
if [ -e "$dst" ] && [ -n "$(ls -A "$dst" 2>/dev/null)" ]; then
	echo "restore: $dst is not empty: restore into a new folder" >&2
	exit 2
fi

events=$(mktemp "${TMPDIR:-/tmp}/restore-at.XXXXXX") || exit 2
trap 'rm -f "$events"' EXIT
"$FERRY" sync --json --at "$at" "$@" "$src" "$dst" >"$events"
status=$?
summary=$(grep '"type":"summary"' "$events" | tail -n 1)
files=$(printf '%s' "$summary" | sed -n 's/.*"downloaded":\([0-9]*\).*/\1/p')
failed=$(printf '%s' "$summary" | sed -n 's/.*"failed":\([0-9]*\).*/\1/p')
echo "restore: $src as at $at into $dst: ${files:-0} files, ${failed:-0} failed, exit $status"
[ "$status" -eq 0 ] || grep '"type":"error"' "$events" | head -n 20 >&2
exit "$status"
