#!/bin/sh
# Builds ferry and its unit tests with each compiler and flag set a user or
# a distribution is likely to use, warnings as errors (WERROR=1): gcc at
# -O1, -O2, -O3 and -Os, clang, and Debian's dpkg-buildflags with every
# hardening flag.  A build that warns fails.  Build only: nothing is run.
# Each build has a folder of its own under a temporary one, removed after.
#
#   tests/flags.sh [NAME...]   only the named builds (gcc-O3, clang, ...)
set -eu
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# one build: NAME, then make's variables; prints one line, fails on a warning
build() {
	name=$1
	shift
	case " $only " in
	"  " | *" $name "*) ;;
	*) return 0 ;;
	esac
	start=$(date +%s)
	if ! make -s -j"$jobs" WERROR=1 BUILD="$tmp/$name" "$@" \
		"$tmp/$name/ferry" unit-build >"$tmp/$name.log" 2>&1; then
		cat "$tmp/$name.log"
		echo "not ok: $name ($*)"
		fail=1
		return 0
	fi
	echo "ok: $name ($*) in $(($(date +%s) - start)) s"
}

only="$*"
fail=0
sh tests/deps.sh clang dpkg-dev
for o in -O1 -O2 -O3 -Os; do
	build "gcc$o" CC=gcc CFLAGS="$o"
done
build clang CC=clang
export DEB_BUILD_MAINT_OPTIONS=hardening=+all
build dpkg-buildflags CC=gcc CFLAGS="$(dpkg-buildflags --get CFLAGS)" \
	CPPFLAGS="$(dpkg-buildflags --get CPPFLAGS)" \
	LDFLAGS="$(dpkg-buildflags --get LDFLAGS)"
# bench/far.sh's latency relay, built by that script with cc: kept clean
for cc in gcc clang; do
	if ! $cc -O2 -Wall -Wextra -pedantic -Werror -std=c11 \
		-o "$tmp/delayproxy-$cc" bench/delayproxy.c; then
		echo "not ok: bench/delayproxy.c ($cc)"
		fail=1
	fi
done
exit "$fail"
