#!/usr/bin/env bash
# examples/k8s-indexed-job.yaml against the Kubernetes API schema that
# Debian ships offline: the models of python3-kubernetes (its client
# 22.6, the API of Kubernetes 1.22).  Every field of both documents must
# be one the schema names, with a value of its type, except the fields
# newer than that schema, which are listed here (podFailurePolicy came in
# Kubernetes 1.25) and checked by hand against the documented API.
#
# No Kubernetes that can run a Job is installable from Debian 12 (it has
# kubectl 1.20 and etcd, no kube-apiserver, controller manager or kubelet,
# and no container image can be fetched here), so the Job itself is not
# run; t_examples checks what the Job says to ferry, and t_k8spod runs its
# container as its 8 pods would.
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"

cat >"$WORK/schema.py" <<'PY'
import sys, yaml
import kubernetes.client as k

# Fields the 22.6 models lack, each with the API version that added it.
NEWER = {"Job.spec.podFailurePolicy": "batch/v1 in Kubernetes 1.25"}


def check(value, typ, path, unknown):
    """Appends to unknown the paths of fields the schema does not name;
    raises on a value not of its field's type."""
    if typ.startswith("list["):
        assert isinstance(value, list), path + ": not a list"
        for i, v in enumerate(value):
            check(v, typ[5:-1], "%s[%d]" % (path, i), unknown)
    elif typ.startswith("dict("):
        assert isinstance(value, dict), path + ": not a map"
        vt = typ[5:-1].split(", ", 1)[1]
        for key, v in value.items():
            check(v, vt, "%s.%s" % (path, key), unknown)
    elif typ in ("str", "int", "bool"):
        want = {"str": str, "int": int, "bool": bool}[typ]
        ok = isinstance(value, want) and not (
            typ == "int" and isinstance(value, bool))
        assert ok, "%s: %r is not %s" % (path, value, typ)
    elif typ == "object":
        pass
    else:
        model = getattr(k, typ)
        assert isinstance(value, dict), path + ": not an object"
        names = {v: n for n, v in model.attribute_map.items()}
        for key, v in value.items():
            if key not in names:
                unknown.append("%s.%s" % (path, key))
                continue
            check(v, model.openapi_types[names[key]],
                  "%s.%s" % (path, key), unknown)


def pod_failure_policy(p):
    """The documented batch/v1 PodFailurePolicy (Kubernetes 1.26)."""
    for r in p["rules"]:
        assert set(r) <= {"action", "onExitCodes", "onPodConditions"}, r
        assert r["action"] in ("FailJob", "Ignore", "Count"), r
        assert ("onExitCodes" in r) != ("onPodConditions" in r), r
        e = r.get("onExitCodes")
        if e:
            assert set(e) <= {"containerName", "operator", "values"}, e
            assert e["operator"] in ("In", "NotIn"), e
            assert all(isinstance(v, int) for v in e["values"]), e
        for c in r.get("onPodConditions", []):
            assert set(c) <= {"type", "status"}, c
            assert isinstance(c["type"], str), c


docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
unknown = []
for d in docs:
    assert d["apiVersion"] in ("v1", "batch/v1"), d["apiVersion"]
    check(d, "V1" + d["kind"], d["kind"], unknown)
assert sorted(unknown) == sorted(NEWER), "fields not in the schema: %s" % (
    ", ".join(sorted(set(unknown) - set(NEWER))) or "none of " + str(NEWER))
job = [d for d in docs if d["kind"] == "Job"][0]
pod_failure_policy(job["spec"]["podFailurePolicy"])
assert job["spec"]["template"]["spec"]["restartPolicy"] == "Never", \
    "podFailurePolicy needs restartPolicy Never"
print("%d documents; newer than the schema: %s" % (len(docs), ", ".join(
    "%s (%s)" % kv for kv in sorted(NEWER.items()))))
PY

# schema FILE: the check above of FILE; its findings on stdout.
schema() {
	/usr/bin/python3 "$WORK/schema.py" "$1" 2>&1 | tail -n 1
	return "${PIPESTATUS[0]}"
}

out=$(schema "$TOP/examples/k8s-indexed-job.yaml")
is "$?" 0 "examples/k8s-indexed-job.yaml fits Debian's Kubernetes schema${out:+: $out}"

# The check can fail: a misspelt field, and a value of the wrong type.
sed 's/completionMode:/completionMod:/' "$TOP/examples/k8s-indexed-job.yaml" \
	>"$WORK/typo.yaml"
out=$(schema "$WORK/typo.yaml")
like "$out" "not in the schema: Job.spec.completionMod$" \
	"... and a misspelt field does not (${out##*: })"
sed 's/backoffLimit: 16 /backoffLimit: "16" /' \
	"$TOP/examples/k8s-indexed-job.yaml" >"$WORK/type.yaml"
out=$(schema "$WORK/type.yaml")
like "$out" "Job.spec.backoffLimit: '16' is not int" \
	"... nor a number given as a string"
done_testing
