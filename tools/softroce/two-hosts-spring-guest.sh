#!/usr/bin/env bash
# Inside each guest of two-hosts-spring.sh (never run it on the host): the sample application on
# this host, driven through its HTTP endpoints (curl on 127.0.0.1), read through its event log and
# health JSON (jq; event-log.py after each exit) and checked against the kernel (`rdma resource
# show`), step by step in lockstep with the other host through files in $SOFTROCE_WIRE_DIR. A is the
# listener (profiles native,listener), B the peer (native,peer). The steps, in SPRING_TWO_STEPS order:
#   connect      A listens, B connects from application.yml alone, 200 echoes of 4 KiB with CRC32s,
#                one connected cm_id of the JVM in each kernel
#   data         B sends 4 messages of 16 MiB (rendezvous: A reads each by RDMA READ) and asks for one-
#                sided reads both ways (1 B, 1 MiB, 4 MiB: A reads B's exported region, B reads A's,
#                through remote region handles, CRC32 checked); afterwards each kernel holds the same
#                memory regions as before (`rdma resource show mr`: nothing of the exchange is left)
#   peer-killed  SIGKILL of A's JVM: B's peer down within DOWN_BOUND s, retrying; A again: B back
#   shutdown     SIGTERM to A while connected (every phase of its teardown, in order), then to B in
#                its reconnect storm: exit 143, nothing of any process in either kernel
#   together     (repeatable: together-1, together-2, ...) both JVMs started if none runs, B connected,
#                the echo, then SIGTERM to both in the same instant: exit 143 on both, no crash, each
#                event log accounts for every connection (disconnected by us or by the peer), both
#                kernels empty
#   restart      both JVMs again: B connected, the echo again
#   link-cut     eth0 down on A until B has noticed (its heartbeat's send fails), then up
#   link-cut-recovery  B connected again after the link is back, the echo again; on a kernel whose rxe
#                is recorded as wedged by such a cut (lib.sh's sr_rxe_after_live_cut) KNOWN with that
#                evidence (A's rxe1 counts no packet since eth0 came back), else a gated step
#   stop         always last, always run: as together (starting both first if none runs), so that no
#                JVM outlives the run
# Every wait is bounded; a failed step writes "FAIL <step>: why" to $SOFTROCE_OUT/results and
# abort.<host> to the wire, the other host gives up its current wait at once, and both go straight
# to the stop. The host script merges both results files. Also written to $SOFTROCE_OUT: each JVM's
# log and event log (app-<n>.log, app-<n>.events.jsonl), event-log.py's account per stop
# (<step>-events.txt), health and echo JSON, `rdma resource show` snapshots, and `timings` (one
# "<name> <ms>" a line).
#
# env (from two-hosts-spring.sh): SPRING_TWO_JAR, SPRING_TWO_AOT_CACHE, SPRING_TWO_STEPS, and the
# bounds in seconds SPRING_TWO_START_BOUND (300: JVM start to listening/answering),
# SPRING_TWO_CONNECT_BOUND (60), SPRING_TWO_DOWN_BOUND (15), SPRING_TWO_LINKCUT_BOUND (45),
# SPRING_TWO_RECONNECT_BOUND (60), SPRING_TWO_WEDGED_BOUND (20: how long B tries after the link is
# back on a kernel recorded as wedged), SPRING_TWO_STOP_BOUND (60).
# shellcheck disable=SC2317  # the steps and conditions are called by name (step_*, wait_for)
set -uo pipefail

host=$SOFTROCE_HOST
peer=$SOFTROCE_PEER_HOST
out=$SOFTROCE_OUT
wire=$SOFTROCE_WIRE_DIR
jar=$SPRING_TWO_JAR

START_BOUND=${SPRING_TWO_START_BOUND:-300}
CONNECT_BOUND=${SPRING_TWO_CONNECT_BOUND:-60}
DOWN_BOUND=${SPRING_TWO_DOWN_BOUND:-15}
LINKCUT_BOUND=${SPRING_TWO_LINKCUT_BOUND:-45}
RECONNECT_BOUND=${SPRING_TWO_RECONNECT_BOUND:-60}
WEDGED_BOUND=${SPRING_TWO_WEDGED_BOUND:-20}
STOP_BOUND=${SPRING_TWO_STOP_BOUND:-60}
ECHO_COUNT=200
ECHO_SIZE=4096
# A together round's echo only shows the connection live before the stop: what connect checked
# with 200 messages, 20 show again in a tenth of the time.
TOGETHER_ECHO_COUNT=20
if [ "$host" = A ]; then
  export RDMA_LISTEN_ADDRESS=$SOFTROCE_ADDR
  PROFILES=native,listener
