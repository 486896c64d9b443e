#!/usr/bin/env bash
# ferry verify: a destination in step exits 0; a missing object is found
# from the listing alone, one flipped bit only by re-reading the bytes
# (--full); a pulled file changed behind ferry's back and a mirror are
# checked too; every --json line is valid against the schema; and the
# gateway sees nothing but listings, GETs and HEADs.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

PATH=/usr/bin:$PATH
B=verify-$$
T=$WORK/tree
mkbucket "$B"
mkdir -p "$T/d"
for i in $(seq 12); do
	head -c $((i * 1000)) /dev/urandom >"$T/d/f$i.bin"
done
echo small >"$T/a.txt"
# multipart: its ETag is the MD5 of its parts' MD5s
head -c $(($(mib 10 9) << 20)) /dev/urandom >"$T/big.bin"

# writes MARK: the requests since MARK that are not listings, GETs or
# HEADs.
writes() {
	echo $(($(requests "$1" total) - $(requests "$1" list) - \
		$(requests "$1" get) - $(requests "$1" head)))
}

"$FERRY" sync "$T" "s3://$B/p" -q
is "$?" 0 "the push to verify exits 0"

# (a) in step: exit 0, quick and --full, writing nothing
m=$(mark)
"$FERRY" verify "$T" "s3://$B/p" >"$WORK/a.out" 2>"$WORK/a.err"
is "$?" 0 "verify of a destination in step exits 0"
is "$(wc -c <"$WORK/a.out")" 0 "... and reports no drift"
"$FERRY" verify "$T" "s3://$B/p" --full --json >"$WORK/a.json"
is "$?" 0 "verify --full of it exits 0"
check "... every line is valid against the schema" json_valid "$WORK/a.json"
is "$(pick "$WORK/a.json" 'l["reread"] for l in L if l["type"] == "verified"')" \
	14 "... having re-read all 14 objects"
is "$(pick "$WORK/a.json" 'l["bytes_read"] for l in L if l["type"] == "verified"')" \
	"$(cat "$T"/a.txt "$T"/big.bin "$T"/d/* | wc -c)" "... all their bytes"
is "$(requests "$m" get)" 14 "... by one GET each"
is "$(writes "$m")" 0 "... and the gateway saw only listings, GETs and HEADs"

# (b) a bit flipped on the way back is found by --full only
start_proxy b --always --kinds flip --only-methods GET --match '/p/d/f7[.]bin$'
m=$(mark)
"$FERRY" verify "$T" "s3://$B/p" --endpoint-url "$PROXY" >"$WORK/b0.out" \
	2>"$WORK/b0.err"
is "$?" 0 "verify without --full does not read the bytes: exits 0"
"$FERRY" verify "$T" "s3://$B/p" --endpoint-url "$PROXY" --full --json \
	>"$WORK/b.json" 2>"$WORK/b.err"
is "$?" 1 "verify --full with one bit flipped in f7.bin exits 1"
check "... every line is valid against the schema" json_valid "$WORK/b.json"
is "$(pick "$WORK/b.json" 'l["kind"] + ":" + l["key"] for l in L if l["type"] == "drift"')" \
	"bytes:p/d/f7.bin" "... naming f7.bin's bytes, and nothing else"
check "... the bit was flipped" grep -q "fault flip GET" "$WORK/b.log"
is "$(writes "$m")" 0 "... and the gateway saw only listings, GETs and HEADs"
stop_proxy

# (c) an object deleted behind ferry's back: found from the listing
s3 del "$B" p/d/f3.bin
m=$(mark)
"$FERRY" verify "$T" "s3://$B/p" >"$WORK/c.out" 2>"$WORK/c.err"
is "$?" 1 "verify with one object missing exits 1"
like "$(cat "$WORK/c.out")" '^missing +p/d/f3[.]bin: not at the destination$' \
	"... naming it, on one line"
is "$(wc -l <"$WORK/c.out")" 1 "... and nothing else"
is "$(requests "$m" get)" 0 "... without reading any object"
is "$(writes "$m")" 0 "... nor anything but listings, GETs and HEADs"
s3 put "$B" p/d/f3.bin "$T/d/f3.bin"
"$FERRY" verify "$T" "s3://$B/p" >"$WORK/c1.out" 2>"$WORK/c1.err"
is "$?" 0 "the same bytes put back by another tool: in step again"
head -c 3000 /dev/urandom >"$WORK/other"
s3 put "$B" p/d/f3.bin "$WORK/other"
"$FERRY" verify "$T" "s3://$B/p" --json >"$WORK/c2.json"
is "$?" 1 "other bytes of the same size put there: drift (its ETag)"
is "$(pick "$WORK/c2.json" 'l["kind"] for l in L if l["type"] == "drift"')" \
	etag "... as an ETag the manifest did not record"

# (d) without a manifest: sizes and ETags, and the bytes by what the
# objects say of themselves
s3 put "$B" p/d/f3.bin "$T/d/f3.bin"
mkdir "$WORK/tmp"
TMPDIR=$WORK/tmp "$FERRY" verify "$T" "s3://$B/p" --full \
	--manifest "$WORK/none" >"$WORK/d.out" 2>"$WORK/d.err"
