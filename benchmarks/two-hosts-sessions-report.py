#!/usr/bin/env python3
"""Tables of benchmarks/two-hosts-sessions.sh: perftest's probe, then per size C (cm_perf, perftest's
patterns, rounds c1..cN, spinning and, if run, yielding) against Java (SessionBench, rounds j1..jN), the
64 B round trip, CPU, allocation and wakeups per message, and rxe's hw_counters around every run.

Each figure is the median over the rounds, with the range (min-max) beside it: the guests share a host
with other work, and a round's figure moves with the host's load. "paired" ratios divide each Java round
by the C round just before it, which ran under the most similar load.

usage: two-hosts-sessions-report.py RESULTS_DIR   (the dir holding machine.txt, A/ and B/)
"""
import pathlib
import re
import statistics
import sys

RNR = ["rcvd_rnr_err", "send_rnr_err", "retry_rnr_exceeded_err"]
RESENT = ["duplicate_request", "out_of_seq_request", "rcvd_seq_err", "completer_retry_err", "retry_exceeded_err"]
GROUPS = ["caller", "completions", "virtual", "cm", "other"]
SHOWN = GROUPS[:3]


def sections(path):
    """The file's sections: command, counters before, output, counters after (a dict of line lists)."""
    out, name = {}, None
    if not path.exists():
        return out
    for line in path.read_text(errors="replace").splitlines():
        if line.startswith("-- "):
            name = line[3:].split(":")[0]
            out[name] = [line[3 + len(name) + 1:].strip()] if ":" in line else []
            continue
        if name is not None:
            out[name].append(line)
    return out


def counters(lines):
    c = {}
    for line in lines or []:
        k, _, v = line.partition(":")
        if v.strip().isdigit():
            c[k.strip()] = int(v)
    return c


def delta(path):
    s = sections(path)
    before, after = counters(s.get("counters before")), counters(s.get("counters after"))
    return {k: after[k] - before.get(k, 0) for k in after}


def words(line, skip):
    """The key/value pairs of a result line after its first `skip` words."""
    w = line.split()[skip:]
    d = {}
    for k, v in zip(w[0::2], w[1::2]):
        try:
            d[k] = float(v)
        except ValueError:
            d[k] = v
    return d


def lines(path, prefix):
    s = sections(path)
    return [l for l in s.get("output", []) + s.get("counters after", []) if l.startswith(prefix)]


def first(path, prefix):
    found = lines(path, prefix)
    return words(found[0], 2) if found else None


def exit_code(path, role):
    s = sections(path)
    for l in s.get("output", []) + s.get("counters after", []):
        m = re.match(rf"{role} exit (\d+)", l)
        if m:
            return int(m.group(1))
    return None


def fmt(v, digits=1):
    return "-" if v is None else f"{v:,.{digits}f}"


def median(vals):
    vals = [v for v in vals if v is not None]
    return statistics.median(vals) if vals else None


def spread(vals, digits=3):
    """median (min-max) of the values found."""
    vals = [v for v in vals if v is not None]
    if not vals:
        return "-"
    if len(vals) == 1:
        return fmt(vals[0], digits)
    return f"{fmt(statistics.median(vals), digits)} ({fmt(min(vals), digits)}-{fmt(max(vals), digits)})"


def ratio(a, b):
    return "-" if a is None or not b else f"**{a / b:.2f}**"


def ratios(js, cs):
    """min-max of the paired ratios j_k / c_k."""
    rs = [j / c for j, c in zip(js, cs) if j is not None and c]
    return "-" if not rs else f"{min(rs):.2f}-{max(rs):.2f}"


def get(d, k):
    return None if d is None else d.get(k)


def mean_of(found):
    """The mean of each number over the result lines found (None where none was)."""
    found = [f for f in found if f is not None]
    if not found:
        return None
    out = dict(found[0])
    for k, v in found[0].items():
        if isinstance(v, float):
            vals = [f.get(k) for f in found if isinstance(f.get(k), float)]
            out[k] = sum(vals) / len(vals)
    return out


