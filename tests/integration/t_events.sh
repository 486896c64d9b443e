#!/usr/bin/env bash
# The --json event stream: every line of sync (push, pull, mirror, dry
# runs), apply, ls, ls s3:// and manifest info is valid against
# man/ferry-events.schema.json; a run's first line says the stream's
# version; keys are object keys, with the local file's path beside them;
# error kinds are exact words (usage, busy, credentials, cancelled,
# changed); a busy manifest exits 4; a clean interrupt leaves the
# manifest "interrupted".
. "$(dirname "$0")/lib.sh"

B=events-$$
mkbucket "$B"
T=$WORK/tree
mkdir -p "$T/d"
echo one >"$T/a.txt"
echo two >"$T/d/b.txt"
ln -s a.txt "$T/lnk"

# valid NAME: every line of $WORK/NAME.json is valid against the schema.
valid() {
	check "$1: every line is valid against the schema" \
		json_valid "$WORK/$1.json"
}

# run NAME WANT WHAT ARGS...: ferry ARGS --json (run by the command
# words in $WRAP, if any), its output in $WORK/NAME.json and .err; checks
# that it exits WANT, and valid NAME.
WRAP=
run() {
	local name=$1 want=$2 what=$3
	shift 3
	$WRAP "$FERRY" "$@" --json >"$WORK/$name.json" 2>"$WORK/$name.err"
	is "$?" "$want" "$what exits $want"
	valid "$name"
}

# 1. push: the start line, then uploads and left_out with key and path
run push 0 "a push" sync "$T" "s3://$B/p"
is "$(head -n 1 "$WORK/push.json" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(d["type"], d["version"], d["command"], d["source"] == sys.argv[1],
      d["destination"], d["dry_run"])' "$T")" \
	"start 1 sync True s3://$B/p False" \
	"... its first line is the start, version 1, naming the run"
is "$(pick "$WORK/push.json" \
	'd["key"] + "=" + d["path"] for d in L if d["type"] == "upload"')" \
	"p/a.txt=a.txt p/d/b.txt=d/b.txt" \
	"... uploads carry the object key in key, the file in path"
is "$(pick "$WORK/push.json" \
	'd["key"] + "=" + d["path"] for d in L if d["type"] == "left_out"')" \
	"p/lnk=lnk" "... and so does a left_out symlink"
is "$(pick "$WORK/push.json" \
	'type(d[k]).__name__ for d in L if d["type"] == "summary"
	 for k in ("uploaded", "left_out", "bytes_sent", "exit_status")')" \
	"int int int int" "... the summary's counts are numbers"

# 2. a sharded push: the shard in the start line
run shard 0 "a sharded push" sync "$T" "s3://$B/s" --shard 0/2
is "$(pick "$WORK/shard.json" 'd["shard"] for d in L if d["type"] == "start"')" \
	"0/2" "a sharded run's start line names its shard"

# 3. pull, then a pull's deletes: dry run and real, keys and paths
O=$WORK/out
run pull 0 "a pull" sync "s3://$B/p" "$O"
is "$(pick "$WORK/pull.json" \
	'd["key"] + "=" + d["path"] for d in L if d["type"] == "download"')" \
	"p/a.txt=a.txt p/d/b.txt=d/b.txt" "... downloads carry key and path"
echo x >"$O/extra1"
echo y >"$O/d/extra2"
run dry 0 "a dry-run pull with deletes" sync "s3://$B/p" "$O" --delete \
	--force -n
is "$(pick "$WORK/dry.json" \
	'd["action"] + ":" + d["key"] + "=" + d["path"] for d in L
	 if d["type"] == "plan"')" \
	"delete:p/d/extra2=d/extra2 delete:p/extra1=extra1" \
	"... its planned deletes name the object key and the local path"
is "$(pick "$WORK/dry.json" \
	'type(d["destination"]["mtime_ns"]).__name__ for d in L
	 if d["type"] == "plan"')" "str str" \
	"... with mtime_ns a string, as the schema says (64 bits)"
