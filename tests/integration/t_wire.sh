#!/usr/bin/env bash
# Nothing from outside reaches the wire raw: keys with a line break from
# any source, and a plan's ETag with one under --no-sign-request, are
# refused before a request is sent, naming where they came from and
# never quoting them.  And nothing from a server is cut and believed: a
# header value too long for its field is refused, naming it.
. "$(dirname "$0")/lib.sh"

B=wire-$$
T=$WORK/tree
mkbucket "$B"
mkdir -p "$T"
printf 'one\n' >"$T/a"
printf 'two\n' >"$T/b"
SK=$AWS_SECRET_ACCESS_KEY
: >"$WORK/empty"

# bare CMD...: CMD without keys in the environment, the config and
# credentials files being $CONF and $CRED (default: empty files), and
# the metadata service off.
bare() {
	env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY -u AWS_SESSION_TOKEN \
		-u AWS_PROFILE AWS_EC2_METADATA_DISABLED=true \
		AWS_CONFIG_FILE="${CONF:-$WORK/empty}" \
		AWS_SHARED_CREDENTIALS_FILE="${CRED:-$WORK/empty}" "$@"
}

# run CMD...: $out gets stdout and stderr, $rc the status.
run() {
	"$@" >"$WORK/out" 2>&1
	rc=$?
	out=$(cat "$WORK/out")
}

# refused WHAT WHERE: the last run failed before any request, saying
# WHERE, never showing the secret or the injected header.
refused() {
	is "$rc" "$2" "$1: exit $2"
	like "$out" "$3" "... naming the source"
	is "$(requests "$m" total)" 0 "... and no request reaches the gateway"
	if printf '%s' "$out" | grep -qF -e "$SK" -e "X-Injected"; then
		not_ok "... the value shows"
	else
		ok "... never showing the value"
	fi
}

# --- a credential_process printing a key id with CR LF ------------------
cat >"$WORK/inject.sh" <<EOF
#!/bin/sh
printf '%s' '{"Version": 1, "AccessKeyId": "AKID\\r\\nX-Injected: yes", "SecretAccessKey": "$SK"}'
EOF
printf '[profile inject]\ncredential_process = sh %s\n' \
	"$WORK/inject.sh" >"$WORK/config"
m=$(mark)
CONF=$WORK/config run bare "$FERRY" sync "$T" "s3://$B/p" --profile inject
refused "a credential_process key id with CR LF" 3 \
	"credential_process of profile 'inject'.*access key id"

# the same from the environment and from the shared credentials file
m=$(mark)
run bare env AWS_ACCESS_KEY_ID="$(printf 'AKID\r\nX-Injected: yes')" \
	AWS_SECRET_ACCESS_KEY="$SK" "$FERRY" sync "$T" "s3://$B/p"
refused "a key id with CR LF in the environment" 2 \
	"environment's AWS_ACCESS_KEY_ID.*access key id"
printf '[default]\naws_access_key_id = AK ID\naws_secret_access_key = %s\n' \
	"$SK" >"$WORK/cred"
m=$(mark)
CRED=$WORK/cred run bare "$FERRY" sync "$T" "s3://$B/p"
refused "a key id with a blank in the credentials file" 2 \
	"profile 'default' in .*cred: the access key id"
printf '[default]\naws_access_key_id = %s\naws_secret_access_key = %s\naws_session_token = t\001x\n' \
	"$AWS_ACCESS_KEY_ID" "$SK" >"$WORK/cred"
m=$(mark)
CRED=$WORK/cred run bare "$FERRY" sync "$T" "s3://$B/p"
refused "a session token with a control byte" 2 "the session token"

# --- a plan's ETag with CR LF, applied unsigned ---------------------------
P=wirepub-$$
mkbucket "$P"
awscli s3api put-bucket-acl --bucket "$P" --acl public-read
"$FERRY" sync "$T" "s3://$P/x" --acl public-read -q
is "$?" 0 "a public bucket to pull from"
if ! skip_on swift "s3api serves no unsigned request (412 for any)" 8; then
	bare "$FERRY" plan "s3://$P/x" "$WORK/pull" --no-sign-request \
		>"$WORK/plan.jsonl"
	is "$?" 0 "a plan of an unsigned pull"
	python3 - "$WORK/plan.jsonl" "$WORK/bad.jsonl" <<-'EOF'
	import json, sys
	out = []
	for line in open(sys.argv[1]):
	    d = json.loads(line)
	    if d.get("type") == "plan" and d.get("action") == "download":
	        d["source"]["etag"] += "\r\nX-Injected: yes"
	    out.append(json.dumps(d))
	open(sys.argv[2], "w").write("\n".join(out) + "\n")
	EOF
	is "$(grep -c 'X-Injected' "$WORK/bad.jsonl")" 2 "... edited: an ETag with CR LF"
	m=$(mark)
	run bare "$FERRY" apply "$WORK/bad.jsonl" --no-sign-request
	isnt_zero=$([ "$rc" -ne 0 ] && echo yes)
	is "$isnt_zero" yes "apply refuses the plan (exit $rc)"
	like "$out" '"etag" holds a control byte' "... naming the ETag"
	is "$(requests "$m" total)" 0 "... and sends nothing"
	check "... and writes no file" test ! -e "$WORK/pull/a"
	run bare "$FERRY" apply "$WORK/plan.jsonl" --no-sign-request
	is "$rc" 0 "the plan as written applies"
	check "... giving the files" diff -r "$T" "$WORK/pull"
