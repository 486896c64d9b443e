#!/usr/bin/env bash
# Examples and manuals: the scripts in examples/ parse (bash -n) and
# pass the shellcheck linter, the systemd units verify, the Kubernetes
# Job is valid YAML, the man pages lint clean and render, one for each
# command, the pages, "ferry --help" and the bash, zsh and fish
# completions name the same options; then the backups run as cron and
# systemd would start them, against the test gateway.  A check whose tool
# this machine lacks fails: tests/deps.sh installs them all.
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"

EX=$TOP/examples
MAN=$TOP/man

# missing DESCRIPTION TOOL: the check cannot run, so it fails.
missing() {
	not_ok "$1"
	echo "# $2 is not installed: tests/deps.sh installs it"
}

# check_quiet DESCRIPTION COMMAND...: as check, with the command's output
# shown as TAP comments when it fails.
check_quiet() {
	local d=$1 out
	shift
	if out=$("$@" 2>&1); then
		ok "$d"
	else
		not_ok "$d"
		printf '%s\n' "$out" | head -n 40 | sed 's/^/# /'
	fi
}

have() {
	command -v "$1" >/dev/null 2>&1
}

# 1. every shell script parses, and so does each completion
for f in "$EX"/*.sh "$EX"/ferry.bash-completion; do
	check_quiet "bash -n examples/${f##*/}" bash -n "$f"
done
for sh in zsh fish; do
	if have $sh; then
		check_quiet "$sh -n examples/ferry.$sh-completion" \
			$sh -n "$EX/ferry.$sh-completion"
	else
		missing "$sh -n examples/ferry.$sh-completion" $sh
	fi
done

# 2. shellcheck
for f in "$EX"/*.sh "$EX"/ferry.bash-completion; do
	if have shellcheck; then
		check_quiet "shellcheck examples/${f##*/}" shellcheck "$f"
	else
		missing "shellcheck examples/${f##*/}" shellcheck
	fi
done

# 3. the systemd units, a template: verified as an instance of it
# (ferry-backup@photos).  A copy runs the built ferry when none is
# installed, and MANPATH holds our pages, so that ExecStart= and
# Documentation=man: both resolve.
mkdir -p "$WORK/man/man1" "$WORK/man/man5"
cp "$MAN"/*.1 "$WORK/man/man1/"
cp "$MAN"/*.5 "$WORK/man/man5/"
if have systemd-analyze; then
	units=$WORK/units
	mkdir -p "$units"
	cp "$EX/ferry-backup@.service" "$units/ferry-backup@photos.service"
	cp "$EX/ferry-backup@.timer" "$units/ferry-backup@photos.timer"
	if [ ! -x /usr/local/bin/ferry ]; then
		bin=$(cd "$(dirname "$FERRY")" && pwd)/$(basename "$FERRY")
		sed -i "s#^ExecStart=/usr/local/bin/ferry #ExecStart=$bin #" \
			"$units/ferry-backup@photos.service"
	fi
	manopt=
	have man || manopt=--man=no
	# shellcheck disable=SC2086
	check_quiet "systemd-analyze verify examples/ferry-backup@.{service,timer}" \
		env MANPATH="$WORK/man" systemd-analyze verify $manopt \
		"$units/ferry-backup@photos.service" \
		"$units/ferry-backup@photos.timer"
else
	missing "systemd-analyze verify examples/ferry-backup@.{service,timer}" \
		systemd-analyze
fi

# 4. the Kubernetes Indexed Job
if have python3 && python3 -c 'import yaml' 2>/dev/null; then
	# shellcheck disable=SC2016 # $(...) is YAML text here
	check_quiet "examples/k8s-indexed-job.yaml is an Indexed Job of 8 shards with web identity" \
		python3 -c '
import sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
assert [d["kind"] for d in docs] == ["ServiceAccount", "Job"], "kinds"
sa, job = docs
role = sa["metadata"]["annotations"]["eks.amazonaws.com/role-arn"]
assert role.startswith("arn:aws:iam::"), "the service account names a role"
assert job["apiVersion"] == "batch/v1", "a Job"
spec = job["spec"]
assert spec["completionMode"] == "Indexed", "completionMode"
assert spec["completions"] == 8 and spec["parallelism"] == 8, "8 shards"
pod = spec["template"]["spec"]
assert pod["serviceAccountName"] == sa["metadata"]["name"], "the pod uses it"
c = pod["containers"][0]
args = c["args"]
assert args[0] == "sync", "ferry sync"
assert args[args.index("--shard") + 1] == "$(JOB_COMPLETION_INDEX)/8", "--shard"
env = {e["name"]: e.get("value") for e in c["env"]}
assert env["AWS_ROLE_ARN"] == role, "AWS_ROLE_ARN is the role"
assert "AWS_SHARED_CREDENTIALS_FILE" not in env, "no credentials file"
mounts = {m["name"]: m["mountPath"] for m in c["volumeMounts"]}
tok = env["AWS_WEB_IDENTITY_TOKEN_FILE"]
vol = [v for v in pod["volumes"] if v["name"] == "aws-iam-token"][0]
src = vol["projected"]["sources"][0]["serviceAccountToken"]
assert tok == mounts["aws-iam-token"] + "/" + src["path"], "the token file"
assert src["audience"] == "sts.amazonaws.com", "audience"
assert not any("secret" in v for v in pod["volumes"]), "no secret mounted"
' "$EX/k8s-indexed-job.yaml"
else
	missing "examples/k8s-indexed-job.yaml is an Indexed Job of 8 shards with web identity" \
		"python3 with the yaml module (python3-yaml)"
fi

# 5. the man pages.  "referenced manual not found" depends on what this
# machine has installed (ferry(1) itself, until make install), so it is
# left out, as are mandoc's notes about its own database.  Each renders
# with man(1), and each command of "ferry --help" has its page, which
# ferry.1 names and "ferry help" shows.
for p in "$MAN"/*.1 "$MAN"/*.5; do
	if have mandoc; then
		out=$(mandoc -Tlint "$p" 2>&1 |
			grep -v -e 'referenced manual not found' -e 'mandoc\.db')
		is "$out" "" "mandoc -Tlint man/${p##*/}"
	else
		missing "mandoc -Tlint man/${p##*/}" mandoc
	fi
	if have man; then
		n=$(MANWIDTH=80 man -l "$p" 2>"$WORK/man.err" | grep -c .)
		check "man -l man/${p##*/} renders it ($n lines)" \
			test "$n" -gt 20 -a ! -s "$WORK/man.err"
	else
		missing "man -l man/${p##*/} renders it" "man (man-db)"
	fi