is "$?" 0 "verify --full with no manifest exits 0 on a tree in step"
check "... and makes no manifest" test ! -e "$WORK/none"
is "$(ls -A "$WORK/tmp")" "" "... leaving no folder of its own behind"

# (e) a pull: a file changed behind ferry's back, its size and mtime kept
P=$WORK/pulled
"$FERRY" sync "s3://$B/p" "$P" -q
is "$?" 0 "the pull to verify exits 0"
"$FERRY" verify "s3://$B/p" "$P" --full >"$WORK/e0.out" 2>"$WORK/e0.err"
is "$?" 0 "verify --full of the pulled tree exits 0"
# pulled in ranges of another size than its parts went up in: the ranges
# say nothing of the parts its multipart ETag was made of
"$FERRY" sync "s3://$B/p" "$WORK/pulled5" -q --part-size 5M
is "$?" 0 "a pull in ranges of 5 MiB exits 0"
"$FERRY" verify "s3://$B/p" "$WORK/pulled5" --full >"$WORK/e5.out" \
	2>"$WORK/e5.err"
is "$?" 0 "verify --full of it exits 0: no drift in big.bin"
is "$(cat "$WORK/e5.out")" "" "... and reports no drift"
check "... checking every object" grep -q "0 drift, 0 unchecked, 0 failed" \
	"$WORK/e5.err"
rm -rf "$WORK/pulled5"
printf 'X' | dd of="$P/d/f5.bin" bs=1 seek=100 conv=notrunc 2>/dev/null
touch -r "$T/d/f5.bin" "$P/d/f5.bin"
m=$(mark)
"$FERRY" verify "s3://$B/p" "$P" --json >"$WORK/e.json"
is "$?" 1 "verify of the pulled tree with f5.bin changed exits 1"
check "... every line is valid against the schema" json_valid "$WORK/e.json"
is "$(pick "$WORK/e.json" 'l["kind"] + ":" + l["path"] for l in L if l["type"] == "drift"')" \
	"content:d/f5.bin" "... naming the file"
"$FERRY" verify "s3://$B/p" "$P" --full --manifest "$WORK/none" --json \
	>"$WORK/e2.json"
is "$?" 1 "with no manifest, --full finds it by its bytes"
is "$(pick "$WORK/e2.json" 'l["kind"] + ":" + l["path"] for l in L if l["type"] == "drift"')" \
	"bytes:d/f5.bin" "... naming the file"
is "$(writes "$m")" 0 "... and the gateway saw only listings, GETs and HEADs"

# (f) a mirror; --sample re-reads some
"$FERRY" sync "s3://$B/p" "s3://$B/m" -q
is "$?" 0 "the mirror to verify exits 0"
m=$(mark)
"$FERRY" verify "s3://$B/p" "s3://$B/m" --sample 50% --json >"$WORK/f.json"
is "$?" 0 "verify --sample 50% of the mirror exits 0"
n=$(pick "$WORK/f.json" 'l["reread"] for l in L if l["type"] == "verified"')
check "... re-reading some of the 14 objects, not all ($n)" \
	test "$n" -gt 0 -a "$n" -lt 14
is "$(writes "$m")" 0 "... and the gateway saw only listings, GETs and HEADs"
s3 del "$B" m/a.txt
"$FERRY" verify "s3://$B/p" "s3://$B/m" >"$WORK/f2.out" 2>"$WORK/f2.err"
is "$?" 1 "verify of the mirror with a.txt deleted exits 1"
like "$(cat "$WORK/f2.out")" '^missing +m/a[.]txt' "... naming it"

# (g) a multipart object another tool wrote: without a manifest, nothing
# tells what its bytes should hash to
awscli s3 cp --quiet "$T/big.bin" "s3://$B/u/big.bin"
"$FERRY" sync "s3://$B/u" "$WORK/u" -q
is "$?" 0 "the pull of another tool's multipart object exits 0"
"$FERRY" verify "s3://$B/u" "$WORK/u" --full --manifest "$WORK/none" --json \
	>"$WORK/g.json"
is "$?" 0 "verify --full of it with no manifest exits 0"
is "$(pick "$WORK/g.json" 'l["type"] + ":" + l["path"] for l in L if l["type"] in ("drift", "unchecked")')" \
	"unchecked:big.bin" "... saying it could not check the bytes"
"$FERRY" verify "s3://$B/u" "$WORK/u" --full --json >"$WORK/g2.json"
is "$?" 0 "with the manifest, the bytes are checked against those written"
is "$(pick "$WORK/g2.json" 'l["reread"] - l["unchecked"] for l in L if l["type"] == "verified"')" \
	1 "... and nothing is left unchecked"

# (h) the command line
"$FERRY" verify "$T" "s3://$B/p" --sample 0 2>"$WORK/h.err"
is "$?" 2 "--sample 0 is refused"
"$FERRY" sync "$T" "s3://$B/p" --full 2>"$WORK/h2.err"
is "$?" 2 "--full is verify's only"
"$FERRY" verify "$T" 2>"$WORK/h3.err"
is "$?" 2 "verify takes a SOURCE and a DESTINATION"

done_testing