else
  export RDMA_PEER_ADDRESS=$SOFTROCE_PEER_ADDR
  PROFILES=native,peer
fi
KERNEL=$(uname -r)

# shellcheck source=lib.sh
. "$SOFTROCE_HOME/lib.sh"
AFTER_LIVE_CUT=$(sr_rxe_after_live_cut "$KERNEL")
say() { echo "[$host +$(cut -d' ' -f1 /proc/uptime)s] $*"; }
timing() { echo "$1 $2" >> "$out/timings"; say "timing $1 $2 ms"; }
pass() { echo "PASS $1" >> "$out/results"; say "PASS $1"; }
fail() {
  echo "FAIL $1: $2" >> "$out/results"
  say "FAIL $1: $2"
  touch "$wire/abort.$host"
}
# known STEP WHY: a step that fails for a reason written down as this kernel's finding (docs/softroce.md):
# reported, never counted as passed, and it neither fails the run nor aborts the steps after it.
known() { echo "KNOWN $1: $2" >> "$out/results"; say "KNOWN $1: $2"; }
signal() { sr_now_ms > "$wire/$1"; }
aborted() { [ -e "$wire/abort.$host" ] || [ -e "$wire/abort.$peer" ] || [ -e "$wire/$peer.gone" ]; }

# wait_for SECONDS DESCRIPTION CONDITION...: lib.sh's wait; on failure WHY says what was not reached, or
# that the other host gave up (then there is nothing left to wait for). In the stop (LOCAL_WAITS=1) only
# the bound counts: it must run whatever the other host did.
WHY=
LOCAL_WAITS=0
peer_gave_up() {
  [ "$LOCAL_WAITS" = 0 ] || return 1
  if [ -e "$wire/abort.$peer" ]; then GAVE_UP="host $peer gave up"; return 0; fi
  if [ -e "$wire/$peer.gone" ]; then GAVE_UP="host $peer's guest ended"; return 0; fi
  return 1
}
wait_for() {
  local limit=$1 what=$2 rc
  shift 2
  SR_GIVE_UP=peer_gave_up sr_wait_for "$limit" "$@"
  rc=$?
  case $rc in
    0) return 0 ;;
    2) WHY="$GAVE_UP ($what not reached)" ;;
    *) WHY="$what not reached within $limit s" ;;
  esac
  return 1
}
wire_wait() { wait_for "$2" "$peer's $1" sr_on_wire "$1"; }

# shellcheck source=spring-app.sh
. "$SOFTROCE_HOME/spring-app.sh"

# echo_check LABEL [COUNT]: COUNT (ECHO_COUNT) messages of ECHO_SIZE bytes through B's peer, all
# echoed intact.
echo_check() {
  local f=$out/echo-$1.json n=${2:-$ECHO_COUNT} code t0
  t0=$(sr_now_ms)
  code=$(curl -s -m 120 -o "$f" -w '%{http_code}' -X POST "$base/rdma/connected/echo?count=$n&size=$ECHO_SIZE")
  timing "echo-$1" $(($(sr_now_ms) - t0))
  if [ "$code" != 200 ]; then WHY="echo: HTTP $code: $(head -c 300 "$f" 2>/dev/null)"; return 1; fi
  jq -e --argjson n "$n" '.sent == $n and .echoed == $n and .checksumMismatches == 0' "$f" > /dev/null \
    || { WHY="echo: not $n sent and echoed without checksum mismatches: $(head -c 300 "$f")"; return 1; }
}