done
commands=$("$FERRY" --help | sed -n 's/^\(usage:\)\{0,1\} *ferry \([a-z][a-z]*\).*/\2/p' |
	grep -vx help | sort -u)
check "ferry --help names the commands" test "$(printf '%s\n' "$commands" | grep -c .)" -ge 6
for cmd in $commands; do
	check "man/ferry-$cmd.1 is the page of ferry $cmd" \
		grep -q "^\.Nm ferry-$cmd\$" "$MAN/ferry-$cmd.1"
	# shellcheck disable=SC2016 # expanded by the inner bash
	check "... ferry.1 names it in its SEE ALSO" bash -c \
		'sed -n "/^\.Sh SEE ALSO/,/^\.Sh /p" "$1" | grep -q "^\.Xr ferry-$2 1"' \
		_ "$MAN/ferry.1" "$cmd"
	if have man; then
		out=$(MANPATH="$WORK/man" MANWIDTH=80 "$FERRY" help "$cmd" 2>&1)
		like "$?:$(printf '%s\n' "$out" | head -n 1)" "^0:FERRY-${cmd^^}\(1\)" \
			"... ferry help $cmd shows it"
	else
		missing "... ferry help $cmd shows it" "man (man-db)"
	fi
	like "$("$FERRY" "$cmd" --help | tail -n 1)" "man ferry-$cmd" \
		"... ferry $cmd --help points to it"
done
out=$("$FERRY" help bogus 2>&1)
is "$?:$(printf '%s\n' "$out" | head -n 1)" "2:ferry: unknown command 'bogus'" \
	"ferry help of an unknown command: exit 2"

# 6. the options named in ferry.1 are those of "ferry --help"
#
# From the mdoc source: the arguments of each Fl macro ("Fl -delete" is
# --delete, "Fl cnqv" is -c -n -q -v), and any --option written out in
# text or examples.  Comment lines are left out.
man_options() {
	awk '
	/^\.\\"/ { next }
	{
		line = $0
		while (match(line, /--[a-z][a-z0-9-]*[a-z0-9]/)) {
			print substr(line, RSTART, RLENGTH)
			line = substr(line, RSTART + RLENGTH)
		}
	}
	/^\./ {
		fl = 0
		for (i = 1; i <= NF; i++) {
			t = $i
			if (i == 1)
				sub(/^\./, "", t)
			if (t ~ /^[A-Z][a-z]$/) {
				fl = (t == "Fl")
				continue
			}
			if (!fl || t !~ /^-?[a-zA-Z]/)
				continue
			if (t ~ /^-/) {
				print "-" t
				continue
			}
			for (j = 1; j <= length(t); j++)
				print "-" substr(t, j, 1)
		}
	}' "$1" | sort -u
}

