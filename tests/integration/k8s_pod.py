#!/usr/bin/env python3
"""k8s_pod: one pod of an Indexed Job run here as the Job controller and
the kubelet would run it, without Kubernetes.

  k8s_pod.py expand                        the expansion's own table check
  k8s_pod.py run YAML INDEX ROOT MAP -- WRAPPER...
      makes the pod's volumes under ROOT/INDEX and execs WRAPPER... then
      the container's args, with the pod's environment and nothing else.

The environment is what the kubelet gives: the "kubernetes" Service's
variables (enableServiceLinks), the container's env entries in order, each
value expanded over the ones before it, then JOB_COMPLETION_INDEX, which
the Job controller appends to each container of an Indexed Job (unless the
container names it); the args are expanded over all of it.  The runtime
adds PATH, HOSTNAME (the Indexed Job's pod hostname) and HOME.

MAP is a JSON object of the test's substitutions, each applied to the
expanded env values and args as plain text: {"s3://prod-archive": ...}.
Mount paths are substituted by ROOT/INDEX/VOLUME; a ConfigMap volume is
filled from MAP["configMap:NAME"] (a folder), a projected service account
token from MAP["token"] (a file); fsGroup owns each volume, as the kubelet
makes it.  A volume mounted at /tmp is given as TMPDIR, ferry's stand-in
for /tmp.  MAP["env"] adds variables (the endpoints of the test servers).
"""
import json
import os
import shutil
import sys

import yaml


def expand(text, env):
    """Kubernetes' $(VAR) expansion (third_party/forked/golang/expansion):
    $(NAME) is NAME's value when env has it, else stays as written; $$ is
    one $; any other $ stays."""
    out, i = [], 0
    while i < len(text):
        c = text[i]
        if c != "$" or i + 1 == len(text):
            out.append(c)
            i += 1
        elif text[i + 1] == "$":
            out.append("$")
            i += 2
        elif text[i + 1] == "(":
            end = text.find(")", i + 2)
            if end < 0:
                out.append("$(")
                i += 2
                continue
            name = text[i + 2:end]
            out.append(env[name] if name in env else "$(%s)" % name)
            i = end + 1
        else:
            out.append(text[i:i + 2])
            i += 2
    return "".join(out)


TABLE = [("$(A)/8", "3/8"), ("$$(A)/8", "$(A)/8"), ("$(B)", "$(B)"),
         ("a$(A)$(A)", "a33"), ("$", "$"), ("$x", "$x"), ("$(A", "$(A"),
         ("$$$(A)", "$3"), ("$()", "$()"), ("$$", "$")]


def check_table():
    """0 when expand() gives the documented answers, else 1."""
    bad = [(t, w, expand(t, {"A": "3"})) for t, w in TABLE
           if expand(t, {"A": "3"}) != w]
    for t, w, got in bad:
        print("expand(%r) = %r, not %r" % (t, got, w))
    return 1 if bad else 0


def substitute(text, subs):
    """TEXT with each key of SUBS replaced, longest keys first."""
    for k in sorted(subs, key=len, reverse=True):
        if text == k or text.startswith(k + "/"):
            return subs[k] + text[len(k):]
    for k in sorted(subs, key=len, reverse=True):
        text = text.replace(k + "/", subs[k] + "/")
    return text


def make_volumes(spec, c, root, tmap):
    """{mountPath: folder}: each volume of container C made under ROOT."""
    gid = spec.get("securityContext", {}).get("fsGroup")
    vols = {v["name"]: v for v in spec.get("volumes", [])}
    mounts = {}
    for m in c.get("volumeMounts", []):
        v, d = vols[m["name"]], os.path.join(root, m["name"])
        os.makedirs(d)
        if "configMap" in v:
            src = tmap["configMap:" + v["configMap"]["name"]]
            for f in os.listdir(src):
                shutil.copy(os.path.join(src, f), d)
        for s in v.get("projected", {}).get("sources", []):
            if "serviceAccountToken" in s:
                p = os.path.join(d, s["serviceAccountToken"]["path"])
                shutil.copy(tmap["token"], p)
                os.chmod(p, v["projected"].get("defaultMode", 0o644))
        if gid is not None and os.getuid() == 0:
            for f in [d] + [os.path.join(d, f) for f in os.listdir(d)]:
                os.chown(f, -1, gid)
            os.chmod(d, 0o2775 if "emptyDir" in v else 0o2755)
        mounts[m["mountPath"]] = d
    return mounts


def pod(doc, index, root, tmap):
    """(argv, env) of the Job's first container in pod INDEX."""
    job = doc["spec"]
    spec = job["template"]["spec"]
    c = spec["containers"][0]
    root = os.path.join(root, str(index))
    subs = dict((k, v) for k, v in tmap.items() if k.startswith("s3://"))
    subs.update(make_volumes(spec, c, root, tmap))
    env = {"KUBERNETES_SERVICE_HOST": "10.96.0.1",
           "KUBERNETES_SERVICE_PORT": "443",
           "KUBERNETES_SERVICE_PORT_HTTPS": "443",
           "KUBERNETES_PORT": "tcp://10.96.0.1:443",
           "KUBERNETES_PORT_443_TCP": "tcp://10.96.0.1:443",
           "KUBERNETES_PORT_443_TCP_PROTO": "tcp",
           "KUBERNETES_PORT_443_TCP_PORT": "443",
           "KUBERNETES_PORT_443_TCP_ADDR": "10.96.0.1"}
    entries = list(c.get("env", []))
    if job.get("completionMode") == "Indexed" and not any(
            e["name"] == "JOB_COMPLETION_INDEX" for e in entries):
        entries.append({"name": "JOB_COMPLETION_INDEX", "value": str(index)})
    for e in entries:
        env[e["name"]] = expand(e["value"], env)
    args = [expand(a, env) for a in c.get("args", [])]
    env = {k: substitute(v, subs) for k, v in env.items()}
    args = [substitute(a, subs) for a in args]
    env.update({"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin"
                ":/sbin:/bin", "HOME": "/",
                "HOSTNAME": "%s-%d" % (doc["metadata"]["name"], index)})
    if "/tmp" in subs:  # the image's /tmp, ferry's default TMPDIR
        env["TMPDIR"] = subs["/tmp"]
    env.update(tmap.get("env", {}))
    return args, env


def main(argv):
    if argv[0] == "expand":
        return check_table()
    path, index, root, tmap = argv[1], int(argv[2]), argv[3], argv[4]
    wrapper = argv[argv.index("--") + 1:]
    doc = [d for d in yaml.safe_load_all(open(path))
           if d and d["kind"] == "Job"][0]
    args, env = pod(doc, index, root, json.loads(tmap))
    if os.environ.get("K8S_POD_SHOW"):
        print(json.dumps({"args": args, "env": env}), file=sys.stderr)
    os.execve(wrapper[0], wrapper + args, env)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
