#!/usr/bin/env python3
"""Checks an application's connection event log (rdma.verbs.connections.event-log: one JSON object a
line, format in docs/configuration.md#the-event-log, pinned by EventLogTests) after its JVM exited.
Run in the guests by two-hosts-spring-guest.sh; standard library only.

usage: event-log.py FILE --expect connected=N|unconnected|any

What it checks, for the last process that opened FILE (from its last `started` line on):
  - every line is a JSON object with `time` and `event`;
  - each connection that began (`accepted`, `connected`) has one end: `down`/`ended` (it ended by
    itself: the other side disconnected, or a work request failed) or the shutdown's `disconnected`
    followed by `released`; a lost one whose release the shutdown overtook may have both, its
    `disconnected` then NOT_CONNECTED or BY_PEER, its `released` empty when its own release came
    first; nothing ends that never began;
  - the shutdown's order: every `stopped-listening`/`stopped-connecting` first, then every
    `disconnected` before any `released`, then `channel-closed`, then `teardown`;
  - each shutdown `disconnected` is accounted for: BY_THIS_SIDE with RDMA_CM_EVENT_DISCONNECTED
    (`afterMs` set), BY_PEER, or NOT_CONNECTED (already gone); never FAILED; each `released` closed
    the QP before its CM id (rdma_destroy_qp(3)) and left nothing; the teardown left nothing;
  - --expect: connected=N, the shutdown disconnected exactly N live connections (by this side or by
    the peer); unconnected, none; any, whatever the other side left it (two hosts stopped at once).
Prints one line per connection and one verdict line; exit 0 when all holds, 1 otherwise, 2 on usage.
"""
import json
import sys


def load(path):
    records, problems = [], []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            try:
                r = json.loads(line)
            except ValueError as e:
                problems.append(f"line {n} is no JSON object: {e}")
                continue
            if not isinstance(r, dict) or "time" not in r or "event" not in r:
                problems.append(f"line {n} has no time and event: {line.strip()[:120]}")
                continue
            r["_line"] = n
            records.append(r)
    starts = [i for i, r in enumerate(records) if r["event"] == "started"]
    if not starts:
        problems.append("no `started` line: the log was never opened by a process")
        return [], problems
    return records[starts[-1]:], problems


def owner(r):
    return f"listener '{r['listener']}'" if "listener" in r else f"peer '{r.get('peer')}'"


