# shellcheck shell=bash
# Helpers shared by the soft-RoCE harness scripts (sourced, never executed).
# Kept free of `set -e` assumptions so that java.sh, which must survive a
# crashing JVM, can source it too.

# shellcheck disable=SC2034  # the variables are used by the scripts sourcing this
SOFTROCE_CACHE=${SOFTROCE_CACHE:-${HOME:-/root}/.cache/rdma-verbs/softroce}
SOFTROCE_DEFAULT_JDK=/usr/lib/jvm/temurin-25-jdk-amd64
# The guest JVMs' flags (java.sh adds its -XX:ErrorFile): C1 only and the serial GC under TCG. An AOT
# cache made for those JVMs (two-hosts-spring.sh trains the sample's on the host) needs the same ones.
SOFTROCE_JVM_FLAGS=(-XX:TieredStopAtLevel=1 -XX:+UseSerialGC --enable-native-access=ALL-UNNAMED)

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

# Milliseconds, for the waits below and the timings (no date(1) per poll: every
# process costs under TCG).
sr_now_ms() { local us; us=$(sr_now_us); printf '%s' $((us / 1000)); }

# ---- waits ----
# sr_wait_for SECONDS CONDITION...: runs CONDITION (a command, in this shell, so
# that it may set variables) every SR_POLL seconds (default 0.2) until it
# succeeds (0) or SECONDS have passed (1). If SR_GIVE_UP names a command, it is
# run before each further look and ends the wait at once when it succeeds (2):
# the other side of a two-host test gave up, say. A condition is always looked
# at once more after the bound, so that a slow poll cannot cost a late success.
sr_wait_for() {
  local end
  end=$(( $(sr_now_ms) + $1 * 1000 ))
  shift
  until "$@"; do
    if [ -n "${SR_GIVE_UP:-}" ] && $SR_GIVE_UP; then return 2; fi
    if [ "$(sr_now_ms)" -ge "$end" ]; then "$@" && return 0; return 1; fi
    sleep "${SR_POLL:-0.2}"
  done
}
# The two hosts of two-hosts.sh meet on files in $SOFTROCE_WIRE_DIR.
sr_on_wire() { [ -e "$SOFTROCE_WIRE_DIR/$1" ]; }
# sr_wire_wait NAME SECONDS: waits for the file NAME on the wire (sr_wait_for's codes).
sr_wire_wait() { sr_wait_for "$2" sr_on_wire "$1"; }

# Hash of everything that ends up inside the boot image except the kernel
# itself: a changed init or build recipe must produce a new image.
sr_recipe_hash() {
  local here=$1
  cat "$here/init" "$here/build.sh" | sha256sum | cut -c1-16
}

# ---- kernels: one boot image per kernel package, kept side by side ----
# A kernel is named by its Debian package (linux-image-6.12.117+deb12-amd64) or
# by its series (6.12: the newest package of it with an apt candidate); unset,
# it is Debian 12's own series. SOFTROCE_KPKG carries the name to build.sh and
# run.sh; the scripts' --kernel sets it.
SOFTROCE_DEFAULT_SERIES=6.1
sr_is_series() { [[ $1 =~ ^[0-9]+\.[0-9]+$ ]]; }
# sr_kernel_label NAME: a short name for result dirs and messages (6.1, 6.12.117).
sr_kernel_label() {
  local n=${1:-$SOFTROCE_DEFAULT_SERIES}
  if sr_is_series "$n"; then printf '%s' "$n"; return; fi
  n=${n#linux-image-}; n=${n%-amd64}; n=${n%%+*}
  printf '%s' "$n"
}
# sr_kernel_is NAME RELEASE: whether a guest's `uname -r` RELEASE is the kernel NAME asked for.
sr_kernel_is() {
  local n=${1:-$SOFTROCE_DEFAULT_SERIES}
  if sr_is_series "$n"; then [[ $2 == "$n".* ]]; else [ "$2" = "${n#linux-image-}" ]; fi
}
# sr_find_image RECIPE KPKG: the newest image dir in the cache built by this
# recipe from that package, or nothing.
sr_find_image() {
  local d
  # shellcheck disable=SC2045  # names are hex keys; newest first is what ls -t gives
  for d in $(ls -1dt "$SOFTROCE_CACHE"/img/*/ 2>/dev/null); do
    d=${d%/}
    if [ ! -f "$d/info" ] || [ ! -f "$d/initramfs.cpio.gz" ]; then continue; fi
    grep -qxF "RECIPE=$1" "$d/info" && grep -qxF "KPKG=$2" "$d/info" && { printf '%s' "$d"; return 0; }
  done
  return 1
}
# sr_resolved_kpkg NAME: the package NAME stands for, as build.sh last resolved
# it (a series) or as given (a package); nothing when a series was never resolved.
sr_resolved_kpkg() {
  local n=${1:-$SOFTROCE_DEFAULT_SERIES}
  if sr_is_series "$n"; then cat "$SOFTROCE_CACHE/series/$n" 2>/dev/null; else printf '%s' "$n"; fi
}

# What each kernel's rxe does where the kernels were measured to differ, so that a
# check can expect this kernel's own answer (docs/softroce.md, "Two kernels").
# sr_rxe_after_live_cut RELEASE (uname -r): after a link cut under a live RC
# connection and the link back up, "wedged" (that host's rxe device carries no
# packet until it is re-created: 6.1.192) or "recovers" (6.12.117); "unknown"
# for a kernel nobody measured, which a check must report rather than guess.
sr_rxe_after_live_cut() {
  case "$1" in
    6.1.*) echo wedged ;;
    6.12.*) echo recovers ;;
    *) echo unknown ;;
  esac
}

# sr_rxe_release_panic RELEASE (uname -r): the function a kernel is recorded to panic in when a QP is
# destroyed while its packets wait in a down netdev's queue and the link comes back (the selftest's
# release in the cut): on 6.1.192 now and then rxe_skb_tx_dtor, which finds the destroyed QP's socket
# without its QP (a NULL dereference at offset 0x774, in interrupt context); empty for a kernel with no
# such record.
sr_rxe_release_panic() {
  case "$1" in
    6.1.*) echo rxe_skb_tx_dtor ;;
    *) echo ;;
  esac
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