# ---- both JVMs up and connected (the start of connect, restart, together, stop) ----
# up_a STEP: A's JVM listening; it waits for B to have connected and echoed.
up_a() {
  app_start || return 1
  wait_for "$START_BOUND" "a listening cm_id of the JVM" jvm_listening || return 1
  timing "$1-jvm-listening" $(($(sr_now_ms) - APP_T0))
  signal "a.listening.$1"
  wire_wait "b.up.$1" "$((START_BOUND + CONNECT_BOUND + 150))" || return 1
  await_event 0 '.event == "accepted" and .listener == "echo"'
}
# up_b STEP [COUNT]: B's JVM answering, its peer CONNECTED once A listens, the echo.
up_b() {
  local t0
  app_start || return 1
  wait_for "$START_BOUND" "an HTTP answer of the sample" answers || return 1
  timing "$1-jvm-answering" $(($(sr_now_ms) - APP_T0))
  wire_wait "a.listening.$1" "$START_BOUND" || return 1
  t0=$(sr_now_ms)
  wait_for "$CONNECT_BOUND" "peer-echo CONNECTED" peer_is CONNECTED \
    || { save_health "$1"; WHY="$WHY ($(peer_seen))"; return 1; }
  timing "$1-connect-after-listening" $(($(sr_now_ms) - t0))
  save_health "$1"
  await_event 0 '.event == "connected" and .peer == "echo"' || return 1
  echo_check "$1" "${2:-$ECHO_COUNT}" || return 1
  signal "b.up.$1"
}

# ---- the steps ----
step_connect_a() {
  up_a connect || { fail connect "$WHY"; return 1; }
  check_cm_connection connect || { fail connect "$WHY"; return 1; }
  check_objects_visible || { fail connect "$WHY"; return 1; }
  snapshot running
  wire_wait b.connect.done 180 || { fail connect "$WHY"; return 1; }
  pass connect
}
step_connect_b() {
  up_b connect || { fail connect "$WHY"; return 1; }
  check_cm_connection connect || { fail connect "$WHY"; return 1; }
  check_objects_visible || { fail connect "$WHY"; return 1; }
  snapshot running
  signal b.connect.done
  pass connect
}

# ---- data: large messages and one-sided RDMA both ways (issue 22) ----
mr_count() { process_objects mr; }
mr_count_is() { [ "$(mr_count)" = "$1" ]; }
# post_json FILE URL: POST to the sample, the body to FILE; prints the HTTP status.
post_json() { curl -s -m 300 -o "$1" -w '%{http_code}' -X POST "$2"; }
step_data_a() {
  local before
  before=$(mr_count)
  signal a.data.ready
  wire_wait b.data.done 900 || { fail data "$WHY"; return 1; }
  # B's last call released A's region (the endpoint's cascade close): A's kernel is where it was.
  wait_for 30 "A's memory regions back to $before" mr_count_is "$before" \
    || { fail data "$WHY: $(mr_count) now"; rdma resource show mr > "$out/mr-after-data.txt" 2>&1; return 1; }
  pass data
}
step_data_b() {
  local before f code t0 size
  wire_wait a.data.ready 120 || { fail data "$WHY"; return 1; }
  before=$(mr_count)
  # Four 16 MiB messages each way: by rendezvous (A reads each with RDMA READ), CRC32 checked.
  f=$out/echo-large.json
  t0=$(sr_now_ms)
  code=$(post_json "$f" "$base/rdma/connected/echo?count=4&size=16777216")
  timing data-echo-16MiB $(($(sr_now_ms) - t0))
  if [ "$code" != 200 ] || ! jq -e '.sent == 4 and .echoed == 4 and .checksumMismatches == 0' "$f" > /dev/null; then
    fail data "4 x 16 MiB echo: HTTP $code: $(head -c 300 "$f")"; return 1
  fi
  # One-sided: A reads B's exported region, B reads A's, each through a remote region handle; both
  # released at the end of each call.
  for size in 1 1048576 4194304; do
    f=$out/one-sided-$size.json
    t0=$(sr_now_ms)
    code=$(post_json "$f" "$base/rdma/connected/echo/one-sided?size=$size")
    timing "data-one-sided-$size" $(($(sr_now_ms) - t0))
    if [ "$code" != 200 ] || ! jq -e --argjson n "$size" '.ok and .bytes == $n
        and .listenerRead.ok and .listenerRead.crc32 == .listenerRead.readCrc32
        and .peerRead.ok and .peerRead.crc32 == .peerRead.readCrc32' "$f" > /dev/null; then
      fail data "one-sided reads of $size bytes both ways: HTTP $code: $(head -c 400 "$f")"; return 1
    fi
  done
  wait_for 30 "B's memory regions back to $before" mr_count_is "$before" \
    || { fail data "$WHY: $(mr_count) now"; rdma resource show mr > "$out/mr-after-data.txt" 2>&1; return 1; }
  signal b.data.done
  pass data
}

