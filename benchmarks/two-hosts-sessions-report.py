#!/usr/bin/env python3
"""Tables of benchmarks/two-hosts-sessions.sh: perftest's probe, then per size C (cm_perf, perftest's
patterns; rounds c1 and c2, spinning and yielding) against Java (SessionBench), the 64 B round trip, CPU
and allocation per message, and rxe's hw_counters around every run.

usage: two-hosts-sessions-report.py RESULTS_DIR   (the dir holding machine.txt, A/ and B/)
"""
import pathlib
import re
import sys

RNR = ["rcvd_rnr_err", "send_rnr_err", "retry_rnr_exceeded_err"]
RESENT = ["duplicate_request", "out_of_seq_request", "rcvd_seq_err", "completer_retry_err", "retry_exceeded_err"]
GROUPS = ["caller", "completions", "virtual", "cm", "other"]
JAVA_ROUNDS = ["j1", "j2"]


def averaged(found):
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


def perf(path):
    found = lines(path, "perf ")
    return words(found[0], 2) if found else None


def perf_server(path):
    found = lines(path, "perf_server ")
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


def mean(*vs):
    vs = [v for v in vs if v is not None]
    return sum(vs) / len(vs) if vs else None


def ratio(a, b):
    return "-" if a is None or not b else f"**{a / b:.2f}**"


def get(d, k):
    return None if d is None else d.get(k)


