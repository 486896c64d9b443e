#!/usr/bin/env bash
# Modes only as safe as the owner: with --preserve as root, set-uid and
# set-gid bits are given only with the owner and group the object
# carries, and left off (said once a pull) when the owner cannot be set
# (here: root without CAP_CHOWN, under setpriv); a file being downloaded
# is 0600 until it is installed, whether it replaces a file (a named
# .ferry-tmp-* file) or not (an unnamed one); the umask applies to a new
# file's mode without --preserve, not to the mode --preserve gives.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

B=modes-$$
mkbucket "$B"
echo "#!/bin/sh" >"$WORK/obj"

# put KEY MODE [UID GID]: an object whose metadata says mode (octal, with
# the file type) and owner.
put() {
	local h=(x-amz-meta-mode:"$2")
	[ $# -ge 4 ] && h+=(x-amz-meta-uid:"$3" x-amz-meta-gid:"$4")
	s3 put "$B" "$1" "$WORK/obj" "${h[@]}" >/dev/null
}

# --- set-id bits: given with the owner, left off without it
put sid/a 104755 5000 5000
put sid/b 106755 5000 5000
put sid/c 102750 5000 5000
put sid/plain 100640 5000 5000
put sid/noowner 104755
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
	setpriv --inh-caps=-chown --bounding-set=-chown \
		"$FERRY" sync "s3://$B/sid" "$WORK/nocap" --preserve \
		2>"$WORK/nocap.err"
	is "$?" 0 "as root without CAP_CHOWN, a pull with --preserve exits 0"
	is "$(stat -c '%a %u' "$WORK/nocap/a" "$WORK/nocap/b" "$WORK/nocap/c" \
		"$WORK/nocap/plain" | tr '\n' ' ')" \
		"755 0 755 0 750 0 640 0 " \
		"... leaving the set-id bits off the files it could not give their owner"
	is "$(grep -c 'set-uid and set-gid bits left off' "$WORK/nocap.err")" 1 \
		"... saying so once"
	is "$(grep -c 'cannot give it its owner' "$WORK/nocap.err")" 1 \
		"... and that an owner could not be given, once"

	"$FERRY" sync "s3://$B/sid" "$WORK/cap" --preserve 2>"$WORK/cap.err"
	is "$?:$(stat -c '%a %u:%g' "$WORK/cap/a" "$WORK/cap/c" | tr '\n' ' ')" \
		"0:4755 5000:5000 2750 5000:5000 " \
		"as root with CAP_CHOWN the owner is given, and the set-id bits with it"
	is "$(stat -c '%a %u' "$WORK/cap/noowner")" "755 0" \
		"... but not to an object that carries no owner"
	is "$(grep -c 'set-uid and set-gid bits left off' "$WORK/cap.err")" 1 \
		"... which is said"
elif [ "$(id -u)" -eq 0 ]; then
	not_ok "as root with CAP_CHOWN the owner is given (setpriv, of util-linux, is not installed)"
else
	for _ in 1 2 3 4 5 6 7; do ok "# SKIP not root"; done
fi

# --- a file being downloaded is 0600; its mode comes at install
# watch DIR: the kinds and modes of ferry's temporary files in DIR
# ("named:MODE", "unnamed:MODE" for an O_TMPFILE), seen through the
# descriptors of the pull running in the background ($PID) until it ends.
watch() {
	local seen="" m f kind
	while kill -0 "$PID" 2>/dev/null; do
		for f in /proc/"$PID"/fd/*; do
			case $(readlink "$f" 2>/dev/null) in
			"$1"/.ferry-tmp-*) kind=named ;;
			"$1"/\#*) kind=unnamed ;;
			*) continue ;;
			esac
			m=$kind:$(stat -L -c %a "$f" 2>/dev/null) || continue
			case " $seen " in *" $m "*) ;; *) seen="$seen $m" ;; esac
		done
		sleep 0.02
	done
	tr ' ' '\n' <<<"${seen# }" | sort | tr '\n' ' '
}
head -c 393216 /dev/urandom >"$WORK/big"
s3 put "$B" tmp/secret "$WORK/big" x-amz-meta-mode:100600 >/dev/null
s3 put "$B" tmp/new "$WORK/big" x-amz-meta-mode:100644 >/dev/null
mkdir -p "$WORK/tmp"
echo old >"$WORK/tmp/secret"
chmod 600 "$WORK/tmp/secret"
(umask 022 && exec "$FERRY" sync "s3://$B/tmp" "$WORK/tmp" --preserve \
	--bwlimit 128K -q) &
PID=$!
seen=$(watch "$WORK/tmp")
wait "$PID"
is "$?" 0 "a slow pull with --preserve exits 0"
is "$seen" "named:600 unnamed:600 " \
	"... its files are 0600 while they download, named or not"
is "$(stat -c %a "$WORK/tmp/secret" "$WORK/tmp/new" | tr '\n' ' ')" "600 644 " \
	"... and get the stored mode at install"

# without --preserve: 0666 less the umask, given at install
put tmp/small 100600
(umask 027 && "$FERRY" sync "s3://$B/tmp" "$WORK/um" -q)
is "$(stat -c %a "$WORK/um/small" "$WORK/um/new" | tr '\n' ' ')" "640 640 " \
	"without --preserve a new file is 0666 less the umask"
(umask 077 && "$FERRY" sync "s3://$B/tmp" "$WORK/um2" --preserve -q)
is "$(stat -c %a "$WORK/um2/small" "$WORK/um2/new" | tr '\n' ' ')" "600 644 " \
	"with --preserve the stored mode, the umask aside"

done_testing
