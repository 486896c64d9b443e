#!/usr/bin/env bash
# -X/--xattrs and -A/--acls: a push sends a file's user.NAME extended
# attributes as x-amz-meta-NAME (rclone's mapping), values that are not
# plain header text as RFC 2047 encoded words, and its access ACL as
# x-amz-meta-ferry-acl in acl(5)'s short text form; a pull -X -A gives
# them back before the file gets its name.  rclone copy -M reads ferry's
# attributes, and ferry pull -X reads rclone's.  Names S3 cannot keep or
# that rclone and ferry keep their own metadata under are refused with a
# warning; a file whose attributes pass S3's 2 KiB of metadata goes
# without them, said; a file system that keeps no attributes (ramfs) is
# said once and the files are written.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

B=xattrs-$$
T=$WORK/tree
mkbucket "$B"

mkdir -p "$T/sub"
echo one >"$T/a.txt"
echo two >"$T/b.txt"
echo three >"$T/sub/c.txt"
echo four >"$T/big.txt"
echo five >"$T/plain.txt"
head -c $((6 << 20)) /dev/urandom >"$T/mp.bin"
python3 - "$T" <<'PY'
import os, sys
t = sys.argv[1]
s = os.setxattr
s(t + "/a.txt", "user.color", b"blue")
s(t + "/a.txt", "user.note", "h\u00e9llo w\u00f6rld".encode())
s(t + "/a.txt", "user.bin", b"\x00\x01\xff=?x")
s(t + "/a.txt", "user.empty", b"")
s(t + "/a.txt", "user.spaced", b" lead and trail ")
s(t + "/a.txt", "user.Upper", b"refused")
s(t + "/a.txt", "user.mtime", b"refused too")
s(t + "/sub/c.txt", "user.project", b"ferry")
s(t + "/big.txt", "user.big", b"a" * 1500)
s(t + "/big.txt", "user.big2", b"b" * 600)
s(t + "/mp.bin", "user.part", b"multi")
PY
setfacl -m u:1234:r--,g:2345:rw- "$T/b.txt"

# attrs FILE: the file's user.* attributes, "name=hex" sorted, one line
attrs() {
	python3 - "$1" <<'PY'
import os, sys
p = sys.argv[1]
print(" ".join(sorted("%s=%s" % (n, os.getxattr(p, n).hex())
                      for n in os.listxattr(p) if n.startswith("user."))))
PY
}
# meta KEY HEADER: a header of the object's HEAD reply ("" when absent)
meta() {
	s3 head "$B" "$1" | python3 -c '
import json, sys
print(json.load(sys.stdin).get(sys.argv[1], ""))' "$2"
}
acl_of() {
	getfacl -cn "$1" 2>/dev/null | grep -v '^$' | tr '\n' ' '
}

"$FERRY" sync "$T" "s3://$B/p" -X -A --multipart-threshold 5M --json \
	>"$WORK/push.json" 2>"$WORK/push.err"
is "$?" 0 "a push -X -A exits 0"
is "$(summary "$WORK/push.json" uploaded)" 6 "... uploading the 6 files"
is "$(meta p/a.txt x-amz-meta-color)" blue "user.color goes as x-amz-meta-color"
is "$(meta p/a.txt x-amz-meta-note)" "=?UTF-8?B?aMOpbGxvIHfDtnJsZA==?=" \
	"... UTF-8 text as an RFC 2047 encoded word"
is "$(meta p/a.txt x-amz-meta-bin)" "=?X-BINARY?B?AAH/PT94?=" \
	"... bytes that are no text as one of charset X-BINARY"
is "$(meta p/a.txt x-amz-meta-empty)" "=?UTF-8?B??=" "... an empty value encoded"
like "$(meta p/a.txt x-amz-meta-mtime)" '^[0-9]+\.[0-9]{9}$' \
	"... user.mtime does not take the place of rclone's mtime"
like "$(cat "$WORK/push.err")" "a.txt: its attribute user.Upper is not sent: an upper case letter" \
	"... user.Upper refused, said"
like "$(cat "$WORK/push.err")" "a.txt: its attribute user.mtime is not sent: a name ferry or rclone" \
	"... user.mtime refused, said"
