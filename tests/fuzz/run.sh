#!/bin/sh
# Builds every fuzz target with libFuzzer (clang) and runs each for the
# given number of seconds (default 30).  A crash fails the run; its input is
# left in build-fuzz/ for a regression test.
set -eu
secs=${1:-30}
cd "$(dirname "$0")/../.."
out=build-fuzz
mkdir -p "$out"
pkgs="libcurl openssl libxxhash lmdb libcjson expat"
cflags="-g -O1 -std=c11 -D_GNU_SOURCE -I. $(pkg-config --cflags $pkgs)"
libs="$(pkg-config --libs $pkgs) -lpthread"
lib_src="$(ls common/*.c remote/*.c manifest/*.c sync/*.c | grep -v '^sync/main.c$')"
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
# the library is compiled once, instrumented, and linked into each target
rm -f "$out/libferry-fuzz.a"
for src in $lib_src; do
	obj="$out/obj/${src%.c}.o"
	mkdir -p "$(dirname "$obj")"
	# shellcheck disable=SC2086
	clang $cflags $san -fsanitize=fuzzer-no-link -c -o "$obj" "$src" || exit 1
	ar rcs "$out/libferry-fuzz.a" "$obj"
done
fail=0
for t in tests/fuzz/fuzz_*.c; do
	name=$(basename "$t" .c)
	echo "== $name ($secs s)"
	# shellcheck disable=SC2086
	clang $cflags $san -fsanitize=fuzzer -o "$out/$name" "$t" \
		"$out/libferry-fuzz.a" $libs
	corpus="$out/corpus-$name"
	mkdir -p "$corpus"
	[ -d "tests/fuzz/corpus/$name" ] && cp -r "tests/fuzz/corpus/$name/." "$corpus/"
	if ! "$out/$name" -max_total_time="$secs" -artifact_prefix="$out/$name-" \
		-print_final_stats=0 "$corpus" >"$out/$name.log" 2>&1; then
		echo "FAIL: $name (see $out/$name.log)"
		tail -n 30 "$out/$name.log"
		fail=1
	else
		grep -E '^#[0-9]+.*DONE' "$out/$name.log" | tail -n 1 || true
	fi
done
exit $fail