step_peer_killed_a() {
  kill -KILL "$JVM"
  app_exit 20 || { fail peer-killed "$WHY"; return 1; }
  [ "$APP_RC" = 137 ] || { fail peer-killed "the SIGKILLed JVM exited $APP_RC, not 137"; return 1; }
  signal a.killed
  say "SIGKILLed the listener's JVM"
  wire_wait b.down.seen "$((DOWN_BOUND + 40))" || { fail peer-killed "$WHY"; return 1; }
  app_start || { fail peer-killed "$WHY"; return 1; }
  wait_for "$START_BOUND" "a listening cm_id of the new JVM" jvm_listening || { fail peer-killed "$WHY"; return 1; }
  timing peer-killed-jvm-listening $(($(sr_now_ms) - APP_T0))
  signal a.listening.2
  wire_wait b.peer-killed.done "$((RECONNECT_BOUND + 150))" || { fail peer-killed "$WHY"; return 1; }
  await_event 0 '.event == "accepted"' || { fail peer-killed "$WHY"; return 1; }
  pass peer-killed
}
step_peer_killed_b() {
  local mark t0 n
  mark=$(events_mark)
  wire_wait a.killed 60 || { fail peer-killed "$WHY"; return 1; }
  t0=$(sr_now_ms)
  wait_for "$DOWN_BOUND" "peer-echo not CONNECTED after A's SIGKILL" peer_not CONNECTED || { save_health down; fail peer-killed "$WHY ($(peer_seen))"; return 1; }
  timing sigkill-detected $(($(sr_now_ms) - t0))
  save_health down
  [ -n "$(last_error)" ] || { fail peer-killed "peer-echo is $(detail peer-echo state) without a lastError"; return 1; }
  await_event "$mark" '.event == "down"' || { fail peer-killed "$WHY"; return 1; }
  echo "sigkill: $(field reason) [$(field failedCompletions)]" >> "$out/down-lines.txt"
  n=$(attempts) || n=
  [[ $n =~ ^[0-9]+$ ]] || { fail peer-killed "no attempts in peer-echo's health: $HEALTH"; return 1; }
  wait_for 20 "peer-echo attempts above $((n + 1)) while A is down" attempts_above $((n + 1)) || { fail peer-killed "$WHY"; return 1; }
  save_health retrying
  signal b.down.seen
  wire_wait a.listening.2 "$((START_BOUND + 30))" || { fail peer-killed "$WHY"; return 1; }
  t0=$(sr_now_ms)
  wait_for "$RECONNECT_BOUND" "peer-echo CONNECTED again after A's restart" peer_is CONNECTED || { save_health reconnect; fail peer-killed "$WHY ($(peer_seen))"; return 1; }
  timing sigkill-reconnected-after-listening $(($(sr_now_ms) - t0))
  save_health reconnected
  await_event "$mark" '.event == "connected"' || { fail peer-killed "$WHY (after A's restart)"; return 1; }
  echo_check after-sigkill || { fail peer-killed "$WHY"; return 1; }
  signal b.peer-killed.done
  pass peer-killed
}