is "$(meta p/sub/c.txt x-amz-meta-project)" ferry "a file in a folder keeps its attribute"
is "$(meta p/mp.bin x-amz-meta-part)" multi "a multipart upload carries its attribute"
is "$(meta p/b.txt x-amz-meta-ferry-acl)" "u::rw-,u:1234:r--,g::r--,g:2345:rw-,m::rw-,o::r--" \
	"an ACL goes as x-amz-meta-ferry-acl, numeric ids"
like "$(cat "$WORK/push.err")" "big.txt: its extended attributes and ACL with ferry's own metadata come to [0-9]+ bytes, more than the 2048 an object keeps: sent without them" \
	"attributes past S3's 2 KiB: said, naming the file"
is "$(meta p/big.txt x-amz-meta-big):$(meta p/big.txt x-amz-meta-big2)" ":" \
	"... and none of them sent, never a cut value"
like "$(meta p/big.txt x-amz-meta-ferry-xxh128)" '^[0-9a-f]{32}$' \
	"... the file itself stored"

# --- pull -X -A: the same attributes and ACL back
"$FERRY" sync "s3://$B/p" "$WORK/r1" -X -A >/dev/null 2>"$WORK/pull.err"
is "$?" 0 "a pull -X -A exits 0"
python3 - "$T/a.txt" <<'PY'
import os, sys
for n in ("user.Upper", "user.mtime"):
    os.removexattr(sys.argv[1], n)
PY
for f in a.txt sub/c.txt plain.txt mp.bin; do
	is "$(attrs "$WORK/r1/$f")" "$(attrs "$T/$f")" "... $f has its attributes back"
done
is "$(attrs "$WORK/r1/big.txt")" "" "... big.txt none, as sent"
is "$(acl_of "$WORK/r1/b.txt")" "$(acl_of "$T/b.txt")" "... b.txt has its ACL back"
is "$(grep -v ' downloaded, ' "$WORK/pull.err")" "" "... and nothing said but the summary"

# --- a setfattr alone: the object copied onto itself, no byte sent
python3 -c 'import os,sys; os.setxattr(sys.argv[1], "user.color", b"green")' "$T/a.txt"
setfacl -m u:1235:rwx "$T/b.txt"
m=$(mark)
"$FERRY" sync "$T" "s3://$B/p" -X -A --multipart-threshold 5M --json \
	>"$WORK/set.json" 2>"$WORK/set.err"
is "$?" 0 "a push after a setfattr and a setfacl exits 0"
is "$(summary "$WORK/set.json" metadata):$(summary "$WORK/set.json" uploaded):$(summary "$WORK/set.json" bytes_sent)" \
	2:0:0 "... sends the metadata of the 2 files, no byte"
is "$(requests "$m" put)" 2 "... in 2 PUTs (copies onto themselves)"
is "$(meta p/a.txt x-amz-meta-color)" green "... a.txt carries the new value"
like "$(meta p/b.txt x-amz-meta-ferry-acl)" "u:1235:rwx" "... b.txt the new ACL"
"$FERRY" sync "s3://$B/p" "$WORK/r5" -X -A -q
is "$(attrs "$WORK/r5/a.txt")" "$(attrs "$T/a.txt")" "... pulled with it"

# --- a ctime moved alone (a hard link made): no request but the listing
ln "$T/plain.txt" "$WORK/plain.link"
m=$(mark)
"$FERRY" sync "$T" "s3://$B/p" -X -A --multipart-threshold 5M --json \
	>"$WORK/ctime.json"
is "$?:$(summary "$WORK/ctime.json" metadata):$(summary "$WORK/ctime.json" uploaded)" \
	0:0:0 "a push after a ctime moved alone sends nothing"
is "$(requests "$m" put)" 0 "... no PUT"
m=$(mark)
"$FERRY" sync "$T" "s3://$B/p" -X -A --multipart-threshold 5M --json \
	>"$WORK/again.json"
is "$?:$(summary "$WORK/again.json" metadata):$(requests "$m" put)" 0:0:0 \
	"... nor does the run after it"

# --- without -X, no attribute; without -A, no ACL
"$FERRY" sync "s3://$B/p" "$WORK/r2" -q
is "$(attrs "$WORK/r2/a.txt")" "" "a pull without -X gives no attribute"
is "$(getfacl -cn "$WORK/r2/b.txt" 2>/dev/null | grep -c '^user:[0-9]')" 0 \
	"... and without -A no ACL"

