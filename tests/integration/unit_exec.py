#!/usr/bin/env python3
"""Runs a systemd service unit's ExecStart= line as systemd would start it,
without systemd: a clean environment (PATH=/usr/bin:/bin, then each
Environment= and EnvironmentFile= in order), the specifiers %i, %S and %d
expanded, LoadCredential= files copied into a private credentials folder,
StateDirectory= created, and the command line split as systemd splits it:
$VAR into words at white space, ${VAR} as one word.  It does not create a
user or apply the sandbox (DynamicUser=, Protect*=): those need systemd.

usage: unit_exec.py UNIT_FILE INSTANCE ROOT
  ROOT stands for / : /etc/... in the unit is read from ROOT/etc/...,
  %S is ROOT/var/lib, %d is ROOT/run/credentials/UNIT.
Exits with the command's status.
"""
import os
import re
import shlex
import shutil
import subprocess
import sys


def service_lines(path):
    """The (key, value) pairs of the [Service] section, in order."""
    out, section = [], None
    for raw in open(path):
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("["):
            section = line
            continue
        if section == "[Service]" and "=" in line:
            k, v = line.split("=", 1)
            out.append((k.strip(), v.strip()))
    return out


def env_file(path, env):
    for raw in open(path):
        line = raw.strip()
        if not line or line[0] in "#;" or "=" not in line:
            continue
        k, v = line.split("=", 1)
        env[k.strip()] = " ".join(shlex.split(v)) if v[:1] in "'\"" else v


def expand_command(line, env):
    words = []
    for w in shlex.split(line):
        m = re.fullmatch(r"\$\{(\w+)\}", w)
        if m:
            words.append(env.get(m.group(1), ""))
            continue
        m = re.fullmatch(r"\$(\w+)", w)
        if m:
            words += env.get(m.group(1), "").split()
            continue
        words.append(re.sub(r"\$\{(\w+)\}",
                            lambda g: env.get(g.group(1), ""), w))
    return words


def main():
    unit, instance, root = sys.argv[1:4]
    name = os.path.basename(unit).replace("@.", "@%s." % instance)
    creds = os.path.join(root, "run/credentials", name)
    spec = {"%i": instance, "%S": os.path.join(root, "var/lib"),
            "%d": creds, "%%": "%"}

    def sub(v):
        v = re.sub(r"%[iSd%]", lambda m: spec[m.group(0)], v)
        return re.sub(r"(?<![\w/])/etc/", root.rstrip("/") + "/etc/", v)

    env = {"PATH": "/usr/bin:/bin"}
    cmd = None
    for k, v in service_lines(unit):
        if k == "Environment":
            for a in shlex.split(sub(v)):
                ek, ev = a.split("=", 1)
                env[ek] = ev
        elif k == "EnvironmentFile":
            env_file(sub(v).lstrip("-"), env)
        elif k == "LoadCredential":
            cname, src = v.split(":", 1)
            os.makedirs(creds, exist_ok=True)
            shutil.copy(sub(src), os.path.join(creds, cname))
        elif k == "StateDirectory":
            for d in v.split():
                os.makedirs(os.path.join(spec["%S"], d), exist_ok=True)
        elif k == "ExecStart":
            cmd = v
    words = expand_command(sub(cmd), env)
    binary = os.environ.get("UNIT_EXEC_BINARY")
    if binary and not os.access(words[0], os.X_OK):
        words[0] = binary
    sys.exit(subprocess.run(words, env=env, cwd="/").returncode)


if __name__ == "__main__":
    main()