def main():
    out = pathlib.Path(sys.argv[1])
    a, b = out / "A", out / "B"
    print("# The data plane across two soft-RoCE guests: perftest's patterns (C) and sessions (Java)\n")
    machine = out / "machine.txt"
    if machine.exists():
        print("```\n" + machine.read_text().strip() + "\n```\n")

    print("## perftest with -R on the guests' IPv6 link-local addresses\n")
    print("| tool | client exit | what it said |\n| --- | ---: | --- |")
    for p in sorted(b.glob("probe-perftest-*.txt")):
        said = [l for l in sections(p).get("output", []) if l.strip() and not l.startswith(("wall_s", "client exit"))]
        print(f"| `{p.stem[len('probe-perftest-'):]}` | {exit_code(p, 'client')} | {' / '.join(x.strip() for x in said[:2])} |")

    rounds = [b / f"{r}-sessions.txt" for r in JAVA_ROUNDS]
    sends = [[words(l, 2) for l in lines(j, "session send ")] for j in rounds]
    requests = [[words(l, 2) for l in lines(j, "session request ")] for j in rounds]
    sizes = sorted({int(x["size"]) for r in sends for x in r} | {int(p.stem.split("-")[2]) for p in b.glob("c1-send_bw-*.txt")})

    def c(test, size, wait):
        return [perf(b / f"{r}-{test}-{size}-{wait}.txt") for r in ("c1", "c2")]

    def send(size, source, rnd=None):
        """The Java line of this case in round `rnd`, or the mean of its numbers over the rounds."""
        found = [next((x for x in r if int(x["size"]) == size and x["source"] == source), None) for r in sends]
        return found[rnd] if rnd is not None else averaged(found)

    print("\n## Message throughput: one-way messages, MiB/s (2^20 bytes)\n")
    print("C: cm_perf send_bw (perftest's pattern: tx_depth 128, one SEND in 100 signaled, 512 receives), "
          "c1 and c2 spinning on empty polls as perftest does, and yielding. Java: `Session.send` with "
          "128 in flight, from a registered region (zero copy) and from a heap array (one copy), rounds j1 and "
          "j2. Ratios of the means of the two rounds on each side.\n")
    print("| size | C spin c1 / c2 | C yield | Java registered j1 / j2 | msgs/s | / C spin | / C yield "
          "| Java heap j1 / j2 | / C spin | / C yield |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")

    def pair(vals, digits=3):
        return " / ".join(fmt(v, digits) for v in vals)
    for size in sizes:
        spin = [get(x, "MiB_per_s") for x in c("send_bw", size, "spin")]
        yld = mean(*[get(x, "MiB_per_s") for x in c("send_bw", size, "yield")])
        reg, heap = send(size, "registered"), send(size, "heap")
        regs = [get(send(size, "registered", i), "MiB_per_s") for i in range(len(rounds))]
        heaps = [get(send(size, "heap", i), "MiB_per_s") for i in range(len(rounds))]
        cs = mean(*spin)
        print(f"| {size} | {pair(spin)} | {fmt(yld, 3)} | {pair(regs)} "
              f"| {fmt(get(reg, 'msgs_per_s'))} | {ratio(get(reg, 'MiB_per_s'), cs)} | {ratio(get(reg, 'MiB_per_s'), yld)} "
              f"| {pair(heaps)} | {ratio(get(heap, 'MiB_per_s'), cs)} | {ratio(get(heap, 'MiB_per_s'), yld)} |")

    print("\n## RDMA WRITE and READ, MiB/s\n")
    print("| size | C write spin | C write yield | C read spin | C read yield |")
    print("| ---: | ---: | ---: | ---: | ---: |")
    for size in sizes:
        vals = [mean(*[get(x, "MiB_per_s") for x in c(t, size, w)]) for t in ("write_bw", "read_bw")
                for w in ("spin", "yield")]
        print(f"| {size} | " + " | ".join(fmt(v, 3) for v in vals) + " |")

    print("\n## 64 B request/reply against ib_send_lat's pattern, microseconds\n")
    print("cm_perf send_lat reports half a round trip (perftest's t_typical is the median of those); a "
          "Java request/reply is a whole round trip, so it is compared with twice the C figure.\n")
    print("| | C spin t_typical | C yield t_typical | C round trip (2 x spin) | Java median | Java mean | Java p99 "
          "| Java / C spin | Java / C yield |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    spin = mean(*[get(x, "t_typical_us") for x in c("send_lat", 64, "spin")])
    yld = mean(*[get(x, "t_typical_us") for x in c("send_lat", 64, "yield")])
    r = averaged([x[0] if x else None for x in requests])
    print(f"| 64 B | {fmt(spin)} | {fmt(yld)} | {fmt(None if spin is None else 2 * spin)} | {fmt(get(r, 'median_us'))} "
          f"| {fmt(get(r, 'mean_us'))} | {fmt(get(r, 'p99_us'))} | {ratio(get(r, 'median_us'), None if spin is None else 2 * spin)} "
          f"| {ratio(get(r, 'median_us'), None if yld is None else 2 * yld)} |")

    print("\n## CPU time per message, microseconds (process CPU time / messages; Java: mean of j1 and j2)\n")
    print("| run | C client spin | C server spin | C client yield | C server yield | Java client | Java server "
          "| Java client: caller / completions / virtual | Java server: caller / completions / virtual |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |")
    runs = [(f"send {s} registered", "send_bw", s, send(s, "registered")) for s in sizes]
    runs += [(f"send {s} heap", None, s, send(s, "heap")) for s in sizes]
    runs.append(("request 64", "send_lat", 64, r))
    for label, test, size, j in runs:
        cc = []
        for w in ("spin", "yield"):
            cl = mean(*[get(x, "cpu_us_per_msg") for x in c(test, size, w)]) if test else None
            sv = mean(*[get(perf_server(a / f"{rd}-{test}-{size}-{w}.txt"), "cpu_us_per_msg") for rd in ("c1", "c2")]) if test else None
            cc += [cl, sv]
        groups = [" / ".join(fmt(get(j, f"{side}_cpu_us.{g}"), 1) for g in GROUPS[:3]) for side in ("client", "server")]
        print(f"| {label} | " + " | ".join(fmt(v) for v in cc) + f" | {fmt(get(j, 'client_cpu_us_per_msg'))} "
              f"| {fmt(get(j, 'server_cpu_us_per_msg'))} | {groups[0]} | {groups[1]} |")

    print("\n## Heap allocated per message in the steady state, bytes (Java, mean of j1 and j2)\n")
    print("| run | client | " + " | ".join(f"client: {g}" for g in GROUPS[:3]) + " | server | "
          + " | ".join(f"server: {g}" for g in GROUPS[:3]) + " |")
    print("| --- |" + " ---: |" * 8)
    for label, _, _, j in runs:
        print(f"| {label} | {fmt(get(j, 'client_alloc_B_per_msg'))} | "
              + " | ".join(fmt(get(j, f"client_alloc_B.{g}")) for g in GROUPS[:3])
              + f" | {fmt(get(j, 'server_alloc_B_per_msg'))} | "
              + " | ".join(fmt(get(j, f"server_alloc_B.{g}")) for g in GROUPS[:3]) + " |")

    print("\n## Wakeups per message (voluntary context switches; Java, mean of j1 and j2)\n")
    print("A thread blocks (a completion loop in `poll(2)` for the next CQ event, a caller on a future, a "
          "carrier with no virtual thread to run) and is woken: each is a switch on the guest's one CPU.\n")
    print("| run | client: " + " | client: ".join(GROUPS[:3]) + " | server: " + " | server: ".join(GROUPS[:3]) + " |")
    print("| --- |" + " ---: |" * 6)
    for label, _, _, j in runs:
        print(f"| {label} | " + " | ".join(fmt(get(j, f"{side}_wakeups.{g}"), 2) for side in ("client", "server")
                                           for g in GROUPS[:3]) + " |")

    registers = [words(l, 2) for r in rounds for l in lines(r, "session register ")]
    if registers:
        print("\n## What a rendezvous registers per message (Java, the connection's PD), microseconds\n")
        print("| size | allocate + register, mean | median | close (deregister, free), mean | median |")
        print("| ---: | ---: | ---: | ---: | ---: |")
        for size in sorted({int(x["size"]) for x in registers}):
            x = averaged([y for y in registers if int(y["size"]) == size])
            print(f"| {size} | {fmt(x['allocate_mean_us'])} | {fmt(x['allocate_median_us'])} | {fmt(x['close_mean_us'])} "
                  f"| {fmt(x['close_median_us'])} |")

    print("\n## rxe hw_counters around each run (deltas)\n")
    print("RNR NAKs: `rcvd_rnr_err` counts those a sender received, `send_rnr_err` those a receiver sent. "
          "Retransmission: " + ", ".join(f"`{k}`" for k in RESENT) + ".\n")
    print("| run | B (client) RNR | A (server) RNR | B resent | A resent | B sent / rcvd pkts |")
    print("| --- | --- | --- | --- | --- | --- |")
    for p in sorted(b.glob("*.txt"), key=lambda p: p.stat().st_mtime):
        if p.name.startswith(("guest-kernel", "perftest-version")):
            continue
        db, da = delta(p), delta(a / p.name)

        def few(d, keys):
            return ", ".join(f"{k} {d.get(k, 0)}" for k in keys if d.get(k, 0)) or "0"
        print(f"| {p.stem} | {few(db, RNR)} | {few(da, RNR)} | {few(db, RESENT)} | {few(da, RESENT)} "
              f"| {db.get('sent_pkts', '-')} / {db.get('rcvd_pkts', '-')} |")

    failed = [p.name for p in sorted(b.glob("*.txt")) if not p.name.startswith(("probe-", "guest-kernel", "perftest-version"))
              and exit_code(p, "client") != 0]
    if failed:
        print("\nRuns whose client did not exit 0 (see B/ and A/): " + ", ".join(failed))


if __name__ == "__main__":
    main()