def main():
    out = pathlib.Path(sys.argv[1])
    a, b = out / "A", out / "B"
    print("# The data plane across two soft-RoCE guests: perftest's patterns (C) and sessions (Java)\n")
    machine = out / "machine.txt"
    if machine.exists():
        print("```\n" + machine.read_text().strip() + "\n```\n")
    print("Figures: median over the rounds (min-max); paired: each Java round over the C round before it.\n")

    print("## perftest with -R on the guests' IPv6 link-local addresses\n")
    print("| tool | client exit | what it said |\n| --- | ---: | --- |")
    for p in sorted(b.glob("probe-perftest-*.txt")):
        said = [l for l in sections(p).get("output", []) if l.strip() and not l.startswith(("wall_s", "client exit"))]
        print(f"| `{p.stem[len('probe-perftest-'):]}` | {exit_code(p, 'client')} | {' / '.join(x.strip() for x in said[:2])} |")

    c_rounds = sorted({p.name.split("-")[0] for p in b.glob("c[0-9]*-*.txt")}, key=lambda r: int(r[1:]))
    j_rounds = sorted({p.name.split("-")[0] for p in b.glob("j[0-9]*-sessions.txt")}, key=lambda r: int(r[1:]))
    waits = sorted({p.stem.rsplit("-", 1)[1] for p in b.glob("c1-*.txt")}, key=lambda w: w != "spin")
    java = {r: [dict(words(l, 2), kind=l.split()[1]) for l in lines(b / f"{r}-sessions.txt", "session ")]
            for r in j_rounds}
    sizes = sorted({int(p.stem.split("-")[2]) for p in b.glob("c1-send_bw-*.txt")}
                   | {int(x["size"]) for r in java.values() for x in r if x["kind"] == "send"})

    def c(test, size, wait, key, role="client"):
        d = b if role == "client" else a
        prefix = "perf " if role == "client" else "perf_server "
        return [get(first(d / f"{r}-{test}-{size}-{wait}.txt", prefix), key) for r in c_rounds]

    def j(kind, size, source, key):
        """Per Java round: the value of `key` on the line `session KIND size SIZE [source SOURCE]`."""
        vals = []
        for r in j_rounds:
            vals.append(get(case(r, kind, size, source), key))
        return vals

    def case(r, kind, size, source):
        return next((x for x in java[r] if x["kind"] == kind and x.get("size") == size
                     and (source is None or x.get("source") == source)), None)

    def j_line(kind, size, source):
        return mean_of([case(r, kind, size, source) for r in j_rounds])

    def bandwidth_table(title, text, test, kind):
        print(f"\n## {title}, MiB/s (2^20 bytes)\n")
        print(text + "\n")
        cols = [f"C {w}" for w in waits]
        print("| size | " + " | ".join(cols) + " | Java registered | msgs/s | / C | paired "
              "| Java heap | / C | paired |")
        print("| ---: |" + " ---: |" * (len(cols) + 7))
        for size in sizes:
            cw = [c(test, size, w, "MiB_per_s") for w in waits]
            cspin = cw[0]
            row = [spread(v) for v in cw]
            for source in ("registered", "heap"):
                jv = j(kind, float(size), source, "MiB_per_s")
                cells = [spread(jv)]
                if source == "registered":
                    cells.append(fmt(median(j(kind, float(size), source, "msgs_per_s"))))
                cells += [ratio(median(jv), median(cspin)), ratios(jv, cspin)]
                row += cells
            print(f"| {size} | " + " | ".join(row) + " |")

    bandwidth_table("Message throughput: one-way messages",
                    "C: cm_perf send_bw (perftest's pattern: tx_depth 128, one SEND in 100 signaled up to 8 KiB, every "
                    "one above, 512 receives), empty polls spinning as perftest's (spin) or yielding (yield). Java: "
                    "`Session.send` with 128 in flight, from a registered region (zero copy) or a heap array (one copy). "
                    "Ratios: Java over C spin.", "send_bw", "send")
    bandwidth_table("RDMA WRITE through remote region handles",
                    "C: cm_perf write_bw (perftest's pattern). Java: `RemoteRegion.write` with 128 in flight, from a "
                    "registered region or a heap array (one copy through a bounce buffer).", "write_bw", "write")
    bandwidth_table("RDMA READ through remote region handles",
                    "C: cm_perf read_bw (perftest's pattern, the device's max_qp_rd_atom outstanding). Java: "
                    "`RemoteRegion.read` with 128 in flight, into a registered region or a heap array.", "read_bw", "read")

    print("\n## 64 B request/reply against ib_send_lat's pattern, microseconds\n")
    print("cm_perf send_lat reports half a round trip (perftest's t_typical: the median of those); a Java "
          "request/reply is a whole round trip, so it is compared with twice the C figure.\n")
    print("| | " + " | ".join(f"C {w} t_typical" for w in waits) + " | C round trip (2 x spin) | Java median | Java mean "
          "| Java p99 | Java / C | paired |")
    print("| --- |" + " ---: |" * (len(waits) + 6))
    typ = [c("send_lat", 64, w, "t_typical_us") for w in waits]
    rtt = [None if t is None else 2 * t for t in typ[0]]
    jm = j("request", 64.0, None, "median_us")
    print(f"| 64 B | " + " | ".join(spread(t, 1) for t in typ) + f" | {spread(rtt, 1)} | {spread(jm, 1)} "
          f"| {spread(j('request', 64.0, None, 'mean_us'), 1)} | {spread(j('request', 64.0, None, 'p99_us'), 1)} "
          f"| {ratio(median(jm), median(rtt))} | {ratios(jm, rtt)} |")

    runs = [(f"send {s} {src}", "send", s, src, "send_bw") for s in sizes for src in ("registered", "heap")]
    runs += [(f"{k} {s} {src}", k, s, src, f"{k}_bw") for k in ("write", "read") for s in sizes
             for src in ("registered", "heap") if any(x["kind"] == k for r in java.values() for x in r)]
    runs.append(("request 64", "request", 64, None, "send_lat"))

    print("\n## CPU time per message, microseconds (process CPU time / messages; Java: mean over its rounds)\n")
    print("| run | C client | C server | Java client | Java server | Java client: " + " / ".join(SHOWN)
          + " | Java server: " + " / ".join(SHOWN) + " |")
    print("| --- | ---: | ---: | ---: | ---: | --- | --- |")
    for label, kind, size, source, test in runs:
        jl = j_line(kind, float(size), source)
        cc = [median(c(test, size, "spin", "cpu_us_per_msg")), median(c(test, size, "spin", "cpu_us_per_msg", "server"))]
        if source == "heap":
            cc = [None, None]
        groups = [" / ".join(fmt(get(jl, f"{side}_cpu_us.{g}")) for g in SHOWN) for side in ("client", "server")]
        print(f"| {label} | {fmt(cc[0])} | {fmt(cc[1])} | {fmt(get(jl, 'client_cpu_us_per_msg'))} "
              f"| {fmt(get(jl, 'server_cpu_us_per_msg'))} | {groups[0]} | {groups[1]} |")

    print("\n## Heap allocated per message in the steady state, bytes (Java, mean over its rounds)\n")
    print("| run | client | " + " | ".join(f"client: {g}" for g in SHOWN) + " | server | "
          + " | ".join(f"server: {g}" for g in SHOWN) + " |")
    print("| --- |" + " ---: |" * 8)
    for label, kind, size, source, _ in runs:
        jl = j_line(kind, float(size), source)
        print(f"| {label} | {fmt(get(jl, 'client_alloc_B_per_msg'))} | "
              + " | ".join(fmt(get(jl, f"client_alloc_B.{g}")) for g in SHOWN)
              + f" | {fmt(get(jl, 'server_alloc_B_per_msg'))} | "
              + " | ".join(fmt(get(jl, f"server_alloc_B.{g}")) for g in SHOWN) + " |")

    print("\n## Wakeups and preemptions per message (context switches; Java, mean over its rounds)\n")
    print("A wakeup is a voluntary switch: the thread blocked (a completion loop in `poll(2)` for the next CQ "
          "event, a caller on a future, a carrier with no virtual thread to run) and was woken; a preemption is "
          "an involuntary one. Each is a switch on the guest's one CPU.\n")
    print("| run | " + " | ".join(f"client {g}" for g in SHOWN) + " | " + " | ".join(f"server {g}" for g in SHOWN) + " |")
    print("| --- |" + " ---: |" * 6)
    for label, kind, size, source, _ in runs:
        jl = j_line(kind, float(size), source)
        print(f"| {label} | " + " | ".join(f"{fmt(get(jl, f'{side}_wakeups.{g}'), 2)} / {fmt(get(jl, f'{side}_preempted.{g}'), 2)}"
                                           for side in ("client", "server") for g in SHOWN) + " |")

    print("\n## The wire per message (rxe's hw_counters around each Java case, mean over its rounds)\n")
    print("Packets each side sent and received per message (MTU in machine.txt), and the RNR NAKs of the case: "
          "`rcvd_rnr_err` on the sender, `send_rnr_err` on the receiver (both sides count both).\n")
    print("| run | client sent | client rcvd | server sent | server rcvd | RNR NAKs (client rcvd / server sent) "
          "| client duplicate / retry |")
    print("| --- | ---: | ---: | ---: | ---: | --- | --- |")
    for label, kind, size, source, _ in runs:
        jl = j_line(kind, float(size), source)
        w = [get(jl, f"{side}_wire.{k}") for side, k in (("client", "sent_pkts"), ("client", "rcvd_pkts"),
                                                         ("server", "sent_pkts"), ("server", "rcvd_pkts"))]
        rnr = [get(jl, "client_wire.rcvd_rnr_err"), get(jl, "server_wire.send_rnr_err")]
        retry = [get(jl, "client_wire.duplicate_request"), get(jl, "client_wire.completer_retry_err")]
        print(f"| {label} | " + " | ".join(fmt(v, 2) for v in w) + f" | {' / '.join(fmt(v, 3) for v in rnr)} "
              f"| {' / '.join(fmt(v, 3) for v in retry)} |")

    registers = [x for r in java.values() for x in r if x["kind"] == "register"]
    if registers:
        print("\n## What a rendezvous registers per message (Java, the connection's PD), microseconds\n")
        print("| size | allocate + register, mean | median | close (deregister, free), mean | median |")
        print("| ---: | ---: | ---: | ---: | ---: |")
        for size in sorted({x["size"] for x in registers}):
            x = mean_of([y for y in registers if y["size"] == size])
            print(f"| {int(size)} | {fmt(x['allocate_mean_us'])} | {fmt(x['allocate_median_us'])} "
                  f"| {fmt(x['close_mean_us'])} | {fmt(x['close_median_us'])} |")

    print("\n## rxe hw_counters around each run (deltas)\n")
    print("RNR NAKs: `rcvd_rnr_err` counts those a sender received, `send_rnr_err` those a receiver sent. "
          "Retransmission: " + ", ".join(f"`{k}`" for k in RESENT) + ".\n")
    print("| run | B (client) RNR | A (server) RNR | B resent | A resent | B sent / rcvd pkts |")
    print("| --- | --- | --- | --- | --- | --- |")
    for p in sorted(b.glob("*.txt"), key=lambda p: p.stat().st_mtime):
        if p.name.startswith(("guest-kernel", "perftest-version", "device")):
            continue
        db, da = delta(p), delta(a / p.name)

        def few(d, keys):
            return ", ".join(f"{k} {d.get(k, 0)}" for k in keys if d.get(k, 0)) or "0"
        print(f"| {p.stem} | {few(db, RNR)} | {few(da, RNR)} | {few(db, RESENT)} | {few(da, RESENT)} "
              f"| {db.get('sent_pkts', '-')} / {db.get('rcvd_pkts', '-')} |")

    failed = [p.name for p in sorted(b.glob("*.txt")) if not p.name.startswith(("probe-", "guest-kernel", "perftest-version",
                                                                                   "device"))
              and exit_code(p, "client") != 0]
    if failed:
        print("\nRuns whose client did not exit 0 (see B/ and A/): " + ", ".join(failed))


if __name__ == "__main__":
    main()
