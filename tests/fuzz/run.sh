#!/bin/sh
# Builds every fuzz target with libFuzzer (clang) and runs each for the
# given number of seconds (default 30), as many at once as there are CPUs.
# A crash fails the run; its input is left in build-fuzz/ for a regression
# test.
#
#   run.sh [SECONDS]             build, then run
#   run.sh --build-only          build the targets, run none
#   run.sh --no-build [SECONDS]  run the targets an earlier --build-only
#                                built (CI builds them while the suites run)
set -eu
build=1
run=1
case ${1-} in
--build-only) run=0; shift ;;
--no-build) build=0; shift ;;
esac
secs=${1:-30}
cd "$(dirname "$0")/../.."
out="build-fuzz"
mkdir -p "$out"
jobs=$(nproc 2>/dev/null || echo 2)
pkgs="libcurl openssl libxxhash lmdb libcjson expat zlib"
cflags="-g -O1 -std=c11 -D_GNU_SOURCE -I. $(pkg-config --cflags $pkgs)"
libs="$(pkg-config --libs $pkgs) -lpthread"
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
export cflags san out libs

# the library is compiled once, instrumented, and linked into each target
if [ "$build" = 1 ]; then
	rm -rf "$out/libferry-fuzz.a" "$out/obj"
	ls common/*.c remote/*.c manifest/*.c sync/*.c sync/*/*.c | grep -v '^sync/main.c$' |
		xargs -P "$jobs" -I{} sh -c '
			src={}; obj="$out/obj/${src%.c}.o"
			mkdir -p "$(dirname "$obj")"
			exec clang $cflags $san -fsanitize=fuzzer-no-link -c -o "$obj" "$src"'
	ar rcs "$out/libferry-fuzz.a" $(find "$out/obj" -name '*.o' | sort)
	printf "%s\n" tests/fuzz/fuzz_*.c | xargs -P "$jobs" -I{} sh -c '
		name=$(basename {} .c)
		exec clang $cflags $san -fsanitize=fuzzer -o "$out/$name" {} \
			"$out/libferry-fuzz.a" $libs'
fi
[ "$run" = 1 ] || exit 0

# one target: seed its corpus, run; prints one line, fails on a crash
run_one() {
	name=$(basename "$1" .c)
	[ -x "$out/$name" ] || { echo "FAIL: $name is not built"; return 1; }
	corpus="$out/corpus-$name"
	mkdir -p "$corpus"
	[ -d "tests/fuzz/corpus/$name" ] && cp -r "tests/fuzz/corpus/$name/." "$corpus/"
	if ! "$out/$name" -max_total_time="$secs" -artifact_prefix="$out/$name-" \
		-print_final_stats=0 "$corpus" >"$out/$name.log" 2>&1; then
		echo "FAIL: $name (see $out/$name.log)"
		tail -n 30 "$out/$name.log"
		return 1
	fi
	echo "== $name ($secs s): $(grep -E '^#[0-9]+.*DONE' "$out/$name.log" | tail -n 1)"
}

fail=0
running=0
pids=""
for t in tests/fuzz/fuzz_*.c; do
	run_one "$t" &
	pids="$pids $!"
	running=$((running + 1))
	if [ "$running" -ge "$jobs" ]; then
		for p in $pids; do wait "$p" || fail=1; done
		pids=""
		running=0
	fi
done
for p in $pids; do wait "$p" || fail=1; done
exit $fail
