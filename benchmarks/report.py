#!/usr/bin/env python3
"""Turns the raw results of benchmarks/run.sh into the markdown tables of docs/performance.md.

usage: report.py RESULTS_DIR > report.md

Reads what is there (hotpath.json, hotpath-c.txt, guest/lifecycle*.{json,txt}, scale.json, graph-walk-c.txt, heap.txt,
spring.json, spring-heap.txt, machine.txt) and prints one table per benchmark. Every figure is a median over all measurement
iterations of all forks; the error is JMH's 99.9% confidence half-width (for the C programs, the
same statistic computed here).
"""
import json
import math
import statistics
import sys
from pathlib import Path

# Student's t, two-sided 99.9% (JMH's default confidence), by degrees of freedom.
T999 = {1: 636.619, 2: 31.599, 3: 12.924, 4: 8.610, 5: 6.869, 6: 5.959, 7: 5.408, 8: 5.041, 9: 4.781,
        10: 4.587, 11: 4.437, 12: 4.318, 13: 4.221, 14: 4.140, 15: 4.073, 16: 4.015, 17: 3.965, 18: 3.922,
        19: 3.883, 20: 3.850, 21: 3.819, 22: 3.792, 23: 3.768, 24: 3.745, 25: 3.725, 26: 3.707, 27: 3.690,
        28: 3.674, 29: 3.659, 30: 3.646, 40: 3.551, 60: 3.460, 120: 3.373}

OPS = [("poll1", "`poll`, empty CQ, batch 1"), ("poll16", "`poll`, empty CQ, batch 16"),
       ("reqNotify", "`requestNotification` (req_notify_cq)"), ("postSend", "`postSend`, 1 WR, 1 SGE"),
       ("postRecv", "`postReceive`, 1 WR, 1 SGE")]


def t999(df):
    if df in T999:
        return T999[df]
    for k in sorted(T999):
        if k > df:
            return T999[k]
    return 3.291


def error(values):
    if len(values) < 2:
        return float("nan")
    return t999(len(values) - 1) * statistics.stdev(values) / math.sqrt(len(values))


class Result:
    def __init__(self, values, err, alloc=None):
        self.values = values
        self.median = statistics.median(values)
        self.error = err
        self.alloc = alloc


def number(x):
    """JMH writes NaN (too few iterations for an error) as a string."""
    try:
        return float(x)
    except (TypeError, ValueError):
        return float("nan")


def jmh(path):
    """benchmark name (class.method[scope=..]) -> Result."""
    out = {}
    if not path.exists():
        return out
    for b in json.loads(path.read_text()):
        name = ".".join(b["benchmark"].split(".")[-2:])
        params = b.get("params") or {}
        name += "".join(f"[{k}={v}]" for k, v in sorted(params.items()))
        pm = b["primaryMetric"]
        values = [v for fork in pm["rawData"] for v in fork]
        alloc = None
        for key, m in (b.get("secondaryMetrics") or {}).items():
            if key.lstrip("\u00b7") == "gc.alloc.rate.norm":
                alloc = number(m["score"])
        out[name] = Result(values, number(pm["scoreError"]), alloc)
    return out


def columns(path, value_column, key_columns=1):
    """Lines "<key...> <value...>" -> key -> list of values (floats from value_column)."""
    out = {}
    if not path.exists():
        return out
    for line in path.read_text().splitlines():
        f = line.split()
        if len(f) <= value_column:
            continue
        out.setdefault(" ".join(f[:key_columns]), []).append(float(f[value_column]))
    return out


def fmt(x, digits=2):
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    return f"{x:.{digits}f}"


def cell(r, digits=2, scale=1.0):
    if r is None:
        return "n/a"
    return f"{fmt(r.median / scale, digits)} ± {fmt(r.error / scale, digits)}"


def cpu(results):
    """The CPU the figures are of, as run.sh recorded it (the benchmarks print it too: "# cpu: ...")."""
    machine = results / "machine.txt"
    if machine.exists():
        for line in machine.read_text().splitlines():
            if line.startswith("cpu:"):
                return line[len("cpu:"):].strip()
    return "unknown CPU"