fi

# --- reply header values too long for their fields ------------------------
M=wiremeta-$$
mkbucket "$M"
printf 'payload\n' >"$WORK/f"
s3 put "$M" m/long-mode "$WORK/f" "x-amz-meta-mode:0000000000000104755"
s3 put "$M" m/ok-mode "$WORK/f" "x-amz-meta-mode:100640"
run "$FERRY" sync "s3://$M/m" "$WORK/m" --preserve
is "$rc" 0 "a pull with --preserve of a mode of 19 digits exits 0"
like "$out" "long-mode: x-amz-meta-mode is not what ferry or rclone writes" \
	"... warning that the mode is left out, naming it"
mode=$(stat -c %a "$WORK/m/long-mode")
check "... not mode 010, as the cut value read (mode $mode)" \
	[ "$mode" != 10 ]
is "$(stat -c %a "$WORK/m/ok-mode")" 640 "... a mode that fits is given"
s3 put "$M" t/long-mtime "$WORK/f" \
	"x-amz-meta-ferry-mtime:$(printf '%047d' 1700000000000000000)"
s3 put "$M" t/ok "$WORK/f"
run "$FERRY" sync "s3://$M/t" "$WORK/t"
is "$rc" 1 "a pull of a ferry-mtime of 47 digits fails that object: exit 1"
like "$out" "x-amz-meta-ferry-mtime longer than the 31 bytes" \
	"... naming the header"
check "... and writes no file for it" test ! -e "$WORK/t/long-mtime"
check "... the other object is pulled" test -e "$WORK/t/ok"

# --- a bidi control in a key shows escaped --------------------------------
s3 put "$M" "b/evil$(printf '\342\200\256')txt.exe" "$WORK/f"
is "$("$FERRY" ls "s3://$M/b/" | awk '{print $NF}')" \
	'b/evil\xe2\x80\xaetxt.exe' "ls shows U+202E escaped, not reordering"

# --- out of memory ends the run, never skips quietly ----------------------
# (tests/integration/failalloc.c, through LD_PRELOAD)
cc -shared -fPIC -o "$WORK/failprint.so" "$TOP/tests/integration/failalloc.c" \
	-ldl && cc -shared -fPIC -DFAIL_MALLOC -o "$WORK/failmalloc.so" \
	"$TOP/tests/integration/failalloc.c"
is "$?" 0 "the out-of-memory shims build"
for k in a b c d; do s3 put "$M" "j/$k" "$WORK/f"; done
run env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
	FAILALLOC_PRINT=2 LD_PRELOAD="$WORK/failprint.so" \
	"$FERRY" ls --json "s3://$M/j/"
is "$rc" 3 "ls --json whose second line cannot be made: exit 3"
like "$out" '"error":"no-memory".*ls stops here' "... saying why"
is "$(grep -c '"type":"object"' "$WORK/out")" 1 "... after the one line made"
if ldd "$FERRY" | grep -q libasan; then
	ok "# skip a failing malloc: the sanitizers' malloc stands"
else
	long=$(printf 'z%.0s' $(seq 1000))
	s3 put "$M" "d/$long" "$WORK/f"
	s3 put "$M" d/gone "$WORK/f"
	mkdir -p "$WORK/d"
	printf 'k\n' >"$WORK/d/keep"
	# "d/" and 1,000 bytes: the key read back to be deleted
	run env FAILALLOC_SIZE=1003 LD_PRELOAD="$WORK/failmalloc.so" \
		"$FERRY" sync "$WORK/d" "s3://$M/d" --delete --force
	is "$rc" 3 "out of memory gathering the deletes: exit 3"
	like "$out" "out of memory while reading the keys to delete" \
		"... saying so"
	is "$(s3 ls "$M" d/ | wc -l)" 3 "... and deleting nothing"
fi

# --- a pre-1970 atime written by push is read back by its pull ------------
mkdir -p "$WORK/old"
printf 'old\n' >"$WORK/old/f"
touch -a -d '1960-02-03 04:05:06.5 UTC' "$WORK/old/f"
"$FERRY" sync "$WORK/old" "s3://$M/old" -q
is "$?" 0 "a push of a file last read in 1960"
is "$(s3 head "$M" old/f | python3 -c \
	'import json,sys; print(json.load(sys.stdin).get("x-amz-meta-atime"))')" \
	1960-02-03T04:05:06.500000000Z "... stores its atime"
run "$FERRY" sync "s3://$M/old" "$WORK/old2" --preserve
is "$rc" 0 "its pull with --preserve exits 0"
n=$(printf "%s" "$out" | grep -c x-amz-meta-atime)
is "$n" 0 "... with no warning about the atime"
is "$(stat -c %X "$WORK/old2/f")" "$(stat -c %X "$WORK/old/f")" \
	"... giving the file its 1960 atime"

done_testing