def check(records, expect):
    problems, lines = [], []
    began, lost, departed = {}, {}, {}
    for r in records:
        ev = r["event"]
        if ev in ("accepted", "connected"):
            if r["connection"] in began:
                problems.append(f"{r['connection']} began twice (line {r['_line']})")
            began[r["connection"]] = r
        elif ev in ("down", "ended"):
            lost.setdefault(r["connection"], []).append(r)
        elif ev == "disconnected":
            departed.setdefault(r["connection"], []).append(r)
    released = {r["connection"]: r for r in records if r["event"] == "released"}
    live_departures = []
    for name, start in began.items():
        gone, left = lost.get(name, []), departed.get(name, [])
        if len(gone) > 1 or len(left) > 1 or not (gone or left):
            problems.append(f"{name} ({owner(start)}, {start['event']} line {start['_line']}) has "
                            f"{len(gone) + len(left)} ends, want 1: {[e['event'] for e in gone + left]}")
            continue
        if left and name not in released:
            problems.append(f"{name} was disconnected by the shutdown but never released")
        if gone:
            end = gone[0]
            lines.append(f"{name}: {start['event']}, ended by itself ({end['event']}): {end['reason']}"
                         + (f" [{', '.join(end['failedCompletions'])}]" if end["failedCompletions"] else "")
                         + (f"; released by the shutdown ({left[0]['disconnect']})" if left
                            and released.get(name, {}).get("closed") else "")
                         + (f"; its own release came before the shutdown's ({left[0]['disconnect']})" if left
                            and name in released and not released[name]["closed"] else ""))
            if left and left[0]["disconnect"] not in ("NOT_CONNECTED", "BY_PEER"):
                problems.append(f"{name} ended by itself, then the shutdown disconnected it "
                                f"{left[0]['disconnect']}")
            continue
        d = left[0]
        how = d["disconnect"]
        lines.append(f"{name}: {start['event']}, disconnected by the shutdown: {how}"
                     + (f" after {d['afterMs']} ms" if how == "BY_THIS_SIDE" else "")
                     + (f" (rdma_disconnect failed: {d['disconnectFailure']})" if d.get("disconnectFailure") else ""))
        if how == "FAILED" or (how == "BY_THIS_SIDE" and d["afterMs"] is None):
            problems.append(f"{name}: the shutdown's disconnect saw no RDMA_CM_EVENT_DISCONNECTED "
                            f"({how}, afterMs {d['afterMs']}, failure {d['disconnectFailure']})")
        if how in ("BY_THIS_SIDE", "BY_PEER", "FAILED"):
            live_departures.append(d)
    for name in (set(lost) | set(departed)) - set(began):
        problems.append(f"{name} ended ({[e['event'] for e in lost.get(name, []) + departed.get(name, [])]}) "
                        f"but never began")

    # The shutdown, phase by phase (ConnectionsShutdown): its lines in this order, nothing after teardown.
    phase_of = {"stopped-listening": 1, "stopped-connecting": 1, "disconnected": 2, "released": 3,
                "channel-closed": 4, "teardown": 5}
    shutdown = [r for r in records if r["event"] in phase_of]
    if not any(r["event"] == "channel-closed" for r in shutdown):
        problems.append("no channel-closed: the connections' shutdown never finished")
    if not any(r["event"] == "teardown" for r in shutdown):
        problems.append("no teardown: the verbs teardown never reported")
    last = 0
    for r in shutdown:
        p = phase_of[r["event"]]
        if p < last:
            problems.append(f"line {r['_line']} {r['event']} came after a later phase of the shutdown")
        last = max(last, p)
    if shutdown and shutdown[-1]["event"] != "teardown":
        problems.append(f"the last shutdown line is {shutdown[-1]['event']}, not teardown")
    for name, r in released.items():
        verbs = [c["verb"] for c in r["closed"]]
        if not verbs and name in lost:
            # It ended by itself and its own release (the listener's or peer's, off the loop thread) came
            # first: the shutdown found nothing left of it. Only a connection that ended by itself may.
            continue
        if "rdma_destroy_qp" not in verbs or "rdma_destroy_id" not in verbs \
                or verbs.index("rdma_destroy_qp") > verbs.index("rdma_destroy_id"):
            problems.append(f"{name}: released {verbs}, want rdma_destroy_qp before rdma_destroy_id")
        if r["left"]:
            problems.append(f"{name}: its release left {r['left']}")
    for t in (r for r in shutdown if r["event"] == "teardown"):
        if t["left"]:
            problems.append(f"the verbs teardown left {t['left']}")
    stops = [f"{owner(r)} {r['event']} ({'connected' if r['connected'] else 'not connected'})"
             for r in shutdown if phase_of[r["event"]] == 1]
    if not stops:
        problems.append("no stopped-listening / stopped-connecting: nothing was stopped")

    if expect.startswith("connected="):
        want = int(expect.split("=", 1)[1])
        if len(live_departures) != want:
            problems.append(f"the shutdown disconnected {len(live_departures)} connection(s), want {want}")
    elif expect == "unconnected" and live_departures:
        problems.append(f"the shutdown disconnected {len(live_departures)} connection(s), want none")
    by_peer = sum(1 for d in live_departures if d["disconnect"] == "BY_PEER")
    # Ended in the shutdown's first instants (the other side's DREQ), before its disconnect: no end of its own.
    gone = sum(1 for n, d in departed.items() if n not in lost and d[0]["disconnect"] == "NOT_CONNECTED")
    summary = (f"{len(began)} connection(s), {len(live_departures)} disconnected by the shutdown"
               + (f" ({by_peer} by the peer first)" if by_peer else "")
               + (f", {gone} no longer connected when it came to them" if gone else "")
               + f", {sum(1 for n in began if n in lost)} ended by themselves; stopped: {', '.join(stops) or 'none'}")
    return lines, summary, problems


def main(argv):
    if len(argv) != 4 or argv[2] != "--expect" or not (
            argv[3] in ("unconnected", "any") or argv[3].startswith("connected=")):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    try:
        records, problems = load(argv[1])
    except OSError as e:
        print(f"FAIL event log: {e}")
        return 1
    lines, summary, more = check(records, argv[3]) if records else ([], "", [])
    problems += more
    for line in lines:
        print(f"  {line}")
    if problems:
        print(f"FAIL event log {argv[1]}: " + "; ".join(problems))
        return 1
    print(f"ok event log: {summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