def hotpath(results):
    runs = jmh(results / "hotpath.json")
    if not runs:
        return
    cross = columns(results / "hotpath-c.txt", 1)
    print(f"### Hot path (host, {cpu(results)}): ns per call, median ± 99.9% error\n")
    print("| call | C (JMH) | C (clock_gettime) | FFM floor, bare segments | shared-arena floor (issue 20's) "
          "| FFM floor as the binding passes (longs) | provider SPI | project API | API − shared-arena floor "
          "(goal ≤ 1 poll, notify; ≤ 3 posts) | API / C | API B/op |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for op, label in OPS:
        c = runs.get(f"CLoop.{op}")
        g = runs.get(f"RawDowncall.{op}[scope=global]")
        # Issue 20's yardstick: memory in shared arenas, a post's errno slot inside its request.
        s = runs.get(f"RawDowncall.{op}[scope=sharedErrnoInRequest]")
        lng = runs.get(f"LongAddresses.{op}Longs")
        p = runs.get(f"ProviderCalls.{op}")
        a = runs.get(f"ApiCalls.{op}")
        cc = cross.get(op)
        cc_cell = f"{fmt(statistics.median(cc))} ± {fmt(error(cc))}" if cc else "n/a"
        over = fmt(a.median - s.median, 1) if a and s else "n/a"
        ratio_a = fmt(a.median / c.median) if a and c else "n/a"
        alloc = fmt(a.alloc, 3) if a and a.alloc is not None else "n/a"
        print(f"| {label} | {cell(c)} | {cc_cell} | {cell(g)} | {cell(s)} | {cell(lng)} | {cell(p)} | {cell(a)} "
              f"| **{over}** | {ratio_a} | {alloc} |")
    print()
    allocs = [(n, r.alloc) for n, r in runs.items() if r.alloc is not None]
    if allocs:
        worst = max(allocs, key=lambda x: x[1])
        print(f"Allocation (`-prof gc`, gc.alloc.rate.norm): at most {fmt(worst[1], 3)} B/op over all "
              f"{len(allocs)} hot-path benchmarks (largest: `{worst[0]}`).\n")
    scopes = [("global", "bare addresses"), ("shared", "shared-arena request, errno in a per-thread slot"),
              ("sharedErrnoInRequest", "shared-arena request, errno slot inside the request's arena")]
    if any(n.startswith("ErrnoCapture.") for n in runs):
        print("FFM floor of one post, by the memory passed and errno capture (ns per call; the binding captures "
              "none on the data path since 2026-12-03, and passes longs since 2026-12-08):\n")
        print("| memory passed | post_send, errno captured | not captured | post_recv, errno captured | not captured |")
        print("| --- | ---: | ---: | ---: | ---: |")
        for k, label in scopes:
            cells = [cell(runs.get(f"ErrnoCapture.{m}[scope={k}][verb={v}]"))
                     for v in ("post_send", "post_recv") for m in ("postCaptured", "postPlain")]
            print(f"| {label} | " + " | ".join(cells) + " |")
        print()
    chains(runs, cpu(results))


def chains(runs, cpu_model):
    """BatchCalls: ns per WR of a 16-WR chain; API / C split at the raw FFM floor."""
    if not any(n.startswith("BatchCalls.") for n in runs):
        return
    print(f"### 16-WR chains ({cpu_model}): ns per WR, median ± 99.9% error\n")
    print("| chain | C | raw FFM floor (no errno) | provider SPI | project API | floor / C | API / floor | API / C (goal ≤ 1.5) |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for kind in ("Send", "Recv"):
        c = runs.get(f"BatchCalls.c{kind}Chain")
        f = runs.get(f"BatchCalls.raw{kind}ChainNoErrno")
        p = runs.get(f"BatchCalls.provider{kind}Chain")
        a = runs.get(f"BatchCalls.api{kind}Chain")
        ratio = lambda x, y: fmt(x.median / y.median) if x and y else "n/a"
        print(f"| {kind.lower()} | {cell(c)} | {cell(f)} | {cell(p)} | {cell(a)} | {ratio(f, c)} | {ratio(a, f)} "
              f"| **{ratio(a, c)}** |")
    print()


PAIRS = [("pd", "alloc + dealloc PD"), ("cq", "create + destroy CQ (256 entries)"),
         ("qp", "create + destroy RC QP (64/64 WRs, 1 SGE)"), ("mr", "reg + dereg 64 KiB MR")]


def level(runs, cls, op):
    return next((r for n, r in runs.items() if n.startswith(f"{cls}.{op}[")), None)


def lifecycle(results):
    guest = results / "guest"
    runs = jmh(guest / "lifecycle.json")
    c1 = columns(guest / "lifecycle-c-1.txt", 2)
    c2 = columns(guest / "lifecycle-c-2.txt", 2)
    if runs or c1:
        print("### Lifecycle on soft-RoCE (rxe0 in the qemu TCG guest, C1-only JVM): µs per create + destroy "
              "pair, median ± 99.9% error\n")
        print("| pair | C, before Java | C, after Java | FFM floor | provider SPI | project API "
              "| C / provider | C / API (goal ≥ 0.9) |")
        print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        for op, label in PAIRS:
            raw, prov, api = (level(runs, c, op) for c in ("RawPairs", "ProviderPairs", "ApiPairs"))
            cells = []
            for c in (c1.get(op), c2.get(op)):
                cells.append(f"{fmt(statistics.median(c) / 1000)} ± {fmt(error(c) / 1000)}" if c else "n/a")
            both = (c1.get(op) or []) + (c2.get(op) or [])
            cm = statistics.median(both) if both else None
            rp = fmt(cm / prov.median) if cm and prov else "n/a"
            ra = fmt(cm / api.median) if cm and api else "n/a"
            print(f"| {label} | {cells[0]} | {cells[1]} | {cell(raw, 2, 1000)} | {cell(prov, 2, 1000)} "
                  f"| {cell(api, 2, 1000)} | {rp} | **{ra}** |")
        print()
    host = jmh(results / "lifecycle-host.json")
    hc = columns(results / "lifecycle-host-c.txt", 2)
    if host:
        print("### Lifecycle on this host over the fake provider (no device, no emulation, C2): ns per pair, "
              "median ± 99.9% error\n")
        print("| pair | C | FFM floor | provider SPI | project API | API − C (ns) | provider B/op | API B/op |")
        print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        for op, label in PAIRS:
            raw, prov, api = (level(host, c, op) for c in ("RawPairs", "ProviderPairs", "ApiPairs"))
            c = hc.get(op)
            c_cell = f"{fmt(statistics.median(c), 1)} ± {fmt(error(c), 1)}" if c else "n/a"
            gap = fmt(api.median - statistics.median(c), 0) if api and c else "n/a"
            pa = fmt(prov.alloc, 0) if prov and prov.alloc is not None else "n/a"
            aa = fmt(api.alloc, 0) if api and api.alloc is not None else "n/a"
            print(f"| {label} | {c_cell} | {cell(raw, 1)} | {cell(prov, 1)} | {cell(api, 1)} | {gap} "
                  f"| {pa} | {aa} |")
        print()


def slope(points):
    """Least-squares slope and intercept of (x, y)."""
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    sxx = sum((x - mx) ** 2 for x, _ in points)
    b = sum((x - mx) * (y - my) for x, y in points) / sxx
    return b, my - b * mx


def sized(runs, names, param, unit="ms"):
    """One row per benchmark name, one column per value of the integer parameter `param`; the slope
    is the least-squares fit of the median against the parameter, in µs per unit of it."""
    sizes = sorted({int(n.split(f"{param}=")[1].split("]")[0]) for n in runs if f"{param}=" in n})
    rows = []
    for name, label in names:
        rs = {s: next((r for n, r in runs.items() if n.startswith(name + "[") and f"[{param}={s}]" in n), None)
              for s in sizes}
        if any(rs.values()):
            rows.append((label, rs))
    return sizes, rows


def per_size_table(runs, names, param, what, unit=None):
    sizes, rows = sized(runs, names, param)
    if not rows:
        return
    unit = unit or param.rstrip("s")
    # With a 0 column, the cost per unit is what each size adds to it; without, the whole time per unit.
    per_head = f"above 0, per {unit}" if 0 in sizes else f"per {unit}"
    print(f"| {what} | " + " | ".join(f"{s:,} {param}" for s in sizes)
          + f" | slope (µs / {unit}) | {per_head} at smallest → largest (µs) | B/op at largest |")
    print("| --- | " + " | ".join("---:" for _ in sizes) + " | ---: | ---: | ---: |")
    for label, rs in rows:
        pts = [(s, r.median) for s, r in rs.items() if r]
        b, _ = slope(pts) if len(pts) > 1 else (float("nan"), 0)
        base = rs[0].median if rs.get(0) else 0.0
        per = " → ".join(fmt((r.median - base) * 1000 / s) for s, r in rs.items() if r and s > 0)
        largest = rs[sizes[-1]]
        alloc = f"{largest.alloc / 1e6:.1f} MB" if largest and largest.alloc is not None else "n/a"
        print(f"| {label} | " + " | ".join(cell(rs[s]) for s in sizes)
              + f" | {fmt(b * 1000)} | {per} | {alloc} |")
    print()


def heap_tables(path, first_column, size_suffix, title, labels=None, classes_of=None):
    """heap <label> <n> <round> <bytes> lines: one row per label (sorted unless given), a column per n;
    class lines: the largest growth, one table per label in classes_of, titled title.format(label)."""
    heap = columns(path, 4, key_columns=3)
    if not heap:
        return
    labels = labels or sorted({k.split()[1] for k in heap})
    sizes = sorted({int(k.split()[2]) for k in heap})
    print(f"| {first_column} | " + " | ".join(f"{s:,}{size_suffix}" for s in sizes) + " |")
    print("| --- | " + " | ".join("---:" for _ in sizes) + " |")
    for p in labels:
        row = []
        for s in sizes:
            v = heap.get(f"heap {p} {s}")
            row.append(fmt(statistics.median(v), 0) if v else "n/a")
        print(f"| {p} | " + " | ".join(row) + " |")
    print()
    lines = path.read_text().splitlines()
    largest = max(sizes)
    for p in classes_of or labels:
        rows = [l.split() for l in lines if l.startswith(f"class {p} {largest} ")]
        if not rows:
            continue
        print(title.format(p, f"{largest:,}") + ":\n")
        print("| class | bytes / resource | instances / resource |")
        print("| --- | ---: | ---: |")
        for f in rows:
            print(f"| `{f[5]}` | {f[3]} | {f[4]} |")
        print()


def scale(results):
    runs = jmh(results / "scale.json")
    if runs:
        print("### Resource graph at scale (host, simulated provider): ms, median ± 99.9% error\n")
        per_size_table(runs, [("GraphQueries.healthDetails", "health details (details + stuck references)"),
                              ("GraphQueries.closePlan", "close plan (CASCADE)"),
                              ("GraphQueries.everyResourceNamed", "floor: every resource named once"),
                              ("GraphQueries.registryCopied", "its first half: the registry copied"),
                              ("GraphQueries.listedResourcesNamed", "its other half: a list made once, named"),
                              ("GraphLifecycle.populate", "create the resources"),
                              ("GraphLifecycle.cascadeClose", "cascade teardown")], "resources", "operation")
    walk = columns(results / "graph-walk-c.txt", 2, key_columns=2)
    if walk:
        graph_walk(walk)
    if (results / "heap.txt").exists():
        print("### Heap retained per resource (after full GC): bytes, median of rounds\n")
        heap_tables(results / "heap.txt", "provider", " resources",
                    "Largest growth per resource, {} provider, {} resources")


def graph_walk(walk):
    """graph_walk.c: "<placement> <n> <ns per resource>" lines -> a row per placement, a column per n."""
    sizes = sorted({int(k.split()[1]) for k in walk})
    print("The same walk in C (`graph_walk.c`: resource, ref, name, bytes; "
          "as many bytes per resource as the graph retains): ns per resource, median ± 99.9% error\n")
    print("| placement | " + " | ".join(f"{s:,} resources" for s in sizes) + " | largest / smallest |")
    print("| --- | " + " | ".join("---:" for _ in sizes) + " | ---: |")
    for placement in ("in-order", "scattered"):
        v = {s: walk.get(f"{placement} {s}") for s in sizes}
        if not any(v.values()):
            continue
        cells = [f"{fmt(statistics.median(v[s]))} ± {fmt(error(v[s]))}" if v[s] else "n/a" for s in sizes]
        growth = (fmt(statistics.median(v[sizes[-1]]) / statistics.median(v[sizes[0]]))
                  if v[sizes[0]] and v[sizes[-1]] else "n/a")
        print(f"| {placement} | " + " | ".join(cells) + f" | {growth}× |")
    print()


def spring(results):
    runs = jmh(results / "spring.json")
    if runs:
        health = {n: r for n, r in runs.items() if n.startswith("HealthBuild.")}
        if health:
            print("### Spring: health over one device context's resources (host, simulated provider): ms, "
                  "median ± 99.9% error\n")
            per_size_table(health, [("HealthBuild.graphDetails", "graph: details + stuck references (verbs-core)"),
                                    ("HealthBuild.deviceIndicator", "`DeviceHealthIndicator.health()` (via the `rdmaVerbs` composite)"),
                                    ("HealthBuild.healthEndpoint", "`HealthEndpoint.healthForPath(\"rdmaVerbs\")`")],
                           "resources", "health of")
            sizes, rows = sized(health, [("HealthBuild.graphDetails", "graph"),
                                         ("HealthBuild.deviceIndicator", "indicator"),
                                         ("HealthBuild.healthEndpoint", "endpoint")], "resources")
            by = dict(rows)
            if "graph" in by:
                for label in ("indicator", "endpoint"):
                    if label in by:
                        ratios = ", ".join(f"{s:,}: {fmt(by[label][s].median / by['graph'][s].median)}"
                                           for s in sizes if by[label][s] and by["graph"][s])
                        print(f"- {label} / graph: {ratios}")
                print()
        lifecycle = {}
        for n, r in runs.items():
            if n.startswith("ContextStop.close"):
                on = "[asyncEvents=true]" in n
                lifecycle[n.replace("[asyncEvents=true]", "").replace("[asyncEvents=false]", "")
                          .replace("ContextStop.close", "ContextStop.close" + ("On" if on else "Off"))] = r
            elif n.startswith("ContextStart."):
                lifecycle[n] = r
        if lifecycle:
            print("### Spring: context start and close with declared resources (host, simulated provider, "
                  "single shots): ms, median ± 99.9% error\n")
            per_size_table(lifecycle, [("ContextStart.firstRun", "`SpringApplication.run`, first in a fresh JVM"),
                                       ("ContextStart.run", "`SpringApplication.run`, warm"),
                                       ("ContextStop.closeOn", "`context.close()`, async-event readers on (default)"),
                                       ("ContextStop.closeOff", "`context.close()`, async-event readers off")],
                           "declared", "operation", unit="declared resource")
            print("(Single shots: B/op is everything allocated in the shot's iteration, setup and teardown "
                  "included, i.e. one start and one close.)\n")
    if (results / "spring-heap.txt").exists():
        print("### Spring: heap retained per declared resource, application running (after full GC): bytes, "
              "median of rounds\n")
        heap_tables(results / "spring-heap.txt", "resources", " declared",
                    "Largest growth per resource, {} resources, {} of them",
                    labels=["declared", "populated", "yaml", "bound"], classes_of=["declared"])


def main():
    results = Path(sys.argv[1])
    machine = results / "machine.txt"
    if machine.exists():
        print("### Machine\n")
        for line in machine.read_text().splitlines():
            print(f"- {line}")
        print()
    hotpath(results)
    lifecycle(results)
    scale(results)
    spring(results)


if __name__ == "__main__":
    main()
