#!/usr/bin/env bash
# Every command of the EXAMPLES sections of the man pages runs, in order,
# against the gateway: its buckets get this run's names, its endpoints the
# gateway's address, its profiles the gateway's keys.  The pages run one
# after another in the order of PAGES, each building on what the ones
# before it left (a plan to apply, a restore to verify).
. "$(dirname "$0")/lib.sh"

PAGES=(ferry-plan.1 ferry-apply.1 ferry-sync.1 ferry-verify.1 ferry-ls.1
	ferry-manifest.1)
X=ex$$
S=$WORK/sandbox
mkdir -p "$S/photos/2024" "$S/data"
printf 'a photo' >"$S/photos/2024/a.jpg"
printf 'another' >"$S/photos/b.jpg"
printf 'data' >"$S/data/d.bin"
printf 'scratch' >"$S/data/x.tmp"
for b in archive archive-copy archive-dr backup; do
	mkbucket "$X-$b"
done
cat >"$WORK/credentials" <<CRED
[minio]
aws_access_key_id = $AWS_ACCESS_KEY_ID
aws_secret_access_key = $AWS_SECRET_ACCESS_KEY
[aws]
aws_access_key_id = $AWS_ACCESS_KEY_ID
aws_secret_access_key = $AWS_SECRET_ACCESS_KEY
[dr]
aws_access_key_id = $AWS_ACCESS_KEY_ID
aws_secret_access_key = $AWS_SECRET_ACCESS_KEY
CRED

# examples PAGE: its examples, one per line: ".Dl $ cmd" lines and the
# "$ cmd" lines of literal blocks, with their "\e" continuations joined.
examples() {
	sed -n '/^\.Sh EXAMPLES/,/^\.Sh /p' "$1" | awk '
		function emit() { if (cmd != "") print cmd; cmd = "" }
		/^\.Dl \$ / { emit(); sub(/^\.Dl \$ /, ""); print; next }
		/^\$ / { emit(); cmd = substr($0, 3); cont = 0 }
		/^    / && cont { cmd = cmd " " substr($0, 5) }
		{ cont = 0 }
		cmd != "" && /\\e$/ { sub(/ *\\e$/, "", cmd); cont = 1; next }
		cmd != "" && /\|$/ { cont = 1; next }
		!/^\$ / && !/^    / { emit() }
		END { emit() }'
}

# every page of a command with examples is in PAGES (ferry-manifest(5)'s
# read an LMDB file by its name, which differs on each machine)
with=$(cd "$TOP/man" && grep -l '^\.Sh EXAMPLES' -- *.1 | sort)
is "$(printf '%s\n' "${PAGES[@]}" | sort | comm -13 - <(printf '%s\n' "$with") | tr '\n' ' ')" \
	"" "every section 1 page with EXAMPLES is run"
cmds=()
for p in "${PAGES[@]}"; do
	mapfile -t more < <(examples "$TOP/man/$p")
	check "$p has examples (${#more[@]})" test "${#more[@]}" -ge 1
	cmds+=("${more[@]}")
done
check "the EXAMPLES sections have commands (${#cmds[@]})" test "${#cmds[@]}" -ge 18
for c in "${cmds[@]}"; do
	# something for the plan to plan
	case $c in "ferry plan"*) [ -e "$S/photos/new.jpg" ] ||
		printf 'new' >"$S/photos/new.jpg" ;;
	esac
	run=${c//s3:\/\/archive/s3://$X-archive}
	run=${run//s3:\/\/backup/s3://$X-backup}
	run=$(printf '%s' "$run" | sed -E \
		"s#https://[a-z0-9.-]+(:[0-9]+)?#$FERRY_TEST_ENDPOINT#g")
	run=${run//ferry /\"\$FERRY\" }
	out=$(cd "$S" && env -u AWS_PROFILE \
		AWS_SHARED_CREDENTIALS_FILE="$WORK/credentials" \
		bash -o pipefail -c "$run" 2>&1)
	is "$?" 0 "example runs: $c"
	[ -n "$out" ] && printf '%s\n' "$out" | head -n 3 | sed 's/^/# /'
done
check "the backup example kept its JSON summary" \
	grep -q '"type":"summary"' "$S/last-backup.json"
check "the restore example restored the photos" \
	cmp -s "$S/restore/2024/a.jpg" "$S/photos/2024/a.jpg"

done_testing