run del 0 "a pull with deletes" sync "s3://$B/p" "$O" --delete --force
is "$(pick "$WORK/del.json" \
	'd["key"] + "=" + d["path"] + ":" + str(d["size"]) for d in L
	 if d["type"] == "delete"')" \
	"p/d/extra2=d/extra2:2 p/extra1=extra1:2" \
	"... its deletes name the object key and the local path"
check "... and the files are gone" test ! -e "$O/extra1" -a ! -e "$O/d/extra2"

# 4. mirror: copies name keys, no path
run mirror 0 "a mirror" sync "s3://$B/p" "s3://$B/m"
is "$(pick "$WORK/mirror.json" \
	'd["key"] + ":" + str("path" in d) for d in L if d["type"] == "copy"')" \
	"m/a.txt:False m/d/b.txt:False" "... copies carry keys and no path"

# 4b. a request that the server refuses once (503): a retry line
start_proxy retry --always --kinds 503 --max-faults 1 --only-methods PUT
run retry 0 "a push whose first PUT gets a 503" sync "$T" "s3://$B/r" \
	--endpoint-url "$PROXY"
stop_proxy
is "$(pick "$WORK/retry.json" \
	'"%s %s %r/%r" % (d["method"], d["bucket"] == sys.argv[3], d["attempt"],
	 d["of"]) for d in L if d["type"] == "retry"' "$B")" "PUT True 2/10" \
	"... a retry line names the request and the attempt"

# 4c. a condition the server refuses (Swift's 400 MalformedXML for the
# ETags of DeleteObjects): one fallback line
s3 put "$B" f/extra "$T/a.txt"
start_proxy swift --rate 0 --swift delete-etags
run fallback 0 "a push whose DeleteObjects ETags are refused" sync "$T" \
	"s3://$B/f" --endpoint-url "$PROXY" --delete --force
stop_proxy
is "$(pick "$WORK/fallback.json" \
	'd["condition"] + ":" + d["reason"] for d in L
	 if d["type"] == "fallback"')" "delete-etags:400 MalformedXML" \
	"... a fallback line names the condition and the server's answer"

# 5. plan and apply: apply's stream starts with its own start line; a
# local file changed since the plan is an error of kind "changed" with
# key and path
echo z >"$O/extra3"
"$FERRY" plan "s3://$B/p" "$O" --delete --force >"$WORK/plan.jsonl"
is "$(grep -c '"path"' "$WORK/plan.jsonl")" 0 \
	"a plan file keeps its format: no path member"
echo changed >"$O/extra3"
touch -d '2001-01-01' "$O/extra3"
run apply 1 "apply with a file changed since the plan" apply \
	"$WORK/plan.jsonl"
is "$(pick "$WORK/apply.json" 'd["command"] for d in L if d["type"] == "start"')" \
	"apply" "... its first line is the start of an apply"
is "$(pick "$WORK/apply.json" \
	'd["error"] + ":" + d["key"] + "=" + d["path"] for d in L
	 if d["type"] == "error"')" "changed:p/extra3=extra3" \
	"... the refusal is kind changed, with key and path"

# 6. an error of the run: a bucket that does not exist
run nob 3 "a push to a missing bucket" sync "$T" "s3://no-such-bucket-$$/p"
is "$(pick "$WORK/nob.json" 'd["error"] for d in L if d["type"] == "error"')" \
	"s3" "... an error of kind s3"

# 7. usage errors, with --json anywhere on the line: one error line
run use1 2 "an unknown option" sync --no-such-option "$T" "s3://$B/p"
is "$(pick "$WORK/use1.json" 'd["type"] + ":" + d["error"] for d in L')" \
	"error:usage" "... with one JSON line, kind usage"
check "... and the message on stderr still" grep -q "Try 'ferry --help'" \
	"$WORK/use1.err"
"$FERRY" --json sync "$T" >"$WORK/use2.json" 2>/dev/null
is "$?" 2 "a missing operand exits 2"
valid use2
is "$(pick "$WORK/use2.json" 'd["error"] for d in L')" "usage" \
	"... told in JSON, --json before the command"