# sigterm_own STEP EXPECT: SIGTERM to this host's JVM: exit 143 within STOP_BOUND, no crash log, its
# event log's account (event-log.py --expect EXPECT), and nothing of any process left in the kernel.
sigterm_own() {
  local step=$1 t0 why='' left crash
  if ! app_alive; then
    fail "$step" "no running JVM to stop (see $APP_LOG)"
    return 1
  fi
  local pid=$JVM
  kill -TERM "$JVM"
  t0=$(sr_now_ms)
  say "SIGTERM to the JVM $JVM"
  app_exit "$STOP_BOUND" || { fail "$step" "the JVM did not exit within $STOP_BOUND s of SIGTERM (killed)"; return 1; }
  timing "$step-sigterm-exit" $(($(sr_now_ms) - t0))
  crash=$(app_crash_log "$pid") && why="the JVM crashed: $crash ($(sr_hs_err_frame "$crash"))"
  [ "$APP_RC" = 143 ] || why="${why:+$why; }exit $APP_RC after SIGTERM, not 143"
  events_check "$step" "$2" || why="${why:+$why; }$WHY"
  snapshot "after-$step"
  left=$(kernel_left)
  [ -z "$left" ] || why="${why:+$why; }left in the kernel after the exit (rdma resource show): $left"
  if [ -n "$why" ]; then fail "$step" "$why"; return 1; fi
  pass "$step"
}
# sigterm_both STEP EXPECT: both hosts SIGTERM their JVM in the same instant: each says it is ready
# and both wait, polling fast, for the other's word (the one who comes second sees it at once).
# A peer whose guest has ended will never say it: then this host stops alone.
both_ready() { sr_on_wire "$1.ready.$host" && { sr_on_wire "$1.ready.$peer" || sr_on_wire "$peer.gone"; }; }
sigterm_both() {
  signal "$1.ready.$host"
  SR_POLL=0.02 wait_for 300 "both hosts ready for the $1 SIGTERM" both_ready "$1" \
    || say "not both ready for $1 ($WHY): stopping anyway"
  signal "$1.sigterm.$host"
  sigterm_own "$@"
}

# The connected pair stopped, A first: A's event log shows every phase of the connections' shutdown in
# order with its one connection; B sees the DISCONNECTED, reconnects in vain, and a SIGTERM in the
# middle of that storm still ends it within the bound, its loop stopped before its channel and the verbs.
step_shutdown_a() {
  signal a.sigterm
  sigterm_own shutdown connected=1
}
step_shutdown_b() {
  local mark n
  mark=$(events_mark)
  wire_wait a.sigterm 60 || { fail shutdown "$WHY"; return 1; }
  wait_for "$DOWN_BOUND" "peer-echo not CONNECTED after A's SIGTERM" peer_not CONNECTED \
    || { fail shutdown "$WHY ($(peer_seen))"; return 1; }
  await_event "$mark" '.event == "down" and (.reason | test("RDMA_CM_EVENT_DISCONNECTED"))' \
    || { fail shutdown "$WHY"; return 1; }
  echo "shutdown: $(field reason) [$(field failedCompletions)]" >> "$out/down-lines.txt"
  n=$(attempts) || n=0
  wait_for 30 "peer-echo attempts above $((n + 1)) after A's stop" attempts_above $((n + 1)) \
    || { fail shutdown "$WHY"; return 1; }
  save_health storm
  sigterm_own shutdown unconnected
}

# together-N: both up and connected (started if none runs), then stopped in the same instant. Which
# side's disconnect comes first is the race itself: each log must account for its connection either way.
step_together() {
  local step=$1
  if ! app_alive; then
    if [ "$host" = A ]; then up_a "$step"; else up_b "$step" "$TOGETHER_ECHO_COUNT"; fi || { fail "$step" "$WHY"; return 1; }
  fi
  sigterm_both "$step" any
}

# Both started again for the link cut: B connected to A again, the echo again.
step_restart_a() { up_a restart || { fail restart "$WHY"; return 1; }; pass restart; }
step_restart_b() { up_b restart || { fail restart "$WHY"; return 1; }; pass restart; }

