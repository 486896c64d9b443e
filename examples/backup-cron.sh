#!/usr/bin/env bash
# backup-cron.sh: a nightly backup of one folder to a bucket with ferry,
# for cron.  One run at a time (flock), the JSON summary of each run
# appended to a log, the events of the last run kept beside it, and an
# exit status that cron can act on.
#
#   usage: backup-cron.sh SOURCE_DIR s3://BUCKET[/PREFIX] [ferry options...]
#
# A crontab line (crontab -e) for 02:30 every night; cron mails what the
# script prints, which is nothing unless the backup needs a look:
#
#   30 2 * * * /usr/local/bin/backup-cron.sh /srv/photos s3://archive/photos --delete
#
# Credentials and the endpoint come from the environment or the AWS files,
# as for the aws command (see ferry(1), ENVIRONMENT).  cron starts with
# almost no environment: put them in ~/.aws/credentials and ~/.aws/config,
# or in a file named by FERRY_ENV_FILE (mode 0600) holding lines such as
#
#   AWS_ACCESS_KEY_ID=...
#   AWS_SECRET_ACCESS_KEY=...
#   AWS_ENDPOINT_URL=https://s3.example.net
#
# cron's PATH is short (/usr/bin:/bin): without FERRY, the script looks
# for ferry on PATH, then in /usr/local/bin (where "make install" puts it)
# and ~/.local/bin.
#
# Settings, all optional:
#   FERRY           the ferry binary (default: found as said above)
#   FERRY_ENV_FILE  a file of VAR=value lines to export first
#   BACKUP_LOG_DIR  where the log, each pair's last run's events and locks
#                   go (default: ${XDG_STATE_HOME:-~/.local/state}/ferry-backup)
#   BACKUP_METRICS_DIR
#                   node_exporter's textfile folder (its
#                   --collector.textfile.directory), where ferry writes
#                   the numbers of each run, success or not, for
#                   Prometheus: ferry-backup-CKSUM.prom, one file per pair
#                   (default: /var/lib/prometheus/node-exporter, Debian's,
#                   used when it is there; when set, it must be writable,
#                   or the backup exits 1 after doing its work).  Alert on
#                   ferry_run_success == 0 and on
#                   time() - ferry_run_end_timestamp_seconds > 36 * 3600:
#                   a backup that never started writes nothing.
#
# Each (source, destination) pair has its own lock and its own file of
# last-run events, named by a checksum of the pair
# (last-run.CKSUM.jsonl), so that backups of other folders run beside it;
# the log, backup.log, names the pair on each line.
#
# Exit status: ferry's (0 in step, 1 some objects failed, 2 usage or
# configuration error, 3 aborted, for instance deletes refused by the
# delete guard, 4 another ferry run of the pair, not started by this
# script, holds its manifest), 2 when ferry cannot be found, or 75 when
# the previous backup of the same pair still holds its lock.
set -u

if [ $# -lt 2 ]; then
	echo "usage: $0 SOURCE_DIR s3://BUCKET[/PREFIX] [ferry options...]" >&2
	exit 2
fi
src=$1
dst=$2
shift 2

state_home=${XDG_STATE_HOME:-$HOME/.local/state}
log_dir=${BACKUP_LOG_DIR:-$state_home/ferry-backup}
log=$log_dir/backup.log
# One lock and one events file per pair: a checksum of the two names.
pair=$(printf '%s\n%s\n' "$src" "$dst" | cksum | cut -d' ' -f1)
events=$log_dir/last-run.$pair.jsonl

umask 077
mkdir -p "$log_dir" || exit 2

# A log line: UTC time, then the words given.
say() {
	printf '%s %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$*" >>"$log"
}

if [ -n "${FERRY_ENV_FILE:-}" ]; then
	if [ ! -r "$FERRY_ENV_FILE" ]; then
		say "cannot read FERRY_ENV_FILE $FERRY_ENV_FILE"
		echo "backup: cannot read $FERRY_ENV_FILE" >&2
		exit 2
	fi
	set -a
	# shellcheck disable=SC1090
	. "$FERRY_ENV_FILE"
	set +a
fi

# ferry itself: cron's PATH lacks /usr/local/bin.
if [ -z "${FERRY:-}" ]; then
	for f in "$(command -v ferry)" /usr/local/bin/ferry "$HOME/.local/bin/ferry"; do
		if [ -n "$f" ] && [ -x "$f" ]; then
			FERRY=$f
			break
		fi
	done
fi
if [ -z "${FERRY:-}" ]; then
	say "ferry not found (PATH=$PATH, /usr/local/bin, ~/.local/bin)"
	echo "backup: ferry not found on PATH ($PATH), in /usr/local/bin or ~/.local/bin; set FERRY=/path/to/ferry" >&2
	exit 2
fi

# One backup of a pair at a time: if last night's is still running, say
# so and stop rather than queue up behind it.  Backups of other pairs
# have other locks and run.  (ferry's own run lock would also refuse a
# second run of the same pair, with exit status 4, but only once its
# manifest is found; this lock also covers the steps before.)
exec 9>>"$log_dir/lock.$pair"
if ! flock -n 9; then
	say "skipped $src -> $dst: the previous backup of this pair is still running"
	echo "backup: skipped, the previous backup of $src to $dst is still running" >&2
	exit 75
fi

# The source must be there: an unmounted disk is an empty folder, which
# ferry's delete guard would refuse anyway; this says why more plainly.
if [ ! -d "$src" ]; then
	say "source $src is not a folder"
	echo "backup: source $src is not a folder" >&2
	exit 2
fi

# The metrics file for node_exporter, when its folder is named or there.
metrics_dir=${BACKUP_METRICS_DIR:-/var/lib/prometheus/node-exporter}
metrics=()
if [ -n "${BACKUP_METRICS_DIR:-}" ] || [ -d "$metrics_dir" ]; then
	metrics=(--metrics-file "$metrics_dir/ferry-backup-$pair.prom")
fi

# --json: one event per line on stdout, the summary last; messages go to
# stderr, which is appended to the log.
"$FERRY" sync --json "${metrics[@]}" "$@" "$src" "$dst" >"$events.new" 2>>"$log"
status=$?
mv -f "$events.new" "$events"

summary=$(grep '"type":"summary"' "$events" | tail -n 1)
errors=$(grep -c '"type":"error"' "$events")
say "exit=$status $src -> $dst ${summary:-(no summary)}"

case $status in
0) ;;
1)
	echo "backup: objects failed: $errors; see $events" >&2
	grep '"type":"error"' "$events" | head -n 20 >&2
	;;
2)
	echo "backup: usage or configuration error; see $log" >&2
	;;
3)
	echo "backup: aborted; see $log" >&2
	grep '"type":"error"' "$events" | head -n 20 >&2
	;;
4)
	echo "backup: another ferry run of $src to $dst holds its manifest; nothing was done; try again later" >&2
	;;
*)
	echo "backup: ferry exited $status; see $log" >&2
	;;
esac
exit "$status"
