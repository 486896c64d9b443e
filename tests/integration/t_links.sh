#!/usr/bin/env bash
# --links as a bucket writer would attack it: a pull makes a link only
# when its target, resolved through any other link the bucket makes (in
# any order, replaced or not), stays inside the folder pulled into.
# Chains of links, links to links and loops that stay inside are made;
# a '..' after a name ("l/.."), which a link at that name could lead
# out, is refused and reported per key, and nothing of it is made.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

B=links-$$
D=$WORK/dest
mkbucket "$B"
mkdir -p "$WORK/outside"
echo "not for the bucket" >"$WORK/outside/secret"

# link KEY TARGET: an object of a link, as a push with --links sends it.
link() {
	printf '%s' "$2" >"$WORK/obj"
	s3 put "$B" "$1.rclonelink" "$WORK/obj" x-amz-meta-mode:120777 >/dev/null
}
# file KEY TEXT: a plain object.
file() {
	printf '%s\n' "$2" >"$WORK/obj"
	s3 put "$B" "$1" "$WORK/obj" >/dev/null
}
# escapes DIR: the links under DIR whose resolution (through every link,
# as the kernel would) leaves DIR, one per line; none is "".
escapes() {
	python3 -c '
import os, sys
root = os.path.realpath(sys.argv[1])
for top, dirs, files in os.walk(root):
    for n in dirs + files:
        p = os.path.join(top, n)
        if os.path.islink(p):
            r = os.path.realpath(p)
            if os.path.commonpath([root, r]) != root:
                print(os.path.relpath(p, root), "->", r)' "$1"
}
# errors FILE: the keys a --json run reported as errors, sorted.
errors() {
	pick "$1" 'l["key"] for l in L if l["type"] == "error"'
}

# --- issue 35: a chain through "l -> ." climbs out of the folder
up=$(printf 'l/%.0s' $(seq 12))$(printf '../%.0s' $(seq 12))
link docs/l .
link docs/shadow "$up${WORK#/}/outside/secret"
link docs/esc l/..
"$FERRY" sync "s3://$B/docs" "$D" --links --json >"$WORK/attack.json" \
	2>"$WORK/attack.err"
is "$?" 1 "a pull with links that chain out of the folder exits 1"
is "$(errors "$WORK/attack.json")" "docs/esc.rclonelink docs/shadow.rclonelink" \
	"... reporting each such key"
like "$(cat "$WORK/attack.json")" "'l/\.\.' points outside the folder, or has a '\.\.' after a name" \
	"... saying why"
check "... making neither" test ! -L "$D/shadow" -a ! -e "$D/shadow" \
	-a ! -L "$D/esc"
is "$(readlink "$D/l")" . "... while the link that stays inside is made"
is "$(escapes "$D")" "" "no link under the folder resolves outside it"
"$FERRY" sync "s3://$B/docs" "$D" --links -q 2>"$WORK/again.err"
is "$?" 1 "a second pull refuses them again"
is "$(grep -c 'docs/shadow.rclonelink\|docs/esc.rclonelink' "$WORK/again.err")" 2 \
	"... naming each key on standard error"
"$FERRY" sync "s3://$B/docs" "$WORK/out2" --links-outside -q
is "$?" 0 "--links-outside still makes them, as asked"
is "$(cat "$WORK/out2/shadow")" "not for the bucket" "... even one that leads out"

# the same pull as nobody (root only): the check needs no privilege
if [ "$(id -u)" -eq 0 ]; then
	NB=$(mktemp -d /tmp/ferry-links-nobody.XXXXXX)
	trap 'stop_proxy; rm -rf "$WORK" "$NB"' EXIT
	chmod 755 "$NB"
	cp "$FERRY" "$NB/ferry" && chmod 755 "$NB/ferry"
	mkdir -p "$NB/state" "$NB/out" "$NB/outside" && chown nobody "$NB/state" "$NB/out"
	echo "not for the bucket" >"$NB/outside/secret"
	: >"$NB/empty" && chmod 644 "$NB/empty" "$NB/outside/secret"
	link nb/l .
	link nb/shadow "$up${NB#/}/outside/secret"
	(cd "$NB" && setpriv --reuid=nobody --regid=nogroup --clear-groups \
		env FERRY_STATE_DIR="$NB/state" AWS_SHARED_CREDENTIALS_FILE="$NB/empty" \
		AWS_CONFIG_FILE="$NB/empty" \
		"$NB/ferry" sync "s3://$B/nb" "$NB/out" --links -q) 2>"$WORK/nb.err"
	is "$?:$(grep -c 'nb/shadow.rclonelink: refused' "$WORK/nb.err")" 1:1 \
		"as nobody: the chain is refused, exit status 1"
	check "... and not made" test ! -L "$NB/out/shadow" -a -L "$NB/out/l"
else
	for _ in 1 2; do ok "# SKIP not root: no pull as nobody"; done
fi