wire_link_ready() {
  local a l
  a=$(ip -6 -o addr show dev eth0 scope link 2>/dev/null)
  l=$(rdma link show "$SOFTROCE_WIRE_DEV/1" 2>/dev/null)
  [[ $a == *" ${SOFTROCE_ADDR%%%*}/"* && $a != *tentative* && $l == *" state ACTIVE "* ]]
}
step_link_cut_a() {
  local t0 rc=0
  rxe_stats before-cut
  ip link set eth0 down || { fail link-cut "ip link set eth0 down"; return 1; }
  t0=$(sr_now_ms)
  signal a.link.down
  say "eth0 down"
  # Down until B has noticed: a cut shorter than B's detection would prove nothing.
  wire_wait b.link.detected "$((LINKCUT_BOUND + 10))" || { fail link-cut "$WHY"; rc=1; }
  rxe_stats end-of-cut
  ip link set eth0 up
  timing link-down $(($(sr_now_ms) - t0))
  say "eth0 up"
  wait_for 30 "eth0's address and $SOFTROCE_WIRE_DEV ACTIVE" wire_link_ready || { fail link-cut "$WHY"; return 1; }
  rxe_stats after-up
  [ "$rc" = 0 ] || return 1
  signal a.link.up
  pass link-cut
}
step_link_cut_b() {
  local mark t0
  mark=$(events_mark)
  wire_wait a.link.down 60 || { fail link-cut "$WHY"; return 1; }
  t0=$(sr_now_ms)
  rxe_stats cut
  wait_for "$LINKCUT_BOUND" "peer-echo not CONNECTED after A's eth0 went down" peer_not CONNECTED \
    || { save_health linkcut; rxe_stats undetected; fail link-cut "$WHY ($(peer_seen))"; return 1; }
  rxe_stats detected
  timing linkcut-detected $(($(sr_now_ms) - t0))
  save_health linkcut
  signal b.link.detected
  await_event "$mark" '.event == "down"' || { fail link-cut "$WHY"; return 1; }
  echo "link-cut: $(field reason) [$(field failedCompletions)]" >> "$out/down-lines.txt"
  # RC has no keepalive: only a send that exhausts its retries (IBV_WC_RETRY_EXC_ERR), or the
  # flushed work requests behind it (IBV_WC_WR_FLUSH_ERR), can have told B.
  grep -Eqi 'retry|flush' <<< "$(field reason) $(field failedCompletions) $(last_error)" \
    || { fail link-cut "B's peer went down, but not through a failed send (retry exceeded/flush): $EVENT"; return 1; }
  wire_wait a.link.up "$((LINKCUT_BOUND + 60))" || { fail link-cut "$WHY"; return 1; }
  pass link-cut
}

# What each kernel and JVM hold when the reconnect after the cut failed against the kernel's record: the
# CM ids (ten looks over 5 s), QPs, the neighbour and address tables, the JVM's threads (stuck-*.txt).
diagnose() {
  local i
  for i in 1 2 3 4 5 6 7 8 9 10; do
    echo "--- +$i"; rdma resource show cm_id | grep -v 'comm \['; sleep 0.5
  done > "$out/stuck-$1-cm_ids.txt" 2>&1
  { rdma resource show cm_id; rdma resource show qp; } > "$out/stuck-$1-resources.txt" 2>&1
  { ip -6 addr show dev eth0; ip -6 neigh show dev eth0; } > "$out/stuck-$1-net.txt" 2>&1
  if [ -n "$JVM" ]; then "${SOFTROCE_JDK:-$SOFTROCE_DEFAULT_JDK}/bin/jcmd" "$JVM" Thread.print > "$out/stuck-$1-threads.txt" 2>&1; fi
}
any_on_wire() { local f; for f; do sr_on_wire "$f" && return 0; done; return 1; }
# How long B tries after the link is back: on a kernel recorded as wedged by the cut, long enough for
# the evidence (its connects time out while A's rxe1 counts nothing), not the whole reconnect bound.
recovery_bound() { if [ "$AFTER_LIVE_CUT" = wedged ]; then echo "$WEDGED_BOUND"; else echo "$RECONNECT_BOUND"; fi; }
# A's part: when B did not reconnect, whether A's rxe1 counted any packet since eth0 came back.
step_link_cut_recovery_a() {
  local up now
  wait_for "$(($(recovery_bound) + 150))" "B's b.link-cut.done" any_on_wire b.link-cut.done b.recovery.failed \
    || { fail link-cut-recovery "$WHY"; return 1; }
  if sr_on_wire b.link-cut.done; then pass link-cut-recovery; return 0; fi
  rxe_stats stuck-recovery
  up=$(packets after-up); now=$(packets stuck-recovery)
  if [ -n "$up" ] && [ "$up" = "$now" ]; then
    echo "flat: $up from eth0 up to B's last attempt" > "$wire/a.rxe.verdict"
  else
    echo "moved: ${up:-?} at eth0 up, ${now:-?} after B's attempts" > "$wire/a.rxe.verdict"
  fi
  [ "$AFTER_LIVE_CUT" = wedged ] || diagnose recovery
  wire_wait b.link-cut.done 90
  if [ "$AFTER_LIVE_CUT" = wedged ] && [[ $(cat "$wire/a.rxe.verdict") == flat:* ]]; then
    known link-cut-recovery "kernel $KERNEL, recorded as wedged by a live cut: A's $SOFTROCE_WIRE_DEV counted no packet since eth0 came back ($(cat "$wire/a.rxe.verdict"))"
  else
    fail link-cut-recovery "B did not reconnect (kernel $KERNEL: $AFTER_LIVE_CUT after a live cut); A's $SOFTROCE_WIRE_DEV: $(cat "$wire/a.rxe.verdict")"
  fi
}
# B's part: CONNECTED again and the echo, within the bound. Anything else is a FAIL, except on a kernel
# recorded as wedged with A's flat counters as the evidence (two-hosts-selftest.sh's live cut shows the
# same with rping alone).
step_link_cut_recovery_b() {
  local t0 verdict bound
  bound=$(recovery_bound)
  t0=$(sr_now_ms)
  if wait_for "$bound" "peer-echo CONNECTED again after A's eth0 came back" peer_is CONNECTED; then
    timing linkcut-reconnected-after-up $(($(sr_now_ms) - t0))
    save_health linkup
    if echo_check after-linkcut; then pass link-cut-recovery; else fail link-cut-recovery "$WHY"; fi
    signal b.link-cut.done
    return 0
  fi
  save_health linkup
  local why
  why="$WHY ($(peer_seen))"
  [ "$AFTER_LIVE_CUT" = wedged ] || diagnose recovery
  signal b.recovery.failed
  wire_wait a.rxe.verdict 90 && verdict=$(cat "$wire/a.rxe.verdict")
  if [ "$AFTER_LIVE_CUT" = wedged ] && [[ ${verdict:-} == flat:* ]]; then
    known link-cut-recovery "kernel $KERNEL, recorded as wedged by a live cut: $why; A's $SOFTROCE_WIRE_DEV ${verdict}"
  else
    fail link-cut-recovery "$why (kernel $KERNEL: $AFTER_LIVE_CUT after a live cut); A's $SOFTROCE_WIRE_DEV ${verdict:-gave no verdict}"
  fi
  signal b.link-cut.done
}

