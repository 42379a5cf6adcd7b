#!/usr/bin/env bash
# Summarises JUnit XML reports: the TEST-*.xml files below DIR, as written by
# the JUnit Platform ConsoleLauncher (--reports-dir: TEST-junit-jupiter.xml)
# and by Maven Surefire/Failsafe (TEST-<class>.xml).
#
# usage: junit-summary.sh [--min-tests N] DIR
# Prints the totals, each failed/errored test with the first line of its
# message, and a closing line "junit: N passed, N failed, N skipped"
# (failed = failures + errors).
# Exit: 0 all passed; 1 failures or errors (or an unparseable report, e.g. one
# cut short by a crash); 2 no report found, or fewer than N tests.
set -euo pipefail

MIN=0
while [ $# -gt 0 ]; do
  case "$1" in
    --min-tests) MIN=${2:?--min-tests needs a number}; shift 2 ;;
    --min-tests=*) MIN=${1#*=}; shift ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    --) shift; break ;;
    -*) echo "junit-summary: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
[ $# -eq 1 ] || { echo "usage: junit-summary.sh [--min-tests N] DIR" >&2; exit 2; }
[[ $MIN =~ ^[0-9]+$ ]] || { echo "junit-summary: --min-tests needs a number" >&2; exit 2; }
command -v python3 >/dev/null || { echo "junit-summary: python3 is required" >&2; exit 2; }

# python3 with the standard library only: XML entities, CDATA and multi-line
# messages are beyond a fair awk script.
exec python3 - "$1" "$MIN" <<'PY'
import os, sys
import xml.etree.ElementTree as ET

root_dir, min_tests = sys.argv[1], int(sys.argv[2])
if not os.path.isdir(root_dir):
    print(f"junit-summary: {root_dir}: no such directory", file=sys.stderr)
    sys.exit(2)

files = sorted(
    os.path.join(d, f)
    for d, _, fs in os.walk(root_dir)
    for f in fs
    if f.startswith("TEST-") and f.endswith(".xml")
)
if not files:
    print(f"junit-summary: no TEST-*.xml report below {root_dir}", file=sys.stderr)
    sys.exit(2)

def first_line(el):
    text = el.get("message") or el.text or ""
    for line in text.splitlines():
        if line.strip():
            line = line.strip()
            return line if len(line) <= 240 else line[:237] + "..."
    return el.get("type") or "(no message)"

tests = failures = errors = skipped = 0
bad = []          # (kind, name, message)
unparseable = []
for path in files:
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        unparseable.append((path, str(e)))
        continue
    # <testsuites> or a single <testsuite>; nested suites are flattened.
    for case in root.iter("testcase"):
        tests += 1
        name = ".".join(p for p in (case.get("classname"), case.get("name")) if p)
        err, fail = case.find("error"), case.find("failure")
        # error before failure: a test is counted once, as in the suite totals
        if err is not None:
            errors += 1
            bad.append(("ERROR", name, first_line(err)))
        elif fail is not None:
            failures += 1
            bad.append(("FAILED", name, first_line(fail)))
        elif case.find("skipped") is not None:
            skipped += 1

print(f"junit-summary: {len(files)} report(s) below {root_dir}")
print(f"  tests {tests}, failures {failures}, errors {errors}, skipped {skipped}")
for kind, name, msg in bad:
    print(f"  {kind} {name}: {msg}")
for path, err in unparseable:
    print(f"  UNPARSEABLE {path}: {err}")
failed = failures + errors
print(f"junit: {tests - failed - skipped} passed, {failed} failed, {skipped} skipped")
if failed or unparseable:
    sys.exit(1)
if tests < min_tests:
    print(f"junit-summary: only {tests} test(s), expected at least {min_tests}", file=sys.stderr)
    sys.exit(2)
PY