run use3 2 "a sync of two local folders" sync "$T" "$O"
run use4 2 "apply of a missing plan" apply "$WORK/no-such-plan"
is "$(pick "$WORK/use4.json" 'd["error"] for d in L')" "usage" \
	"... told in JSON, kind usage"

# 8. ls and ls s3://
run ls 0 "ls" ls "s3://$B/p"
is "$(pick "$WORK/ls.json" 'd["type"] + ":" + d["key"] for d in L')" \
	"object:p/a.txt object:p/d/b.txt" "ls lines are of type object"
run lsb 0 "ls s3://" ls s3://
check "ls s3:// names the bucket in a line of type bucket" grep -q \
	"^{\"type\":\"bucket\",\"name\":\"$B\"," "$WORK/lsb.json"

# 9. manifest info: type manifest, numbers as numbers
run info 0 "manifest info" manifest info "$T" "s3://$B/p"
is "$(pick "$WORK/info.json" \
	'"%s %r %r %s %s" % (d["type"], d["schema"], d["last_status"],
	 d["state"], type(d["local_entries"]).__name__) for d in L')" \
	"manifest 1 0 done int" "... type manifest, schema and last_status numbers"

# 10. no credentials: kind credentials, exit 3
WRAP="env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY -u AWS_SESSION_TOKEN
	-u AWS_PROFILE AWS_SHARED_CREDENTIALS_FILE=/dev/null
	AWS_CONFIG_FILE=/dev/null AWS_EC2_METADATA_DISABLED=true" \
	run creds 3 "a push with no credentials" sync "$T" "s3://$B/p"
is "$(pick "$WORK/creds.json" 'd["error"] for d in L if d["type"] == "error"')" \
	"credentials" "... an error of kind credentials"

# 11. a busy manifest: another process holds its lock
MD=$(pick "$WORK/info.json" 'd["manifest"] for d in L')
WRAP="flock $MD/lock" run busy 4 \
	"a run whose manifest another process holds" sync "$T" "s3://$B/p"
is "$(pick "$WORK/busy.json" \
	'd["type"] + ":" + str(d.get("error", d.get("exit_status"))) for d in L
	 if d["type"] != "start"')" "error:busy summary:4" \
	"... an error of kind busy, and the summary says 4"
like "$(cat "$WORK/busy.err")" "another ferry run is using the manifest" \
	"... saying so on stderr"
WRAP="flock $MD/lock" run busyinfo 4 \
	"manifest info of a busy manifest" manifest info "$T" "s3://$B/p"

# 12. a clean interrupt: SIGINT while the listing is held; the manifest
# (of the pair through the proxy) then says interrupted, and a rerun,
# whose listing the proxy lets through at once, makes it done
GO=$WORK/go
echo three >"$T/c.txt"
start_proxy int --always --kinds delay --only-methods GET \
	--match 'list-type=2' --hold "$GO"
EP=(--endpoint-url "$PROXY")
"$FERRY" sync "$T" "s3://$B/p" "${EP[@]}" --json >"$WORK/int.json" 2>/dev/null &
pid=$!
held int
kill -INT "$pid"
sleep 0.3
touch "$GO"
wait "$pid"
is "$?" 3 "SIGINT stops the run with exit 3"
valid int
is "$(pick "$WORK/int.json" 'd["error"] for d in L if d["type"] == "error"')" \
	"cancelled" "... an error of kind cancelled"
run info2 0 "manifest info then" manifest info "$T" "s3://$B/p" "${EP[@]}"
is "$(pick "$WORK/info2.json" \
	'"%s %r" % (d["state"], d["last_status"]) for d in L')" \
	"interrupted 3" "manifest info then says interrupted, last status 3"
"$FERRY" sync "$T" "s3://$B/p" "${EP[@]}" --quiet
is "$?" 0 "a rerun completes"
"$FERRY" manifest info "$T" "s3://$B/p" "${EP[@]}" --json >"$WORK/info3.json"
is "$(pick "$WORK/info3.json" 'd["state"] for d in L')" "done" \
	"... and the manifest says done"
stop_proxy

done_testing