# --- chains, links to links and loops that stay inside are made
file ok/sub/f "in sub"
link ok/a b
link ok/b c
link ok/c sub
link ok/ch a/f
link ok/sub/up ../a/f
link ok/sub/deep/top ../../ch
link ok/dot ./.
link ok/p q
link ok/q p
link ok/self self
link ok/dangling nowhere/at/all
"$FERRY" sync "s3://$B/ok" "$WORK/ok" --links --json >"$WORK/ok.json"
is "$?" 0 "a pull of links that stay inside exits 0"
is "$(summary "$WORK/ok.json" downloaded)" 12 "... making every one"
is "$(cat "$WORK/ok/ch") $(cat "$WORK/ok/sub/up") $(cat "$WORK/ok/sub/deep/top")" \
	"in sub in sub in sub" "... chains and links to links resolve"
is "$(readlink "$WORK/ok/p") $(readlink "$WORK/ok/q") $(readlink "$WORK/ok/self")" \
	"q p self" "... loops are made as they are"
is "$(escapes "$WORK/ok")" "" "... and none resolves outside"

# --- links replaced: whatever a later key or a later run makes of a name
# a target goes through, it cannot lead the target out
file rep/sub/f "in sub"
link rep/l sub
link rep/x l/f
"$FERRY" sync "s3://$B/rep" "$WORK/rep" --links -q
is "$?:$(cat "$WORK/rep/x")" "0:in sub" "a link through a link to a folder"
link rep/l .
link rep/y l/l/l/sub/f
link rep/z l/../outside/secret
link rep/w l/l/../..
"$FERRY" sync "s3://$B/rep" "$WORK/rep" --links --json >"$WORK/rep.json" \
	2>/dev/null
is "$?" 1 "when that link is replaced by one to '.', the next pull exits 1"
is "$(errors "$WORK/rep.json")" "rep/w.rclonelink rep/z.rclonelink" \
	"... refusing the targets with a '..' after a name"
is "$(readlink "$WORK/rep/l"):$(cat "$WORK/rep/y")" ".:in sub" \
	"... making the others, the replaced link among them"
is "$(escapes "$WORK/rep")" "" "... and none resolves outside"

# a real folder does not let a target climb after it either: a later key
# or run may make that name a link
file mid/a/f "in a"
link mid/a0 a/f
link mid/b a/../../outside/secret
link mid/z/a ..
"$FERRY" sync "s3://$B/mid" "$WORK/mid" --links --json >"$WORK/mid.json" \
	2>/dev/null
is "$?" 1 "links in the same pull as the names they go through"
is "$(errors "$WORK/mid.json")" "mid/b.rclonelink" "... the '..' after a name refused"
is "$(readlink "$WORK/mid/z/a")" .. "... a '..' the link's folders allow made"
is "$(escapes "$WORK/mid")" "" "... and none resolves outside"

# --- links already in the folder that this pull did not make (an older
# ferry's, --links-outside's, its owner's): a target is walked through
# them as they are on disk, and each must pass the rule from its own
# folder; one that leads out is never gone through
P=$WORK/pre
mkdir -p "$P/sub" "$P/sub2"
echo "in sub" >"$P/sub/f"
ln -s "$WORK/outside" "$P/l"
ln -s ../.. "$P/sub/up"
ln -s c3 "$P/c2"
ln -s ../../outside "$P/sub2/c3"
ln -s sub2/c3 "$P/c3"
ln -s q "$P/p"
ln -s p "$P/q"
ln -s sub "$P/in"
link pre/x l/secret
link pre/w l
link pre/v sub/up/outside/secret
link pre/c c2/secret
link pre/lp p/f
link pre/y in/f
link pre/z in/later/f
"$FERRY" sync "s3://$B/pre" "$P" --links --json >"$WORK/pre.json" \
	2>/dev/null
is "$?" 1 "a pull into a folder holding links that lead out exits 1"
is "$(errors "$WORK/pre.json")" \
	"pre/c.rclonelink pre/lp.rclonelink pre/v.rclonelink pre/w.rclonelink pre/x.rclonelink" \
	"... refusing each target that goes through one, or a loop"
like "$(cat "$WORK/pre.json")" "'l/secret' goes through the link l already in the folder, whose target '[^']*/outside' points outside it" \
	"... naming the link that leads out"
like "$(cat "$WORK/pre.json")" "'c2/secret' goes through the link sub2/c3 already in the folder, whose target '\.\./\.\./outside'" \
	"... at the end of a chain, from its own folder"
like "$(cat "$WORK/pre.json")" "'p/f' goes through more than 40 links" \
	"... and a loop as too long a chain"
check "... making none of them" test ! -L "$P/x" -a ! -L "$P/w" -a ! -L "$P/v" \
	-a ! -L "$P/c" -a ! -L "$P/lp"
is "$(cat "$P/y"):$(readlink "$P/z")" "in sub:in/later/f" \
	"... while links through a link that stays inside are made"

done_testing
