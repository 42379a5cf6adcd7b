# shellcheck shell=bash
# Helpers shared by the soft-RoCE harness scripts (sourced, never executed).
# Kept free of `set -e` assumptions so that java.sh, which must survive a
# crashing JVM, can source it too.

# shellcheck disable=SC2034  # the variables are used by the scripts sourcing this
SOFTROCE_CACHE=${SOFTROCE_CACHE:-${HOME:-/root}/.cache/rdma-verbs/softroce}
SOFTROCE_DEFAULT_JDK=/usr/lib/jvm/temurin-25-jdk-amd64

# Exit codes of the harness itself (documented in docs/softroce.md). They can
# collide with a command's own code; the message on stderr tells them apart.
SR_EXIT_HARNESS=125   # bad usage, or build/setup failed before the guest booted
SR_EXIT_CRASH=254     # a JVM crashed (hs_err_pid*.log found): never a pass
SR_EXIT_NORC=255      # the guest never reported an exit code (timeout, boot failure)

sr_log() { printf 'softroce: %s\n' "$*" >&2; }
sr_die() { sr_log "ERROR: $*"; exit "$SR_EXIT_HARNESS"; }

# Microsecond wall clock without bc (not installed on a fresh machine).
sr_now_us() { local t=${EPOCHREALTIME/[.,]/}; printf '%s' "$t"; }
# Seconds (one decimal) since a sr_now_us value.
sr_since() {
  local d=$(( $(sr_now_us) - $1 ))
  printf '%d.%d' $(( d / 1000000 )) $(( d % 1000000 / 100000 ))
}

# Hash of everything that ends up inside the boot image except the kernel
# itself: a changed init or build recipe must produce a new image.
sr_recipe_hash() {
  local here=$1
  cat "$here/init" "$here/build.sh" | sha256sum | cut -c1-16
}

# Paths travel to the guest on the kernel command line, which is split on
# whitespace and has no usable quoting for /init: only allow plain characters.
sr_cmdline_safe_path() {
  [[ $1 =~ ^/[A-Za-z0-9._/@+,:=~%-]*$ ]]
}

# ---- hs_err_pid*.log (JVM fatal error log) parsing ----

# The '# Problematic frame:' line, without the leading '# '.
sr_hs_err_frame() {
  awk '/^# Problematic frame:/ { getline; sub(/^# ?/, ""); print; exit }' "$1"
}

# True if the crash happened in JIT territory: a compiled (J) or interpreted (j)
# Java frame, or inside a C1/C2 compiler thread. Under multi-threaded TCG such
# crashes have been seen without any program bug (stale code after patching), so
# one rerun is allowed for them; any other crash is reported as is.
sr_hs_err_is_jit() {
  local frame
  frame=$(sr_hs_err_frame "$1")
  [[ $frame =~ ^[Jj][[:space:]] ]] && return 0
  grep -q '^Current CompileTask:' "$1" && return 0
  return 1
}

# Human-readable summary: signal, problematic frame, top of the native stack.
sr_hs_err_report() {
  local f=$1
  awk '
    /^# A fatal error has been detected/ || /^#  (SIG|EXCEPTION|Internal Error|Out of Memory)/ { print "    " $0; next }
    /^# Problematic frame:/ { print "    " $0; getline; print "    " $0; next }
    /^Current CompileTask:/ { print "    " $0; getline; print "    " $0; next }
    /^Native frames:/ { n = 1; print "    " $0; next }
    n >= 1 && n <= 10 { if ($0 == "") { n = 0; next } print "      " $0; n++ }
  ' "$f"
}