# --- rclone reads ferry's attributes
export RCLONE_CONFIG="$WORK/rclone.conf"
: >"$RCLONE_CONFIG"
export RCLONE_CONFIG_X_TYPE=s3 RCLONE_CONFIG_X_PROVIDER=Other \
	RCLONE_CONFIG_X_ACCESS_KEY_ID="$AWS_ACCESS_KEY_ID" \
	RCLONE_CONFIG_X_SECRET_ACCESS_KEY="$AWS_SECRET_ACCESS_KEY" \
	RCLONE_CONFIG_X_REGION=us-east-1 RCLONE_CONFIG_X_FORCE_PATH_STYLE=true \
	RCLONE_CONFIG_X_ENDPOINT="$FERRY_TEST_ENDPOINT"
unset AWS_CA_BUNDLE
rclone copy -M "X:$B/p" "$WORK/rc" 2>"$WORK/rc.err"
is "$?" 0 "rclone copy -M of the bucket exits 0"
# rclone gives what it does not map itself as user.* too (uname,
# gname, content-type, ferry-*): the file's own must be among them
like " $(attrs "$WORK/rc/sub/c.txt") " " $(attrs "$T/sub/c.txt") " \
	"... rclone gives sub/c.txt user.project"
is "$(python3 -c 'import os,sys; print(os.getxattr(sys.argv[1], "user.color").decode())' "$WORK/rc/a.txt")" \
	green "... and a.txt user.color"

# --- ferry reads rclone's
mkdir -p "$WORK/rsrc"
echo six >"$WORK/rsrc/r.txt"
python3 -c 'import os,sys; os.setxattr(sys.argv[1], "user.origin", b"rclone")' "$WORK/rsrc/r.txt"
rclone copy -M "$WORK/rsrc" "X:$B/rc" 2>>"$WORK/rc.err"
is "$?" 0 "rclone copy -M of a folder exits 0"
"$FERRY" sync "s3://$B/rc" "$WORK/r3" -X -q
is "$?:$(attrs "$WORK/r3/r.txt")" "0:user.origin=$(printf rclone | od -An -tx1 | tr -d ' \n')" \
	"... ferry pull -X gives rclone's user.origin"

# --- a value no encoder of ferry's writes is refused on pull, said
printf 'x\n' >"$WORK/obj"
s3 put "$B" q/bad.txt "$WORK/obj" 'x-amz-meta-odd:=?UTF-8?B?***?=' x-amz-meta-fine:yes >/dev/null
s3 put "$B" q/acl.txt "$WORK/obj" 'x-amz-meta-ferry-acl:u::rw-,o::r--' >/dev/null
"$FERRY" sync "s3://$B/q" "$WORK/r4" -X -A >/dev/null 2>"$WORK/bad.err"
is "$?" 0 "a pull of malformed values exits 0"
is "$(attrs "$WORK/r4/bad.txt")" "user.fine=796573" "... the good attribute given"
like "$(cat "$WORK/bad.err")" "bad.txt: its object's x-amz-meta-odd is not a value ferry or rclone writes: left out" \
	"... the malformed value said and left out"
like "$(cat "$WORK/bad.err")" "acl.txt: its object's x-amz-meta-ferry-acl is not an ACL ferry writes: left out" \
	"... an ACL without the group's entry said and left out"

# --- a file system without extended attributes: said once, files there
if [ "$(id -u)" -eq 0 ]; then
	mkdir -p "$WORK/ram"
	# shellcheck disable=SC2016
	unshare -m sh -c 'd=$1; shift; mount -t ramfs none "$d" || exit 9
		"$@" >/dev/null 2>"$0"; rc=$?
		find "$d" -type f -name "*.txt" | wc -l >"$0.n"; exit $rc' \
		"$WORK/ram.err" "$WORK/ram" "$FERRY" sync "s3://$B/p" "$WORK/ram" -X -A
	is "$?" 0 "a pull -X -A onto ramfs exits 0"
	is "$(cat "$WORK/ram.err.n")" 5 "... writing the files"
	is "$(grep -c 'the file system refuses extended attributes' "$WORK/ram.err")" 1 \
		"... the refusal of attributes said once"
	is "$(grep -c 'the file system refuses ACLs' "$WORK/ram.err")" 1 \
		"... and that of ACLs once"
else
	ok "# skip: mounting a ramfs needs root"
	ok "# skip: mounting a ramfs needs root"
	ok "# skip: mounting a ramfs needs root"
	ok "# skip: mounting a ramfs needs root"
fi

done_testing
