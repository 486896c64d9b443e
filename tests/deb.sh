#!/bin/sh
# Builds the Debian package (make deb), checks it with lintian (errors and
# warnings fail; informational tags are printed), checks that it holds
# what make install puts in place, then installs it with dpkg into a fresh
# root of its own and runs the packaged ferry --version there and man -w
# for each page the tree has.  Nothing is installed on this machine but
# the tools it needs (through tests/deps.sh).
#
#   tests/deb.sh [--no-build]   --no-build: check the .deb make deb left
set -eu
cd "$(dirname "$0")/.."
sh tests/deps.sh debhelper dpkg-dev fakeroot lintian man-db
[ "${1-}" = --no-build ] || make deb
deb=$(ls build-deb/ferry_*.deb)
changes=$(ls build-deb/ferry_*.changes)
fail=0

# one check: a message, then the command; prints ok or not ok
check() {
	msg=$1
	shift
	if "$@"; then
		echo "ok: $msg"
	else
		echo "not ok: $msg"
		fail=1
	fi
}

echo "== lintian"
check "lintian: no error or warning" lintian --fail-on error,warning \
	--display-info --pedantic --tag-display-limit 0 "$changes"

echo "== contents of $deb"
dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's|^\./|/|' >build-deb/contents
want="/usr/bin/ferry /usr/share/bash-completion/completions/ferry
/usr/share/ferry/ferry-events.schema.json /usr/share/doc/ferry/copyright"
for f in man/*.[1-8]; do
	want="$want /usr/share/man/man${f##*.}/$(basename "$f").gz"
done
for f in examples/*; do
	want="$want /usr/share/doc/ferry/examples/$(basename "$f")"
done
for f in $want; do
	grep -qx "$f\(\.gz\)\?" build-deb/contents || {
		echo "not ok: $f is not in the package"
		fail=1
	}
done
echo "ok: $(wc -l <build-deb/contents) entries checked"

echo "== installed into a fresh root"
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
: >"$root/var/lib/dpkg/status"
# the fresh root's dpkg knows no libraries: ferry runs on this machine's
check "dpkg --root --install" dpkg --root="$root" --force-depends \
	--force-script-chrootless --install "$deb"
check "dpkg --root --status: installed" sh -c "dpkg --root='$root' \
	-s ferry | grep -qx 'Status: install ok installed'"
check "packaged ferry --version: $("$root/usr/bin/ferry" --version)" \
	sh -c "'$root/usr/bin/ferry' --version | grep -q '^ferry '"
for f in man/*.[1-8]; do
	page=$(basename "$f")
	check "man -w ${page%.*}($(echo "$page" | sed 's/.*\.//')) \
from the package" sh -c "MANPATH='$root/usr/share/man' man -w \
'${page##*.}' '${page%.*}' | grep -q '^$root/'"
done
check "installed files match the .deb (dpkg --verify)" \
	dpkg --root="$root" --verify ferry
exit "$fail"