: > "$out/results"
: > "$out/timings"
say "kernel $KERNEL ($AFTER_LIVE_CUT after a live cut), sample $jar, profiles $PROFILES, $SOFTROCE_ADDR -> $SOFTROCE_PEER_ADDR on $SOFTROCE_WIRE_DEV"
h=${host,,}
read -r -a STEPS <<< "${SPRING_TWO_STEPS:-connect data peer-killed shutdown together together restart link-cut link-cut-recovery}"
rounds=0
for step in "${STEPS[@]}"; do
  name=$step
  if [ "$step" = together ]; then rounds=$((rounds + 1)); name=together-$rounds; fi
  if aborted; then
    echo "FAIL $name: not run: an earlier step failed" >> "$out/results"
    continue
  fi
  t_step=$(sr_now_ms)
  if [ "$step" = together ]; then step_together "$name"; else "step_${step//-/_}_$h"; fi
  timing "step-$name" $(($(sr_now_ms) - t_step))
done
# The stop always runs, whatever failed, so that no JVM outlives the run: only its bound counts then,
# not what the other host did. With no JVM running and nothing failed, both are started for it.
LOCAL_WAITS=1
t_step=$(sr_now_ms)
if app_alive; then
  sigterm_both stop any
elif aborted; then
  echo "FAIL stop: not run: no JVM running after an earlier failure" >> "$out/results"
else
  LOCAL_WAITS=0
  step_together stop
fi
timing step-stop $(($(sr_now_ms) - t_step))
# Nothing may outlive the run, whatever failed (a JVM never found is still java.sh's child).
if [ -n "$WRAPPER" ] && kill -0 "$WRAPPER" 2>/dev/null; then
  if [ -n "$JVM" ] || jvm_child; then kill -KILL "$JVM" 2>/dev/null; fi
  kill -KILL "$WRAPPER" 2>/dev/null
fi
if grep -q '^FAIL' "$out/results"; then exit 1; fi
exit 0