# From the --help text: --options and -x short ones; a family written as
# "--source-*" names no option by itself.
help_options() {
	sed 's/--[a-z0-9-]*-\*//g' |
		grep -oE -e '--[a-z][a-z0-9-]*[a-z0-9]' -e '(^|[[:space:],])-[a-zA-Z]\b' |
		sed 's/^[[:space:],]*//' | sort -u
}

man_opts=$(for p in "$MAN"/*.1; do man_options "$p"; done | sort -u)
if [ -x "$FERRY" ]; then
	help_opts=$("$FERRY" --help 2>&1 | help_options)
	only_man=$(comm -23 <(printf '%s\n' "$man_opts") <(printf '%s\n' "$help_opts") | tr '\n' ' ')
	only_help=$(comm -13 <(printf '%s\n' "$man_opts") <(printf '%s\n' "$help_opts") | tr '\n' ' ')
	check "the pages name over 20 options" \
		test "$(printf '%s\n' "$man_opts" | grep -c .)" -gt 20
	is "$only_man" "" "every option of the pages is in ferry --help"
	is "$only_help" "" "every option of ferry --help is in a page"
else
	not_ok "ferry --help: $FERRY is not built"
fi

# 7. the completions.  They are written by examples/gen-completions.py
# from "ferry COMMAND --help": written again, they are the same files.
# Each shell offers, for "ferry COMMAND -", the options of that command's
# --help, and over all commands every option of the pages.
if [ -x "$FERRY" ]; then
	mkdir -p "$WORK/gen"
	check_quiet "examples/gen-completions.py runs" python3 \
		"$EX/gen-completions.py" "$FERRY" "$WORK/gen"
	for f in ferry.bash-completion ferry.zsh-completion ferry.fish-completion; do
		check_quiet "examples/$f is as gen-completions.py writes it" \
			diff -u "$EX/$f" "$WORK/gen/$f"
	done
fi
# shellcheck disable=SC2016 # expanded by the inner bash
check_quiet "the completion registers itself" bash -c '
	. "$1" && complete -p ferry | grep -q -- "-F _ferry ferry$"' _ \
	"$EX/ferry.bash-completion"
# completions COMMAND-LINE-WORDS...: what _ferry offers for the last word.
completions() {
	bash -c '
		. "$1"
		shift
		COMP_WORDS=("$@")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		_ferry
		printf "%s\n" "${COMPREPLY[@]}"' _ "$EX/ferry.bash-completion" "$@"
}
# zsh_completions LINE, fish_completions LINE: what zsh or fish offers
# at the end of LINE.
zsh_completions() {
	timeout 60 zsh -f "$TOP/tests/integration/zcomplete.zsh" \
		"$EX/ferry.zsh-completion" "$1" | sort -u
}
fish_completions() {
	# shellcheck disable=SC2016 # fish's variables
	fish -c 'source $argv[1]; complete -C $argv[2]' \
		"$EX/ferry.fish-completion" "$1" | cut -f1 | sort -u
}
is "$(completions ferry sy)" "sync" "the completion completes commands"
mkdir -p "$WORK/cwd/photos"
is "$(cd "$WORK/cwd" && completions ferry sync --dry-run ph)" "photos" \
	"the completion completes local folders"
is "$(completions ferry help ver)" "verify" \
	"the completion completes help's command"
is "$(completions ferry manifest "")" "info" \
	"the completion completes manifest's info"
for sh in zsh fish; do
	if ! have $sh; then
		missing "the $sh completion" $sh
		continue
	fi
	is "$(${sh}_completions 'ferry sy' | grep .)" "sync" \
		"the $sh completion completes commands"
	like "$(cd "$WORK/cwd" && ${sh}_completions 'ferry sync --dry-run ph')" \
		"photos" "the $sh completion completes local folders"
	is "$(${sh}_completions 'ferry sync --storage-class DEEP' | grep .)" \
		"DEEP_ARCHIVE" "the $sh completion completes an option's values"
	is "$(${sh}_completions 'ferry manifest ' | grep .)" "info" \
		"the $sh completion completes manifest's info"
done
all_comp=
for cmd in $commands; do
	want=$("$FERRY" "$cmd" --help | help_options)
	for sh in bash zsh fish; do
		case $sh in
		bash) got=$(completions ferry "$cmd" - | sort -u) ;;
		*) have $sh || continue
			got=$(${sh}_completions "ferry $cmd -" | grep -E '^-') ;;
		esac
		all_comp=$(printf '%s\n%s\n' "$all_comp" "$got" | grep . | sort -u)
		extra=$(comm -13 <(printf '%s\n' "$want") <(printf '%s\n' "$got") | tr '\n' ' ')
		is "$extra" "" "$sh: ferry $cmd - completes only options of ferry $cmd --help"
		check "... over 5 of them" test "$(printf '%s\n' "$got" | grep -c .)" -gt 5
	done
done
comp_opts=$( (printf '%s\n' "$all_comp"; completions ferry --) | grep -E '^-' | sort -u)
only_man=$(comm -23 <(printf '%s\n' "$man_opts") <(printf '%s\n' "$comp_opts") | tr '\n' ' ')
only_comp=$(comm -13 <(printf '%s\n' "$man_opts") <(printf '%s\n' "$comp_opts") | tr '\n' ' ')
is "$only_man" "" "every option of the pages is completed"
is "$only_comp" "" "every option completed is in a page"

# 8. each command has its own short help, within the whole one
for cmd in sync plan apply verify ls manifest; do
	out=$("$FERRY" "$cmd" --help 2>&1)
	rc=$?
	is "$rc:$(printf '%s\n' "$out" | head -n 1 | cut -d' ' -f1-3)" \
		"0:usage: ferry $cmd" "ferry $cmd --help exits 0 with its usage"
	extra=$(comm -13 <(printf '%s\n' "$help_opts") \
		<(printf '%s\n' "$out" | help_options) | tr '\n' ' ')
	is "$extra" "" "... naming only options of ferry --help"
done
check "ls --help leaves out what only syncs" bash -c \
	'! "$1" ls --help | grep -q -- --delete' _ "$FERRY"
out=$("$FERRY" sync --bogus 2>&1)
is "$?:$(printf '%s\n' "$out" | tail -n 1)" "2:Try 'ferry --help'." \
	"a usage error exits 2 with the hint"

# 9. the backups, started as cron and systemd start them, against the
# gateway.  The keys and the endpoint come from the AWS files, as a user
# would set them up; nothing else of this test's environment reaches them.
B=examples-$$
mkbucket "$B"
for d in photos music; do
	mkdir -p "$WORK/src/$d/sub"
	for i in 1 2 3; do echo "$d $i" >"$WORK/src/$d/sub/f$i.txt"; done
done
# aws_files DIR PROFILE: a config and a credentials file in DIR for the
# gateway, under PROFILE.
aws_files() {
	local sec=$2
	[ "$2" = default ] || sec="profile $2"
	mkdir -p "$1"
	printf '[%s]\nregion = us-east-1\nendpoint_url = %s\ns3 =\n  addressing_style = path\n' \
		"$sec" "$FERRY_TEST_ENDPOINT" >"$1/config"
	printf '[%s]\naws_access_key_id = %s\naws_secret_access_key = %s\n' \
		"$2" "$AWS_ACCESS_KEY_ID" "$AWS_SECRET_ACCESS_KEY" >"$1/credentials"
	chmod 600 "$1/credentials"
}

# cron: "env -i" with cron's PATH, HOME, SHELL and LOGNAME, ferry in
# ~/.local/bin (not on cron's PATH), the keys in ~/.aws.
CH=$WORK/cronhome
mkdir -p "$CH/.local/bin"
cp "$FERRY" "$CH/.local/bin/ferry"
aws_files "$CH/.aws" default
# shellcheck disable=SC2016 # expanded by the inner sh
cron() {
	env -i PATH=/usr/bin:/bin HOME="$CH" SHELL=/bin/sh LOGNAME=root \
		/bin/sh -c '"$0" "$@"' "$EX/backup-cron.sh" "$@"
}
out=$(cron "$WORK/src/photos" "s3://$B/cron/photos" --delete 2>&1)
is "$?:$out" "0:" "backup-cron.sh under cron's environment backs up, silently"
check "... the bucket equals the folder" python3 \
	"$TOP/tests/integration/bucket_equals_tree.py" "$WORK/src/photos" \
	"$B" cron/photos/
LD=$CH/.local/state/ferry-backup
like "$(cat "$LD/backup.log")" "exit=0 $WORK/src/photos -> s3://$B/cron/photos" \
	"... and logs the run, naming the pair"
# BACKUP_METRICS_DIR: the run's numbers for node_exporter, one file a pair.
mkdir -p "$WORK/textfile"
out=$(env -i PATH=/usr/bin:/bin HOME="$CH" SHELL=/bin/sh LOGNAME=root \
	BACKUP_METRICS_DIR="$WORK/textfile" "$EX/backup-cron.sh" \
	"$WORK/src/photos" "s3://$B/cron/photos" 2>&1)
is "$?:$out" "0:" "backup-cron.sh with BACKUP_METRICS_DIR backs up, silently"
like "$(cat "$WORK"/textfile/ferry-backup-*.prom)" \
	'ferry_run_success\{command="sync",source="[^"]*/src/photos",destination="s3://[^"]*/cron/photos"\} 1' \
	"... and writes the run's metrics there, naming the pair"
# A backup of the pair still running: its lock is held.  Another folder's
# backup runs beside it; the same pair's is skipped with exit 75.
pair=$(printf '%s\n%s\n' "$WORK/src/photos" "s3://$B/cron/photos" |
	cksum | cut -d' ' -f1)
exec 8>>"$LD/lock.$pair"
flock -n 8
out=$(cron "$WORK/src/music" "s3://$B/cron/music" 2>&1)
is "$?:$out" "0:" "... another folder's backup runs while one is running"
out=$(cron "$WORK/src/photos" "s3://$B/cron/photos" 2>&1)
is "$?" 75 "... the same pair's second backup is skipped (exit 75)"
like "$out" "previous backup of $WORK/src/photos to s3://$B/cron/photos is still running" \
	"... saying which backup is still running"
exec 8>&-
# Another ferry run of the pair, not started by the script, holds the
# manifest: ferry's exit 4, passed on with a word on what to do.
md=$(env -i PATH=/usr/bin:/bin HOME="$CH" "$CH/.local/bin/ferry" manifest \
	info --json "$WORK/src/photos" "s3://$B/cron/photos" |
	python3 -c 'import json, sys; print(json.load(sys.stdin)["manifest"])')
out=$(flock "$md/lock" env -i PATH=/usr/bin:/bin HOME="$CH" SHELL=/bin/sh \
	LOGNAME=root "$EX/backup-cron.sh" "$WORK/src/photos" \
	"s3://$B/cron/photos" 2>&1)
is "$?" 4 "... the pair's manifest held by another ferry run: exit 4"
like "$out" "holds its manifest; nothing was done; try again later" \
	"... saying so"
if [ ! -x /usr/local/bin/ferry ] && ! [ -x /usr/bin/ferry ]; then
	rm "$CH/.local/bin/ferry"
	out=$(cron "$WORK/src/photos" "s3://$B/cron/photos" 2>&1)
	is "$?" 2 "... without ferry anywhere it looks: exit 2"
	like "$out" "ferry not found.*set FERRY=" "... saying where it looked"
fi

# systemd: the template's ExecStart= as systemd runs it for an instance
# (tests/integration/unit_exec.py), the instance's file and the AWS files
# under a stand-in for /etc.  Two instances, each its own folder.
R=$WORK/root
aws_files "$R/etc/ferry/aws" archive
mkdir -p "$R/var/lib/prometheus/node-exporter"
mkdir -p "$R/etc/ferry/backup"
for d in photos music; do
	printf 'FERRY_SOURCE=%s\nFERRY_DESTINATION=s3://%s/systemd/%s\nFERRY_OPTIONS=--delete --jobs 4\nAWS_PROFILE=archive\n' \
		"$WORK/src/$d" "$B" "$d" >"$R/etc/ferry/backup/$d.conf"
	UNIT_EXEC_BINARY=$FERRY python3 "$TOP/tests/integration/unit_exec.py" \
		"$EX/ferry-backup@.service" "$d" "$R" >"$WORK/unit-$d.json" \
		2>"$WORK/unit-$d.err"
	is "$?" 0 "ferry-backup@$d.service's ExecStart runs the backup"
	is "$(summary "$WORK/unit-$d.json" uploaded)" 3 "... uploading its folder"
	like "$(cat "$R/var/lib/prometheus/node-exporter/ferry-$d.prom")" \
		'ferry_run_objects\{command="sync",[^}]*,kind="uploaded"\} 3' \
		"... and writes its metrics for node_exporter"
	check "... the bucket equals the folder" python3 \
		"$TOP/tests/integration/bucket_equals_tree.py" "$WORK/src/$d" \
		"$B" "systemd/$d/"
done
check "... each manifest in the state folder" test \
	"$(find "$R/var/lib/ferry" -name data.mdb | wc -l)" -eq 2

done_testing
