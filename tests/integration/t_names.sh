#!/usr/bin/env bash
# Names that are not tidy text: a newline, a tab, quotes, invalid UTF-8.
# They go up as their exact bytes, or (invalid UTF-8, which S3 refuses)
# are reported; --json stays one valid JSON object per line, key_base64
# carrying the bytes "key" cannot; a pull writes the same names back.
. "$(dirname "$0")/lib.sh"

B=names-$$
T=$WORK/tree
D=$WORK/back
mkbucket "$B"
mkdir -p "$T/sub"
names=($'new\nline' $'a\ttab' $'bad\xff\xfe' $'sub/latin1-\xe9t\xe9' \
	'quote"back\slash' $'ok-\xc3\xa9t\xc3\xa9' 'plain.txt')
i=0
for n in "${names[@]}"; do
	i=$((i + 1))
	printf 'content %d of %s\n' "$i" "$n" >"$T/$n"
done

# json_lines FILE: every line is valid UTF-8 and one JSON object with a
# type; prints how many lines there are.
json_lines() {
	python3 - "$1" <<'EOF'
import json, sys
n = 0
for raw in open(sys.argv[1], "rb").read().split(b"\n"):
    if not raw:
        continue
    obj = json.loads(raw.decode("utf-8"))  # strict: raises on bad bytes
    assert isinstance(obj, dict) and ("type" in obj or "key" in obj), raw
    n += 1
print(n)
EOF
}

# keys_of FILE TYPE: the exact bytes of the keys of the lines of TYPE, hex,
# sorted; "key" must be valid and key_base64 present only when needed.
keys_of() {
	python3 - "$1" "$2" <<'EOF'
import base64, json, sys
out = []
for raw in open(sys.argv[1], "rb").read().split(b"\n"):
    if not raw:
        continue
    o = json.loads(raw.decode("utf-8"))
    if o["type"] != sys.argv[2] or "key" not in o:
        continue
    if "key_base64" in o:
        k = base64.b64decode(o["key_base64"])
        assert "\ufffd" in o["key"], o
        try:
            k.decode("utf-8")
            sys.exit("key_base64 for a valid key: %r" % k)
        except UnicodeDecodeError:
            pass
    else:
        k = o["key"].encode("utf-8")
    out.append(k.hex())
print(" ".join(sorted(out)))
EOF
}

# want_keys PREFIX: the names of the tree as keys under PREFIX, hex, sorted.
want_keys() {
	python3 - "$T" "$1" <<'EOF'
import os, sys
root, prefix = os.fsencode(sys.argv[1]), sys.argv[2].encode()
out = []
for d, _, files in os.walk(root):
    for f in files:
        rel = os.path.relpath(os.path.join(d, f), root)
        out.append((prefix + rel).hex())
print(" ".join(sorted(out)))
EOF
}

# bucket_keys PREFIX: the keys the gateway lists, URL-decoded, hex, sorted.
bucket_keys() {
	s3 lshex "$B" "$1"
}

# valid_keys PREFIX: want_keys for the names that are valid UTF-8 (S3 keys
# must be: the server refuses the others, Ceph with InvalidObjectName).
valid_keys() {
	python3 -c '
import sys
out = []
for h in sys.argv[1].split():
    try:
        bytes.fromhex(h).decode("utf-8")
        out.append(h)
    except UnicodeDecodeError:
        pass
print(" ".join(out))' "$(want_keys "$1")"
}

# invalid_keys PREFIX: the others.
invalid_keys() {
	comm -23 <(want_keys "$1" | tr ' ' '\n') <(valid_keys "$1" | tr ' ' '\n') |
		tr '\n' ' ' | sed 's/ $//'
}

"$FERRY" sync "$T" "s3://$B/n" --json >"$WORK/push.json" 2>"$WORK/push.err"
is "$?" 1 "a push of awkward names exits 1, two of them refused"
is "$(json_lines "$WORK/push.json")" 9 \
	"--json writes 9 valid JSON lines (the start line first)"
check "... valid against the event schema" json_valid "$WORK/push.json"
is "$(bucket_keys n/)" "$(valid_keys n/)" \
	"the bucket holds the valid UTF-8 names as their exact bytes"
is "$(keys_of "$WORK/push.json" upload)" "$(valid_keys n/)" \
	"the upload lines give back the exact bytes of every key"
is "$(keys_of "$WORK/push.json" error)" "$(invalid_keys n/)" \
	"the error lines name the invalid UTF-8 names by their exact bytes"
is "$(grep -c key_base64 "$WORK/push.json")" 2 \
	"... with key_base64 only for those two"
# (Ceph says InvalidObjectName, Swift InvalidURI)
like "$(grep '"type":"error"' "$WORK/push.json")" \
	"InvalidObjectName|InvalidURI" "... saying the server refused the name"
s3 get "$B" "n/new"$'\n'"line" "$WORK/obj"
check "the object of a name with a newline holds its file's bytes" \
	cmp -s "$WORK/obj" "$T/new"$'\n'"line"

"$FERRY" ls "s3://$B/n" --json >"$WORK/ls.json"
is "$?" 0 "ferry ls exits 0"
is "$(json_lines "$WORK/ls.json")" 5 "ls --json writes 5 valid JSON lines"
is "$(keys_of "$WORK/ls.json" object)" "$(valid_keys n/)" \
	"... giving back the exact bytes of every key"

# same_files A B: every file under B is the twin of A's, names as bytes
same_files() {
	python3 - "$1" "$2" <<'EOF'
import os, sys
a, b = (os.fsencode(x) for x in sys.argv[1:3])
n = 0
for d, _, files in os.walk(b):
    for f in files:
        q = os.path.join(d, f)
        p = os.path.join(a, os.path.relpath(q, b))
        if open(p, "rb").read() != open(q, "rb").read():
            sys.exit("differs: %r" % q)
        n += 1
sys.exit(0 if n == 5 else "%d files" % n)
EOF
}
"$FERRY" sync "s3://$B/n" "$D" --json >"$WORK/pull.json" 2>"$WORK/pull.err"
is "$?" 0 "a pull of the awkward keys exits 0"
is "$(json_lines "$WORK/pull.json")" 7 "... with 7 valid JSON lines"
check "... valid against the event schema" json_valid "$WORK/pull.json"
check "... and writes each name back as its bytes, with its content" \
	same_files "$T" "$D"
is "$(keys_of "$WORK/pull.json" download)" "$(valid_keys n/)" \
	"the download lines give back the exact bytes of every key"

# an error about a key with a newline: a file and a folder of one name
mkdir -p "$WORK/t2/a"$'\n'"b" "$WORK/t3"
echo x >"$WORK/t2/a"$'\n'"b/f"
echo y >"$WORK/t3/a"$'\n'"b"
"$FERRY" sync "$WORK/t2" "s3://$B/c" --quiet
"$FERRY" sync "$WORK/t3" "s3://$B/c" --quiet
"$FERRY" sync "s3://$B/c" "$WORK/c" --json >"$WORK/conflict.json" 2>/dev/null
is "$?" 1 "a pull with a file/folder conflict on such a name exits 1"
is "$(json_lines "$WORK/conflict.json")" 4 "... with 4 valid JSON lines"
is "$(keys_of "$WORK/conflict.json" error)" \
	"$(printf 'c/a\nb/f' | od -An -tx1 | tr -d ' \n')" \
	"... the error giving the exact bytes of the key"

done_testing
