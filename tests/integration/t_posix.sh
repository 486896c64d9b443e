#!/usr/bin/env bash
# A file's POSIX metadata, symlinks and empty folders: a push stores mode,
# owner and times under the names rclone reads; a pull restores them with
# --preserve (owner only as root, set-id bits only as root); rclone reads
# ferry's and ferry restores rclone's; --links keeps symlinks as objects
# of their target and refuses targets outside the folder; --keep-dirs
# keeps empty folders as "dir/" markers.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

B=posix-$$
T=$WORK/tree
mkbucket "$B"
root=0
[ "$(id -u)" -eq 0 ] && root=1

# head_of KEY FIELD: a header of the object's HEAD reply ("" when
# absent), the reply asked for once per key.
head_of() {
	local f=$WORK/head.${1//\//_}
	[ -s "$f" ] || s3 head "$B" "$1" >"$f"
	python3 -c '
import json, sys
print(json.load(open(sys.argv[1])).get(sys.argv[2], ""))' "$f" "$2"
}
# st FILE: mode in octal, owner's ids, mtime and atime to the nanosecond.
st() {
	stat -c '%a %u:%g %.9Y %.9X' "$1"
}

mkdir -p "$T/sub" "$T/empty/inner"
echo one >"$T/a.txt"
echo two >"$T/sub/b.sh"
echo three >"$T/secret"
echo four >"$T/suid"
chmod 0640 "$T/a.txt"
chmod 0755 "$T/sub/b.sh"
chmod 0600 "$T/secret"
[ "$root" = 1 ] && chown nobody:nogroup "$T/a.txt"
chmod 04755 "$T/suid"
touch -m -d '2020-01-02 03:04:05.123456789 UTC' "$T/a.txt" "$T/suid"
touch -a -d '2021-06-07 08:09:10.5 UTC' "$T/a.txt"
touch -d '2019-05-06 07:08:09.000000001 UTC' "$T/sub/b.sh"
ln -s ../a.txt "$T/sub/link"
ln -s /etc/hostname "$T/abs"
ln -s ../../outside "$T/sub/escape"

# --- without --links: the symlinks are left out, as before
"$FERRY" sync "$T" "s3://$B/plain" --json >"$WORK/plain.json"
is "$?" 0 "a push without --links exits 0"
is "$(summary "$WORK/plain.json" left_out)" 3 "... leaving the 3 symlinks out"
is "$(s3 ls "$B" plain/ | grep -c 'rclonelink\|/$')" 0 \
	"... and sends neither links nor folder markers"

# --- push: the metadata goes with every object
"$FERRY" sync "$T" "s3://$B/p" --links --keep-dirs --json >"$WORK/push.json"
is "$?" 0 "a push with --links --keep-dirs exits 0"
is "$(summary "$WORK/push.json" uploaded)" 8 "... sends 4 files, 3 links, 1 folder"
is "$(head_of p/a.txt x-amz-meta-mode)" 100640 "mode is stored in octal, as rclone does"
is "$(head_of p/a.txt x-amz-meta-mtime)" 1577934245.123456789 \
	"mtime is stored as rclone's S3 backend writes it"
is "$(head_of p/a.txt x-amz-meta-ferry-mtime)" 1577934245123456789 \
	"... beside ferry's own in nanoseconds"
is "$(head_of p/a.txt x-amz-meta-atime)" 2021-06-07T08:09:10.500000000Z \
	"atime is stored in RFC 3339"
is "$(head_of p/suid x-amz-meta-mode)" 104755 "the set-uid bit is stored"
if [ "$root" = 1 ]; then
	is "$(head_of p/a.txt x-amz-meta-uid):$(head_of p/a.txt x-amz-meta-uname)" \
		"$(id -u nobody):nobody" "the owner is stored by id and name"
	is "$(head_of p/a.txt x-amz-meta-gname)" nogroup "... and the group's name"
else
	is "$(head_of p/a.txt x-amz-meta-uid)" "$(id -u)" "the owner's id is stored"
	ok "# SKIP not root: the owner's name of another user"
fi
is "$(s3 ls "$B" p/ | grep -E 'rclonelink|/$' | tr '\t\n' ': ')" \
	"13:p/abs.rclonelink 0:p/empty/inner/ 13:p/sub/escape.rclonelink 8:p/sub/link.rclonelink " \
	"links go as NAME.rclonelink objects of their target, empty folders as markers"
s3 get "$B" p/sub/link.rclonelink "$WORK/target"
is "$(cat "$WORK/target")" ../a.txt "... whose bytes are the target"
is "$(head_of p/sub/link.rclonelink x-amz-meta-mode)" 120777 "... with a link's mode"

# an unchanged run lists and sends nothing else, reads no file
m=$(mark)
traced "$WORK/again.trace" -e trace=openat -- \
	"$FERRY" sync "$T" "s3://$B/p" --links --keep-dirs --json >"$WORK/again.json"
is "$?" 0 "an unchanged push exits 0"
is "$(summary "$WORK/again.json" uploaded)" 0 "... uploads nothing"
is "$(file_opens "$WORK/again.trace")" 0 "... opens no file"
is "$(requests "$m" PUT)$(requests "$m" HEAD)$(requests "$m" GET)" 000 \
	"... and sends no request but the listing"

# --- pull as this user, with --preserve
"$FERRY" sync "s3://$B/p" "$WORK/out" --links --preserve --json \
	>"$WORK/pull.json" 2>"$WORK/pull.err"
is "$?" 1 "a pull with two links leaving the folder exits 1"
is "$(pick "$WORK/pull.json" 'l["key"] for l in L if l["type"] == "error"')" \
	"p/abs.rclonelink p/sub/escape.rclonelink" "... refusing those two"
like "$(cat "$WORK/pull.json")" "points outside the folder.* .--links-outside" \
	"... saying why and what allows it"
check "... making neither" test ! -e "$WORK/out/abs" -a ! -L "$WORK/out/abs" \
	-a ! -L "$WORK/out/sub/escape"
is "$(readlink "$WORK/out/sub/link")" ../a.txt "a link inside is made again"
is "$(stat -c %.9Y "$WORK/out/sub/link")" "$(stat -c %.9Y "$T/sub/link")" \
	"... with its mtime"
check "empty folders are made again" test -d "$WORK/out/empty/inner"
if [ "$root" = 1 ]; then
	is "$(st "$WORK/out/a.txt")" "$(st "$T/a.txt")" \
		"as root: mode, owner, mtime and atime come back"
	is "$(st "$WORK/out/suid")" "$(st "$T/suid")" "... set-uid bit included"
else
	is "$(stat -c '%a %.9Y %.9X' "$WORK/out/a.txt")" \
		"$(stat -c '%a %.9Y %.9X' "$T/a.txt")" "mode, mtime and atime come back"
	is "$(stat -c %a "$WORK/out/suid")" 755 "... the set-uid bit is not given"
fi
is "$(stat -c %a "$WORK/out/secret") $(stat -c %a "$WORK/out/sub/b.sh")" \
	"600 755" "... modes of each file"

# without --preserve, modes are the umask's; the mtime still comes back
(umask 022 && "$FERRY" sync "s3://$B/p" "$WORK/nop" -q)
is "$(stat -c '%a %.9Y' "$WORK/nop/secret")" \
	"644 $(stat -c %.9Y "$T/secret")" "without --preserve: no mode, the mtime"
check "... and without --links the link objects are files" \
	test -f "$WORK/nop/sub/link.rclonelink" -a ! -L "$WORK/nop/sub/link.rclonelink"

# --links-outside makes them; a pull never writes through a link
ln -s "$WORK/victim" "$WORK/out/sub/escape"
echo precious >"$WORK/victim"
"$FERRY" sync "s3://$B/p" "$WORK/out" --links-outside -q
is "$?" 0 "--links-outside makes links that leave the folder"
is "$(readlink "$WORK/out/abs") $(readlink "$WORK/out/sub/escape")" \
	"/etc/hostname ../../outside" "... as they were"
is "$(cat "$WORK/victim")" precious "... replacing a link at the name, never following it"
m=$(mark)
"$FERRY" sync "s3://$B/p" "$WORK/out" --links-outside --json >"$WORK/pull2.json"
is "$(summary "$WORK/pull2.json" downloaded) $(requests "$m" GET)" "0 0" \
	"an unchanged pull with links downloads nothing"

ln -s b.sh "$WORK/out/sub/stray"
"$FERRY" sync "s3://$B/p" "$WORK/out" --links-outside --delete --json \
	>"$WORK/del.json"
is "$(summary "$WORK/del.json" deleted)" 1 "--delete removes a link the bucket does not have"
check "... the link itself" test ! -L "$WORK/out/sub/stray" -a -f "$WORK/out/sub/b.sh"

# --- as nobody (root only): the owner stays the user's, no set-id bit
if [ "$root" = 1 ]; then
	NB=$(mktemp -d /tmp/ferry-nobody.XXXXXX)
	trap 'stop_proxy; rm -rf "$WORK" "$NB"' EXIT
	chmod 755 "$NB"
	cp "$FERRY" "$NB/ferry" && chmod 755 "$NB/ferry"
	mkdir -p "$NB/state" "$NB/out" && chown nobody "$NB/state" "$NB/out"
	: >"$NB/empty" && chmod 644 "$NB/empty"
	(cd "$NB" && setpriv --reuid=nobody --regid=nogroup --clear-groups \
		env FERRY_STATE_DIR="$NB/state" AWS_SHARED_CREDENTIALS_FILE="$NB/empty" \
		AWS_CONFIG_FILE="$NB/empty" \
		"$NB/ferry" sync "s3://$B/p" "$NB/out" --links --preserve -q) 2>"$WORK/nb.err"
	is "$?" 1 "as nobody: the pull exits 1 (the two links outside)"
	is "$(stat -c '%a %U' "$NB/out/suid")" "755 nobody" \
		"... the set-uid bit is not given, the owner is nobody"
	is "$(stat -c '%a %U %.9Y %.9X' "$NB/out/a.txt")" \
		"640 nobody $(stat -c '%.9Y %.9X' "$T/a.txt")" \
		"... mode, mtime and atime come back"
else
	for i in 1 2 3; do ok "# SKIP not root: no pull as nobody"; done
fi

# --- rclone reads ferry's metadata, ferry restores rclone's
if command -v rclone >/dev/null 2>&1; then
	export RCLONE_CONFIG_X_TYPE=s3 RCLONE_CONFIG_X_PROVIDER=Ceph \
		RCLONE_CONFIG_X_ENDPOINT=$FERRY_TEST_ENDPOINT \
		RCLONE_CONFIG_X_ACCESS_KEY_ID=$AWS_ACCESS_KEY_ID \
		RCLONE_CONFIG_X_SECRET_ACCESS_KEY=$AWS_SECRET_ACCESS_KEY \
		RCLONE_CONFIG_X_REGION=us-east-1 RCLONE_CONFIG_X_FORCE_PATH_STYLE=true \
		RCLONE_CONFIG=/dev/null
	(unset AWS_CA_BUNDLE && rclone lsjson --metadata "X:$B/p/a.txt") \
		>"$WORK/rc.json" 2>"$WORK/rc.err"
	got=$(python3 -c '
import json, sys
o = json.load(open(sys.argv[1]))[0]
print(o["ModTime"], o["Metadata"]["mode"], o["Metadata"]["atime"])' "$WORK/rc.json")
	is "$got" "2020-01-02T03:04:05.123456789Z 100640 2021-06-07T08:09:10.500000000Z" \
		"rclone lsjson --metadata reads ferry's mtime, mode and atime"
	R=$WORK/rtree
	mkdir -p "$R"
	echo rclone >"$R/r.txt"
	chmod 0604 "$R/r.txt"
	touch -m -d '2018-03-04 05:06:07.987654321 UTC' "$R/r.txt"
	touch -a -d '2018-04-05 06:07:08.25 UTC' "$R/r.txt"
	ln -s r.txt "$R/rl"
	(unset AWS_CA_BUNDLE && rclone copy --metadata --links "$R" "X:$B/rc") \
		2>"$WORK/rc.err"
	is "$?" 0 "rclone copy --metadata --links to the bucket"
	"$FERRY" sync "s3://$B/rc" "$WORK/rout" --links --preserve -q
	is "$?" 0 "ferry pulls what rclone wrote"
	is "$(stat -c '%a %.9Y %.9X' "$WORK/rout/r.txt")" \
		"604 1520139967.987654321 1522908428.250000000" \
		"... with rclone's mode, mtime and atime"
	is "$(readlink "$WORK/rout/rl")" r.txt "... and rclone's link"
else
	not_ok "rclone reads ferry's metadata (rclone is not installed: tests/deps.sh installs it)"
fi

# --- --keep-dirs: a folder that fills loses its marker (with --delete)
echo now >"$T/empty/inner/f"
"$FERRY" sync "$T" "s3://$B/p" --links --keep-dirs --delete --json >"$WORK/fill.json"
is "$(s3 ls "$B" p/empty/ | cut -f2 | tr '\n' ' ')" "p/empty/inner/f " \
	"a folder no longer empty: its file goes up, its marker is deleted"

# --- a multipart upload carries them too, a ranged download restores them
mkdir -p "$WORK/big"
head -c $((6 << 20)) /dev/urandom >"$WORK/big/f"
chmod 0612 "$WORK/big/f"
touch -d '2017-01-02 03:04:05.25 UTC' "$WORK/big/f"
"$FERRY" sync "$WORK/big" "s3://$B/big" --multipart-threshold 5M \
	--part-size 5M -q
is "$(head_of big/f x-amz-meta-mode) $(head_of big/f x-amz-meta-mtime)" \
	"100612 1483326245.250000000" "a multipart upload carries mode and mtime"
"$FERRY" sync "s3://$B/big" "$WORK/bigout" --preserve --part-size 5M \
	--multipart-threshold 5M --json >"$WORK/big.json"
is "$(summary "$WORK/big.json" requests.get)" 2 "a pull in two ranges"
is "$(stat -c '%a %.9Y %.9X' "$WORK/bigout/f")" \
	"$(stat -c '%a %.9Y %.9X' "$WORK/big/f")" \
	"... and a ranged download gives them back"

# --- usage
"$FERRY" sync "s3://$B/p" "$WORK/x" --keep-dirs 2>"$WORK/u.err"
is "$?" 2 "--keep-dirs on a pull is a usage error"
"$FERRY" sync "$T" "s3://$B/p" --links -L 2>"$WORK/u.err"
is "$?" 2 "--links with -L is a usage error"

done_testing
