#!/usr/bin/env bash
# examples/k8s-indexed-job.yaml's container run here as its 8 pods would
# run it, with no Kubernetes (none is installable offline: see t_k8s):
# tests/integration/k8s_pod.py reads the Job from the YAML and gives each
# pod I the environment the Job controller and the kubelet give it
# (JOB_COMPLETION_INDEX=I, the container's env, Kubernetes' $(VAR)
# expansion of the args) and runs the args with the built ferry, all 8 at
# once (parallelism: 8), as uid 65532 without capabilities when setpriv
# can (runAsUser, capabilities drop ALL, allowPrivilegeEscalation false).
# The test's substitutions, and only these:
#   - the image's entrypoint is the built ferry;
#   - s3://prod-archive and s3://prod-archive-dr are two test buckets, and
#     AWS_ENDPOINT_URL (S3) and AWS_ENDPOINT_URL_STS (fake_sts.py on
#     loopback) are added, since the pods would reach AWS's own;
#   - each volume's mount path is a folder under $WORK/pods/I, and the one
#     at /tmp is given as TMPDIR;
#   - the ConfigMap's ranges.json is made by "ferry ls SRC --ranges 8", as
#     the YAML's comment says;
#   - the projected token is a file of the test's, which fake_sts.py takes
#     from AWS_ROLE_ARN's role for the gateway's keys.
# Not reproduced: readOnlyRootFilesystem, seccomp, resource limits, the
# podFailurePolicy's retries (t_k8s checks the YAML's fields).
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"
export LC_ALL=C

YAML=${K8S_YAML:-$TOP/examples/k8s-indexed-job.yaml}
POD=$TOP/tests/integration/k8s_pod.py
SRC=k8ssrc-$$
DST=k8sdst-$$
N=64
ROLE=$(python3 -c 'import sys, yaml
j = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d and d["kind"] == "Job"][0]
c = j["spec"]["template"]["spec"]["containers"][0]
print([e["value"] for e in c["env"] if e["name"] == "AWS_ROLE_ARN"][0])' "$YAML")
STS_PID=
trap '[ -n "$STS_PID" ] && kill "$STS_PID" 2>/dev/null; rm -rf "$WORK"' EXIT

python3 "$POD" expand
is "$?" 0 "k8s_pod.py expands \$(VAR) as Kubernetes documents (\$\$ escapes, unknown stays)"

# The source: N keys under data/, pushed with the gateway's keys.
mkbucket "$SRC"
mkbucket "$DST"
python3 "$TOP/tests/integration/gen_tree.py" "$WORK/tree" "$N" 7 2048
"$FERRY" sync "$WORK/tree" "s3://$SRC/data" >/dev/null 2>"$WORK/push.err"
is "$?" 0 "the source bucket holds $N keys under data/"
mkdir -p "$WORK/cm"
"$FERRY" ls "s3://$SRC/data" --ranges 8 >"$WORK/cm/ranges.json"
is "$?" 0 "the ConfigMap's ranges.json: ferry ls SRC --ranges 8"

# STS: the web identity token of the projected volume for the role.
echo "k8s-projected-token-$$" >"$WORK/token"
python3 "$TOP/tests/integration/fake_sts.py" --port-file "$WORK/sts.port" \
	--role "$ROLE" --token-file "$WORK/token" --auth-token-file "$WORK/token" \
	--source-key none --source-secret none --lifetime 120 \
	2>"$WORK/sts.err" &
STS_PID=$!
STS="http://127.0.0.1:$(port_file "$WORK/sts.port")"
MAP=$(python3 -c 'import json, sys; print(json.dumps({
	"s3://prod-archive": "s3://" + sys.argv[1],
	"s3://prod-archive-dr": "s3://" + sys.argv[2],
	"configMap:ferry-ranges": sys.argv[3], "token": sys.argv[4],
	"env": {"AWS_ENDPOINT_URL": sys.argv[5],
		"AWS_ENDPOINT_URL_STS": sys.argv[6]}}))' "$SRC" "$DST" \
	"$WORK/cm" "$WORK/token" "$FERRY_TEST_ENDPOINT" "$STS")

# The pods' user: runAsUser and runAsGroup 65532, fsGroup 65532 as a
# supplementary group, no capabilities, no_new_privs.
WRAP=()
if [ "$(id -u)" -eq 0 ] && need setpriv; then
	WRAP=("$(command -v setpriv)" --reuid 65532 --regid 65532 --groups 65532
		--no-new-privs --inh-caps=-all --bounding-set=-all)
	chmod 0711 "$WORK"
	ok "the pods run as uid 65532 (setpriv)"
else
	ok "# SKIP not root or no setpriv: the pods run as uid $(id -u)"
fi

