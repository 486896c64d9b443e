#!/usr/bin/python3
"""report.py: the markdown table of a benchmark run (bench/run.sh).

    report.py SCENARIOS.tsv RESULTS.tsv

SCENARIOS.tsv: "ID<TAB>DESCRIPTION" lines, in the order to print.
RESULTS.tsv: one line per measured run:
    scenario tool run wall user sys maxrss_kib rc
    list get head put post delete other total note
(tab-separated; note may be empty).

Per (scenario, tool) it prints the median over the runs that succeeded of
wall seconds, client CPU seconds (user + sys), peak RSS and each kind of
request, and on ferry's row the ratio of its median wall time to the best
peer's (curl, the raw ceiling, is not a peer: its row shows ferry's time
over curl's instead), and after it, "paired": the median over the runs
both succeeded of ferry's time over the other's in the same run (the
tools of one run go one after the other, so a machine whose speed drifts
during the bench moves both alike).
"""
import statistics
import sys

TOOL_ORDER = ["ferry", "rclone", "aws", "s3cmd", "curl"]
KINDS = ["list", "get", "head", "put", "post", "delete"]


def median(xs):
    return statistics.median(xs) if xs else None


def paired(a, b):
    """Median of a's wall time over b's, run by run, where both are good."""
    bw = {r["run"]: r["wall"] for r in b}
    xs = [r["wall"] / bw[r["run"]] for r in a
          if r["run"] in bw and bw[r["run"]] > 0]
    return median(xs)


def paired_s(x):
    return " (paired %.2f×)" % x if x is not None else ""


def fmt_s(x):
    if x is None:
        return "-"
    return "%.2f" % x if x < 100 else "%.0f" % x


def fmt_n(x):
    if x is None:
        return "-"
    x = round(x)
    return "{:,}".format(x)


def main(scen_file, res_file):
    scen = []
    with open(scen_file) as f:
        for line in f:
            line = line.rstrip("\n")
            if line:
                sid, desc = line.split("\t", 1)
                if sid not in [s for s, _ in scen]:
                    scen.append((sid, desc))
    rows = {}
    with open(res_file) as f:
        for line in f:
            p = line.rstrip("\n").split("\t")
            if len(p) < 16:
                continue
            r = dict(scenario=p[0], tool=p[1], run=int(p[2]),
                     wall=float(p[3]), cpu=float(p[4]) + float(p[5]),
                     rss=int(p[6]) / 1024.0, rc=int(p[7]),
                     req=dict(zip(KINDS, map(int, p[8:14]))),
                     note=p[16] if len(p) > 16 else "")
            rows.setdefault((p[0], p[1]), []).append(r)

    head = ("| scenario | tool | runs | wall s | CPU s | peak RSS MiB | "
            "LIST | GET | HEAD | PUT | POST | DELETE | ferry vs | notes |")
    out = [head, "|" + "---|" * 14]
    for sid, desc in scen:
        stats = {}
        for tool in TOOL_ORDER:
            runs = rows.get((sid, tool))
            if not runs:
                continue
            good = [r for r in runs if r["rc"] == 0 and not r["note"]]
            notes = sorted({r["note"] for r in runs if r["note"]})
            st = dict(n=len(runs), good=len(good), notes=notes, runs=good)
            if good:
                st["wall"] = median([r["wall"] for r in good])
                st["cpu"] = median([r["cpu"] for r in good])
                st["rss"] = median([r["rss"] for r in good])
                for k in KINDS:
                    st[k] = median([r["req"][k] for r in good])
            stats[tool] = st
        peers = [(st["wall"], t) for t, st in stats.items()
                 if t not in ("ferry", "curl") and "wall" in st]
        best = min(peers) if peers else None
        fw = stats.get("ferry", {}).get("wall")
        first = True
        for tool in TOOL_ORDER:
            st = stats.get(tool)
            if st is None:
                continue
            label = "**%s** %s" % (sid, desc) if first else ""
            first = False
            ratio = ""
            fr = stats.get("ferry", {}).get("runs", [])
            if tool == "ferry" and fw is not None and best:
                ratio = "%.2f× %s%s" % (fw / best[0], best[1], paired_s(
                    paired(fr, stats[best[1]]["runs"])))
            elif tool == "curl" and fw is not None and st.get("wall"):
                ratio = "ferry %.2f× curl%s" % (
                    fw / st["wall"], paired_s(paired(fr, st["runs"])))
            note = "; ".join(st["notes"])
            if st["good"] < st["n"] and st["good"]:
                note = ("%d of %d runs failed: " % (st["n"] - st["good"],
                                                   st["n"])) + note
            if "wall" not in st:
                cells = ["n/a" if any(n.startswith("n/a") for n in st["notes"])
                         else "fail"] + ["-"] * 8
            else:
                cells = [fmt_s(st["wall"]), fmt_s(st["cpu"]),
                         "%.0f" % st["rss"]] + [fmt_n(st[k]) for k in KINDS]
            out.append("| %s | %s | %d | %s | %s | %s |" % (
                label, tool, st["n"], " | ".join(cells), ratio, note))
    print("\n".join(out))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
