#!/usr/bin/env python3
"""Tables of benchmarks/two-hosts-cm.sh: per cmtime step and per ping-pong size, C (round c1, and c2
for drift), Java, and Java / C against the mean of the two C rounds.

usage: two-hosts-report.py RESULTS_DIR   (the dir holding machine.txt and B/)
"""
import pathlib
import re
import sys

STEPS = ["create id", "resolve addr", "resolve route", "create qp", "connect", "disconnect", "destroy"]
API = {"api connect": ["create id", "resolve addr", "resolve route", "create qp", "connect"],
       "api close": ["disconnect", "destroy"]}
ROW = re.compile(r"^(?P<step>[a-z ]+?)\s*:\s+(?P<total>[\d.]+)\s+(?P<max>[\d.]+)\s+(?P<min>[\d.]+)"
                 r"\s+(?P<per>[\d.]+)(?:\s+(?P<issue>[\d.]+))?\s*$")
PING = re.compile(r"^pingpong size (\d+) count (\d+) mean_us ([\d.]+) median_us ([\d.]+) p99_us ([\d.]+) "
                  r"min_us ([\d.]+) post_us ([\d.]+)")


def cmtime(path):
    """The cmtime-format tables of one output, one per pass ("pass N of M" lines part them): each
    {step: (us per connection, issue us per connection or None)}."""
    passes = [{}]
    if not path.exists():
        return passes
    for line in path.read_text(errors="replace").splitlines():
        if line.startswith("pass ") and passes[-1]:
            passes.append({})
        m = ROW.match(line)
        if m:
            issue = m.group("issue")
            passes[-1][m.group("step").strip()] = (float(m.group("per")), float(issue) if issue else None)
    return passes


def pingpong(path):
    if not path.exists():
        return None
    for line in path.read_text(errors="replace").splitlines():
        m = PING.match(line)
        if m:
            return {"mean": float(m.group(3)), "median": float(m.group(4)), "p99": float(m.group(5)),
                    "min": float(m.group(6)), "post": float(m.group(7))}
    return None


def fmt(v, digits=1):
    return "-" if v is None else f"{v:,.{digits}f}"


def ratio(java, c1, c2):
    cs = [c for c in (c1, c2) if c is not None]
    if java is None or not cs:
        return "-"
    c = sum(cs) / len(cs)
    return "-" if c == 0 else f"{java / c:.2f}"


def main():
    out = pathlib.Path(sys.argv[1])
    b = out / "B"
    print("# Connections across two soft-RoCE guests: C and Java in one pair of boots\n")
    machine = out / "machine.txt"
    if machine.exists():
        print("```\n" + machine.read_text().strip() + "\n```\n")

    c1, c2 = (cmtime(b / f"{r}-cmtime.txt")[0] for r in ("c1", "c2"))
    java = cmtime(b / "java-cmtime.txt")
    cold, warm = java[0], java[-1]
    print("## cmtime: microseconds per connection per step (total of the step / connections)\n")
    print("Java pass 1 is a fresh JVM, as cmtime is a fresh process; the last pass runs in the same JVM "
          f"after {len(java) - 1} more (warm). Ratios against the mean of the two C rounds.\n")
    print("| step | C (cmtime) | C again | Java pass 1 | Java / C | Java warm | warm / C "
          "| Java pass 1: issuing thread | warm: issuing thread |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")

    def value(t, step):
        return t.get(step, (None, None))[0]

    def issue(t, step):
        return t.get(step, (None, None))[1]

    def row(label, a, z, j, w, ij, iw):
        print(f"| {label} | {fmt(a)} | {fmt(z)} | {fmt(j)} | {ratio(j, a, z)} | {fmt(w)} | {ratio(w, a, z)} "
              f"| {fmt(ij)} | {fmt(iw)} |")

    for step in STEPS:
        row(step, value(c1, step), value(c2, step), value(cold, step), value(warm, step), issue(cold, step),
            issue(warm, step))
    for step, parts in API.items():
        sums = []
        for t in (c1, c2):
            vals = [value(t, p) for p in parts]
            sums.append(None if None in vals else sum(vals))
        row(f"{step} (C: {' + '.join(parts)})", sums[0], sums[1], value(cold, step), value(warm, step),
            issue(cold, step), issue(warm, step))

    print("\n## Ping-pong: one RC connection, send/recv round trip, microseconds\n")
    print("| size | C mean | C again | Java mean | Java / C | C median | Java median | C p99 | Java p99 "
          "| C in posts | Java in posts |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    sizes = sorted({int(p.stem.rsplit("-", 1)[1]) for p in b.glob("*-pingpong-*.txt")})
    for size in sizes:
        a, j, z = (pingpong(b / f"{r}-pingpong-{size}.txt") for r in ("c1", "java", "c2"))

        def get(d, k):
            return None if d is None else d[k]
        print(f"| {size} | {fmt(get(a, 'mean'))} | {fmt(get(z, 'mean'))} | {fmt(get(j, 'mean'))} | "
              f"{ratio(get(j, 'mean'), get(a, 'mean'), get(z, 'mean'))} | {fmt(get(a, 'median'))} | "
              f"{fmt(get(j, 'median'))} | {fmt(get(a, 'p99'))} | {fmt(get(j, 'p99'))} | "
              f"{fmt(get(a, 'post'), 2)} | {fmt(get(j, 'post'), 2)} |")

    missing = [p.name for p in sorted(b.glob("*.txt")) if "exit 0" not in p.read_text(errors="replace")
               and p.name != "guest-kernel.txt"]
    if missing:
        print("\nRuns that did not exit 0 (see B/ and A/): " + ", ".join(missing))


if __name__ == "__main__":
    main()