# pods NAME: the Job's 8 pods at once, pod I's JSON in $WORK/NAME.I.json and
# its stderr in $WORK/NAME.I.err; "I:STATUS" of each on stdout.
pods() {
	local i pids=()
	rm -rf "$WORK/pods"
	mkdir -p "$WORK/pods"
	chmod 0755 "$WORK/pods"
	for i in 0 1 2 3 4 5 6 7; do
		K8S_POD_SHOW=1 python3 "$POD" run "$YAML" "$i" "$WORK/pods" "$MAP" \
			-- "${WRAP[@]}" "$FERRY" >"$WORK/$1.$i.json" 2>"$WORK/$1.$i.err" &
		pids+=($!)
	done
	for i in 0 1 2 3 4 5 6 7; do
		wait "${pids[$i]}"
		printf '%d:%d ' "$i" "$?"
	done
}
# field NAME FILE...: NAME of each file's last summary
field() {
	local f out=
	for f in "$@"; do
		out="$out${out:+ }$(grep '"type":"summary"' "$f" | tail -n 1 |
			grep -o "\"$FIELD\":[^,}]*" | cut -d: -f2 | tr -d '"')"
	done
	printf '%s' "$out"
}
# listing BUCKET: "KEY ETAG" of each object under data/
listing() {
	python3 -c 'import sys
sys.path.insert(0, sys.argv[1])
from s3 import S3
for k, n, e, m in S3().objects(sys.argv[2], b"data/", full=True):
    print(k.decode("utf-8", "surrogateescape"), e)' \
		"$TOP/tests/integration" "$1"
}

t0=$SECONDS
curl -s -o /dev/null -d '' "$STS/reset"
st=$(pods run)
is "$st" "0:0 1:0 2:0 3:0 4:0 5:0 6:0 7:0 " \
	"the 8 pods at once each exit 0 ($((SECONDS - t0)) s)"
for p in $st; do
	[ "${p#*:}" = 0 ] || tail -n 5 "$WORK/run.${p%:*}.err" | sed "s/^/# pod ${p%:*}: /"
done
env0=$(head -n 1 "$WORK/run.3.err")
like "$env0" '"--shard", "3/8"' "pod 3's args hold --shard 3/8, from \$(JOB_COMPLETION_INDEX)"
like "$env0" '"JOB_COMPLETION_INDEX": "3"' "... and its env JOB_COMPLETION_INDEX=3"
if printf '%s' "$env0" | grep -q 'AWS_ACCESS_KEY_ID\|AWS_SECRET'; then
	not_ok "... and no keys in its env"
else
	ok "... and no keys in its env"
fi
FIELD=shard
is "$(field "$WORK"/run.[0-7].json)" "0/8 1/8 2/8 3/8 4/8 5/8 6/8 7/8" \
	"each pod's --json summary names its shard i/8"
FIELD=copied
is "$(field "$WORK"/run.[0-7].json | tr ' ' '\n' | awk '{ n += $1 } END { print n + 0 }')" \
	"$N" "the pods' copied counts add up to the $N keys: each copied once"
listing "$SRC" >"$WORK/src.list"
listing "$DST" >"$WORK/dst.list"
is "$(wc -l <"$WORK/dst.list")" "$N" "the destination holds $N keys"
check "... the source's keys with the source's ETags" \
	cmp -s "$WORK/src.list" "$WORK/dst.list"
counts=$(curl -s "$STS/counts")
n=$(printf '%s' "$counts" | grep -o '"web_identity": [0-9]*' | grep -o '[0-9]*$')
check "the pods took their keys from STS with the projected token ($n answers)" \
	[ "${n:-0}" -ge 8 ]
like "$counts" '"refused": 0,' "... for the YAML's AWS_ROLE_ARN"
if [ ${#WRAP[@]} -gt 0 ]; then
	is "$(find "$WORK/pods" -path '*/state/*' -newer "$WORK/token" -type f \
		! -uid 65532 | wc -l)" 0 "the pods' manifests are uid 65532's"
fi

# A second run finds nothing to do.
st=$(pods again)
FIELD=copied
is "$st/$(field "$WORK"/again.[0-7].json)" \
	"0:0 1:0 2:0 3:0 4:0 5:0 6:0 7:0 /0 0 0 0 0 0 0 0" \
	"the Job run again: all exit 0, none copies"

# Without the expansion of $(JOB_COMPLETION_INDEX) ($$ escapes it), a pod
# gets the literal "$(JOB_COMPLETION_INDEX)/8": a usage error, exit 2,
# which the podFailurePolicy makes fail the Job.
# shellcheck disable=SC2016 # a literal $(VAR), for Kubernetes
sed 's|\$(JOB_COMPLETION_INDEX)/8|$$(JOB_COMPLETION_INDEX)/8|' "$YAML" \
	>"$WORK/noexpand.yaml"
python3 "$POD" run "$WORK/noexpand.yaml" 0 "$WORK/pods/x" "$MAP" -- \
	"$FERRY" >/dev/null 2>"$WORK/noexpand.err"
is "$?" 2 "a pod given \$(JOB_COMPLETION_INDEX)/8 unexpanded exits 2"
echo "# the test took $SECONDS s"
done_testing
