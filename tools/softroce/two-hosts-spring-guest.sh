#!/usr/bin/env bash
# Inside each guest of two-hosts-spring.sh (never run it on the host): the sample application on
# this host, driven through its HTTP endpoints (curl on 127.0.0.1) and checked against the kernel
# (`rdma resource show`), step by step in lockstep with the other host through files in
# $SOFTROCE_WIRE_DIR. A is the listener (profiles native,listener), B the peer (native,peer).
#   connect      A listens, B connects from application.yml alone, 200 echoes of 4 KiB with CRC32s,
#                one connected cm_id of the JVM in each kernel
#   peer-killed  SIGKILL of A's JVM: B's peer down within DOWN_BOUND s, retrying; A again: B back
#   shutdown     SIGTERM on both while connected: exit 143 within STOP_BOUND s, every phase of the
#                connections' teardown in order in the log, nothing of any process in the kernel
#   restart      both JVMs again: B connected, the echo again
#   link-cut     eth0 down on A until B has noticed (its heartbeat's send fails), then up
#   link-cut-recovery  B back after the link is: KNOWN only with the kernel finding's evidence
#   stop         SIGTERM on both again (always run, so that no JVM outlives the run)
# Every wait is bounded; a failed step writes "FAIL <step>: why" to $SOFTROCE_OUT/results and
# abort.<host> to the wire, the other host gives up its current wait at once, and both go straight
# to the last stop (which always runs, so that no JVM outlives the run). The host script merges both
# results files. Also written to $SOFTROCE_OUT: the application logs (app-<n>.log), health and echo
# JSON, `rdma resource show` snapshots, and `timings` (one "<name> <ms>" a line).
#
# env (from two-hosts-spring.sh): SPRING_TWO_JAR, and the bounds in seconds SPRING_TWO_START_BOUND
# (300: JVM start to listening/answering), SPRING_TWO_CONNECT_BOUND (60), SPRING_TWO_DOWN_BOUND (15),
# SPRING_TWO_LINKCUT_BOUND (45), SPRING_TWO_RECONNECT_BOUND (60), SPRING_TWO_STOP_BOUND (60).
# shellcheck disable=SC2317  # the steps and conditions are called by name (step_*, wait_for)
set -uo pipefail

host=$SOFTROCE_HOST
peer=$SOFTROCE_PEER_HOST
out=$SOFTROCE_OUT
wire=$SOFTROCE_WIRE_DIR
jar=$SPRING_TWO_JAR
base=http://127.0.0.1:8080

START_BOUND=${SPRING_TWO_START_BOUND:-300}
CONNECT_BOUND=${SPRING_TWO_CONNECT_BOUND:-60}
DOWN_BOUND=${SPRING_TWO_DOWN_BOUND:-15}
LINKCUT_BOUND=${SPRING_TWO_LINKCUT_BOUND:-45}
RECONNECT_BOUND=${SPRING_TWO_RECONNECT_BOUND:-60}
STOP_BOUND=${SPRING_TWO_STOP_BOUND:-60}
ECHO_COUNT=200
ECHO_SIZE=4096
# What `rdma resource show` must hold nothing of once the JVM has exited.
KERNEL_TYPES=(pd cq qp mr cm_id ctx)

# The shutdown's dependency order in the application log after the SIGTERM, each "what|extended
# regex" looked for from the line of the one before it on (one line may say several): the
# connections' phases, one line per object (A's listener stops listening; every connection is
# disconnected, then released, QP and id first; a listener or peer without a connection says so
# once, which stands for both its steps), then the connection manager's event channel is closed
# (rdma_destroy_event_channel(3) needs the ids gone), then the verbs teardown releases everything
# under them and leaves nothing.
# SHUTDOWN_ORDER is A's with its connection (step shutdown): every phase has its line; STORM_ORDER
# B's, stopped while it reconnects to the A that went. STOP_ORDER is the
# last stop's, after the link cut, when no connection may be left (this kernel's rxe, see
# link-cut-recovery): a "had no connection" / "stopped connecting" line may stand in for a phase.
if [ "$host" = A ]; then
  SHUTDOWN_ORDER=(
    "listener stopped listening|RDMA listener 'echo' stopped listening on "
    "accepted connection disconnected|RDMA listener 'echo' connection from .* disconnected: DISCONNECTED after "
    "accepted connection released, QP then id|RDMA listener 'echo' connection from .* released: .*rdma_destroy_qp .*rdma_destroy_id "
  )
  STOP_ORDER=(
    "listener stopped listening|RDMA listener 'echo' stopped listening on "
    "accepted connection disconnected|RDMA listener 'echo' (connection from .* disconnected: |had no connection)"
    "accepted connection released, QP then id|RDMA listener 'echo' (connection from .* released: .*rdma_destroy_qp .*rdma_destroy_id |had no connection)"
  )
else
  # B stops in the middle of its reconnect attempts (step shutdown).
  STORM_ORDER=(
    "peer stopped connecting|RDMA peer 'echo' stopped connecting to "
  )
  STOP_ORDER=(
    "peer disconnected|RDMA peer 'echo' (disconnected from .*: |stopped connecting to )"
    "peer connection released, QP then id|RDMA peer 'echo' (connection to .* released: .*rdma_destroy_qp .*rdma_destroy_id |stopped connecting to )"
  )
fi
CLOSING_ORDER=(
  "connection manager event channel closed|RDMA connections: connection manager event channel closed"
  "verbs teardown, nothing left|RDMA verbs teardown .*left 0"
)
if [ "$host" = A ]; then SHUTDOWN_ORDER+=("${CLOSING_ORDER[@]}"); else STORM_ORDER+=("${CLOSING_ORDER[@]}"); fi
STOP_ORDER+=("${CLOSING_ORDER[@]}")
if [ "$host" = A ]; then
  export RDMA_LISTEN_ADDRESS=$SOFTROCE_ADDR
  PROFILES=native,listener
else
  export RDMA_PEER_ADDRESS=$SOFTROCE_PEER_ADDR
  PROFILES=native,peer
fi

# shellcheck source=lib.sh
. "$SOFTROCE_HOME/lib.sh"
# No date(1) per poll: every process costs under TCG.
now_ms() { local us; us=$(sr_now_us); printf '%s' $((us / 1000)); }
say() { echo "[$host +$(cut -d' ' -f1 /proc/uptime)s] $*"; }
timing() { echo "$1 $2" >> "$out/timings"; say "timing $1 $2 ms"; }
pass() { echo "PASS $1" >> "$out/results"; say "PASS $1"; }
fail() {
  echo "FAIL $1: $2" >> "$out/results"
  say "FAIL $1: $2"
  touch "$wire/abort.$host"
}
# known STEP WHY: a step that fails for a reason written down as an open finding (docs/softroce.md):
# reported, never counted as passed, and it neither fails the run nor aborts the steps after it.
known() { echo "KNOWN $1: $2" >> "$out/results"; say "KNOWN $1: $2"; }
signal() { now_ms > "$wire/$1"; }
aborted() { [ -e "$wire/abort.$host" ] || [ -e "$wire/abort.$peer" ] || [ -e "$wire/$peer.gone" ]; }

# wait_for SECONDS DESCRIPTION CONDITION...: polls CONDITION every 0.2 s. On failure WHY says what
# was not reached, or that the other host gave up (then there is nothing left to wait for).
# In the shutdown (LOCAL_WAITS=1) only the bound counts: it must run whatever the other host did.
WHY=
LOCAL_WAITS=0
wait_for() {
  local limit=$1 what=$2 end
  shift 2
  end=$(($(now_ms) + limit * 1000))
  until "$@"; do
    if [ "$LOCAL_WAITS" = 0 ] && [ -e "$wire/abort.$peer" ]; then WHY="host $peer gave up ($what not reached)"; return 1; fi
    if [ "$LOCAL_WAITS" = 0 ] && [ -e "$wire/$peer.gone" ]; then WHY="host $peer's guest ended ($what not reached)"; return 1; fi
    if [ "$(now_ms)" -ge "$end" ]; then WHY="$what not reached within $limit s"; return 1; fi
    sleep 0.2
  done
}
on_wire() { [ -e "$wire/$1" ]; }
wire_wait() { wait_for "$2" "$peer's $1" on_wire "$1"; }

# ---- the application ----
JVM=; WRAPPER=; APP_LOG=; APP_N=0
jvm_child() {   # the java process java.sh started (its child, exec'd by bash -c)
  local s pid line ppid
  for s in /proc/[0-9]*/stat; do
    pid=${s#/proc/}; pid=${pid%/stat}
    read -r line 2>/dev/null < "$s" || continue
    read -r _ ppid _ <<< "${line##*) }"
    if [ "$ppid" = "$WRAPPER" ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = java ]; then JVM=$pid; return 0; fi
  done
  return 1
}
app_start() {
  APP_N=$((APP_N + 1))
  APP_LOG=$out/app-$APP_N.log
  JVM=
  APP_T0=$(now_ms)
  "$SOFTROCE_JAVA" -jar "$jar" --spring.profiles.active="$PROFILES" > "$APP_LOG" 2>&1 &
  WRAPPER=$!
  say "started the sample ($PROFILES), log $APP_LOG"
  wait_for 20 "the JVM process" jvm_child
}
app_alive() { [ -n "$JVM" ] && kill -0 "$JVM" 2>/dev/null; }
# app_exit SECONDS: waits for the JVM (java.sh) to end; APP_RC is java.sh's exit code, the JVM's.
APP_RC=
app_gone() { ! kill -0 "$WRAPPER" 2>/dev/null; }
app_exit() {
  APP_RC=
  if ! wait_for "$1" "exit of the JVM $JVM" app_gone; then
    kill -KILL "$JVM" 2>/dev/null
    wait "$WRAPPER" 2>/dev/null
    return 1
  fi
  wait "$WRAPPER"
  APP_RC=$?
  JVM=
}
log_mark() { wc -l < "$APP_LOG"; }
# log_since MARK REGEX: the lines after line MARK of the application log that match REGEX
log_since() { tail -n +$(($1 + 1)) "$APP_LOG" | grep -E -- "$2"; }

HEALTH=
health() { HEALTH=$(curl -s -m 5 "$base/actuator/health/rdmaConnections" 2>/dev/null) && [ -n "$HEALTH" ]; }
# detail COMPONENT KEY: KEY in components.COMPONENT.details of $HEALTH (a string up to its first
# quote or comma, a number): the guest has no jq, and a poll every 0.2 s cannot afford a python.
detail() {
  local j=${HEALTH#*\""$1"\":}
  [ "$j" != "$HEALTH" ] || return 1
  j=${j#*\"details\":}
  local v=${j#*\""$2"\":}
  [ "$v" != "$j" ] || return 1
  v=${v#\"}
  printf '%s' "${v%%[\",\}]*}"
}
peer_state() { health && detail peer-echo state; }
peer_is() { [ "$(peer_state)" = "$1" ]; }
peer_not() { local s; s=$(peer_state) && [ -n "$s" ] && [ "$s" != "$1" ]; }
# The whole lastError string (escaped quotes kept), for the results.
last_error() { printf '%s' "$HEALTH" | sed -E 's/.*"peer-echo":.*"lastError":"(([^"\\]|\\.)*)".*/\1/;t;d'; }
attempts() { health && detail peer-echo attempts; }
attempts_above() { local n; n=$(attempts) && [[ $n =~ ^[0-9]+$ ]] && [ "$n" -gt "$1" ]; }
# What the last health poll said of the peer, for a failure message.
peer_seen() { printf 'last seen: state %s, attempts %s, lastError "%s"' "$(detail peer-echo state)" "$(detail peer-echo attempts)" "$(last_error)"; }
save_health() { health; printf '%s\n' "$HEALTH" > "$out/health-$1.json"; }
# await_log MARK REGEX: waits (10 s) for a line matching REGEX after line MARK of the application
# log, which may trail what the other host or the health endpoint already shows; LOGGED is that line.
LOGGED=
logged() { LOGGED=$(log_since "$1" "$2" | head -n 1); [ -n "$LOGGED" ]; }
await_log() { wait_for 10 "a log line /$2/ in $APP_LOG" logged "$1" "$2"; }
PEER_CONNECTED="RDMA peer 'echo' connected to .* \(attempt [0-9]+\)"
PEER_DOWN="RDMA peer 'echo' down: "
LISTENER_ACCEPTED="RDMA listener 'echo' accepted "
answers() { curl -s -m 5 -o /dev/null "$base/actuator/health"; }

# echo_check LABEL: ECHO_COUNT messages of ECHO_SIZE bytes through B's peer, all echoed intact.
echo_check() {
  local f=$out/echo-$1.json code body t0
  t0=$(now_ms)
  code=$(curl -s -m 120 -o "$f" -w '%{http_code}' -X POST "$base/rdma/connected/echo?count=$ECHO_COUNT&size=$ECHO_SIZE")
  timing "echo-$1" $(($(now_ms) - t0))
  body=$(cat "$f" 2>/dev/null)
  if [ "$code" != 200 ]; then WHY="echo: HTTP $code: ${body:0:300}"; return 1; fi
  local want
  for want in "\"sent\":$ECHO_COUNT" "\"echoed\":$ECHO_COUNT" '"checksumMismatches":0'; do
    [[ $body =~ ${want}[,}] ]] || { WHY="echo: no $want in ${body:0:300}"; return 1; }
  done
}

# ---- the kernel's view ----
# The kernel records the creating *thread* (task_pid_vnr), so an object is the JVM's when its pid
# is one of the JVM's threads, or a thread that has ended (the JVM is the only RDMA user here).
# No `| grep -q` under pipefail in these conditions: a reader that stops early fails the writer.
jvm_objects() {   # jvm_objects TYPE: the lines of `rdma resource show TYPE` of the running JVM
  local l all
  all=$(rdma resource show "$1" 2>/dev/null)
  while IFS= read -r l; do
    [[ $l =~ \ pid\ ([0-9]+)(\ |$) ]] || continue
    if [ -e "/proc/$JVM/task/${BASH_REMATCH[1]}" ] || [ ! -e "/proc/${BASH_REMATCH[1]}" ]; then
      printf '%s\n' "$l"
    fi
  done <<< "$all"
}
jvm_listening() { local l; l=$(jvm_objects cm_id); [[ $l == *" state LISTEN "* ]]; }
snapshot() {   # snapshot NAME: every type's `rdma resource show`, kernel objects included
  local t
  for t in "${KERNEL_TYPES[@]}"; do echo "== rdma resource show $t"; rdma resource show "$t" 2>&1; done > "$out/resources-$1.txt"
}
# The connection in this kernel: exactly one connected cm_id of the JVM, to the other host.
check_cm_connection() {
  local l connected=()
  jvm_objects cm_id > "$out/cm_id-$1.txt"
  while IFS= read -r l; do
    [[ $l == *" state CONNECT "* ]] && connected+=("$l")
  done < "$out/cm_id-$1.txt"
  if [ ${#connected[@]} != 1 ]; then
    WHY="rdma resource show cm_id: ${#connected[@]} connected ids of the JVM (pid $JVM), want 1"
    return 1
  fi
  [[ ${connected[0]} == *"dst-addr ${SOFTROCE_PEER_ADDR%%%*}"* ]] \
    || { WHY="the JVM's connected cm_id is not to ${SOFTROCE_PEER_ADDR%%%*}: ${connected[0]}"; return 1; }
}
# While the JVM runs, the leak check must see its objects, or its "nothing left" would prove nothing.
check_objects_visible() {
  local t missing=
  for t in "${KERNEL_TYPES[@]}"; do
    [ -n "$(jvm_objects "$t")" ] || missing="$missing $t"
  done
  [ -z "$missing" ] || { WHY="rdma resource show has none of the running JVM's:$missing"; return 1; }
}

# ---- the steps ----
step_connect_a() {
  app_start || { fail connect "$WHY"; return 1; }
  wait_for "$START_BOUND" "a listening cm_id of the JVM" jvm_listening || { fail connect "$WHY"; return 1; }
  timing jvm-1-listening $(($(now_ms) - APP_T0))
  signal a.listening
  wire_wait b.connected "$((START_BOUND + CONNECT_BOUND))" || { fail connect "$WHY"; return 1; }
  check_cm_connection connect || { fail connect "$WHY"; return 1; }
  check_objects_visible || { fail connect "$WHY"; return 1; }
  snapshot running
  await_log 0 "$LISTENER_ACCEPTED" || { fail connect "$WHY"; return 1; }
  wire_wait b.connect.done 180 || { fail connect "$WHY"; return 1; }
  pass connect
}
step_connect_b() {
  app_start || { fail connect "$WHY"; return 1; }
  wait_for "$START_BOUND" "an HTTP answer of the sample" answers || { fail connect "$WHY"; return 1; }
  timing jvm-1-answering $(($(now_ms) - APP_T0))
  wire_wait a.listening "$START_BOUND" || { fail connect "$WHY"; return 1; }
  local t0; t0=$(now_ms)
  wait_for "$CONNECT_BOUND" "peer-echo CONNECTED" peer_is CONNECTED || { save_health connect; fail connect "$WHY ($(peer_seen))"; return 1; }
  timing connect-after-listening $(($(now_ms) - t0))
  save_health connect
  signal b.connected
  await_log 0 "$PEER_CONNECTED" || { fail connect "$WHY"; return 1; }
  echo_check connect || { fail connect "$WHY"; return 1; }
  check_cm_connection connect || { fail connect "$WHY"; return 1; }
  check_objects_visible || { fail connect "$WHY"; return 1; }
  snapshot running
  signal b.connect.done
  pass connect
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
  timing jvm-2-listening $(($(now_ms) - APP_T0))
  signal a.listening.2
  wire_wait b.peer-killed.done "$((RECONNECT_BOUND + 150))" || { fail peer-killed "$WHY"; return 1; }
  await_log 0 "$LISTENER_ACCEPTED" || { fail peer-killed "$WHY"; return 1; }
  pass peer-killed
}
step_peer_killed_b() {
  local mark t0 n
  mark=$(log_mark)
  wire_wait a.killed 60 || { fail peer-killed "$WHY"; return 1; }
  t0=$(now_ms)
  wait_for "$DOWN_BOUND" "peer-echo not CONNECTED after A's SIGKILL" peer_not CONNECTED || { save_health down; fail peer-killed "$WHY ($(peer_seen))"; return 1; }
  timing sigkill-detected $(($(now_ms) - t0))
  save_health down
  [ -n "$(last_error)" ] || { fail peer-killed "peer-echo is $(detail peer-echo state) without a lastError"; return 1; }
  await_log "$mark" "$PEER_DOWN" || { fail peer-killed "$WHY"; return 1; }
  echo "sigkill: $LOGGED" >> "$out/down-lines.txt"
  n=$(attempts) || n=
  [[ $n =~ ^[0-9]+$ ]] || { fail peer-killed "no attempts in peer-echo's health: $HEALTH"; return 1; }
  wait_for 20 "peer-echo attempts above $((n + 1)) while A is down" attempts_above $((n + 1)) || { fail peer-killed "$WHY"; return 1; }
  save_health retrying
  signal b.down.seen
  wire_wait a.listening.2 "$((START_BOUND + 30))" || { fail peer-killed "$WHY"; return 1; }
  t0=$(now_ms)
  wait_for "$RECONNECT_BOUND" "peer-echo CONNECTED again after A's restart" peer_is CONNECTED || { save_health reconnect; fail peer-killed "$WHY ($(peer_seen))"; return 1; }
  timing sigkill-reconnected-after-listening $(($(now_ms) - t0))
  save_health reconnected
  await_log "$mark" "$PEER_CONNECTED" || { fail peer-killed "$WHY (after A's restart)"; return 1; }
  echo_check after-sigkill || { fail peer-killed "$WHY"; return 1; }
  signal b.peer-killed.done
  pass peer-killed
}

# rxe's counters on the wire's device (sent/received packets, completer retries, retry_exceeded_err):
# whether the cut link stopped the traffic and B's QP retried, whatever the application made of it.
rxe_stats() { rdma statistic show link "$SOFTROCE_WIRE_DEV/1" > "$out/rxe-stats-$1.txt" 2>&1; }
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
  t0=$(now_ms)
  signal a.link.down
  say "eth0 down"
  # Down until B has noticed: a cut shorter than B's detection would prove nothing.
  wire_wait b.link.detected "$((LINKCUT_BOUND + 10))" || { fail link-cut "$WHY"; rc=1; }
  rxe_stats end-of-cut
  ip link set eth0 up
  timing link-down $(($(now_ms) - t0))
  say "eth0 up"
  wait_for 30 "eth0's address and $SOFTROCE_WIRE_DEV ACTIVE" wire_link_ready || { fail link-cut "$WHY"; return 1; }
  rxe_stats after-up
  [ "$rc" = 0 ] || return 1
  signal a.link.up
  pass link-cut
}
# What each kernel and JVM hold when the reconnect after the cut failed: the CM ids (ten looks
# over 5 s), QPs, rxe's counters, the neighbour and address tables, the JVM's threads (stuck-*.txt).
diagnose() {
  local i
  for i in 1 2 3 4 5 6 7 8 9 10; do
    echo "--- +$i"; rdma resource show cm_id | grep -v 'comm \['; sleep 0.5
  done > "$out/stuck-$1-cm_ids.txt" 2>&1
  { rdma resource show cm_id; rdma resource show qp; } > "$out/stuck-$1-resources.txt" 2>&1
  rxe_stats "stuck-$1"
  { ip -6 addr show dev eth0; ip -6 neigh show dev eth0; } > "$out/stuck-$1-net.txt" 2>&1
  if [ -n "$JVM" ]; then "${SOFTROCE_JDK:-$SOFTROCE_DEFAULT_JDK}/bin/jcmd" "$JVM" Thread.print > "$out/stuck-$1-threads.txt" 2>&1; fi
}
# rxe's packet counters of the wire's device from a stats file: "sent_pkts N rcvd_pkts M".
packets() { grep -oE 'sent_pkts [0-9]+ rcvd_pkts [0-9]+' "$out/rxe-stats-$1.txt" 2>/dev/null; }
any_on_wire() { local f; for f; do [ -e "$wire/$f" ] && return 0; done; return 1; }
# Known only with the kernel finding's evidence (two-hosts-selftest.sh's live cut): A's rxe1 has
# counted no packet since eth0 came back. Anything else is a failure of the connections' recovery.
step_link_cut_recovery_a() {
  local up now
  wait_for "$((RECONNECT_BOUND + 150))" "B's b.link-cut.done" any_on_wire b.link-cut.done b.recovery.failed \
    || { fail link-cut-recovery "$WHY"; return 1; }
  if on_wire b.link-cut.done; then pass link-cut-recovery; return 0; fi
  diagnose recovery
  up=$(packets after-up); now=$(packets stuck-recovery)
  if [ -n "$up" ] && [ "$up" = "$now" ]; then
    echo "flat: $up from eth0 up to B's last attempt" > "$wire/a.rxe.verdict"
  else
    echo "moved: ${up:-?} at eth0 up, ${now:-?} after B's attempts" > "$wire/a.rxe.verdict"
  fi
  wire_wait b.link-cut.done 90
  if [[ $(cat "$wire/a.rxe.verdict") == flat:* ]]; then
    known link-cut-recovery "kernel finding: A's $SOFTROCE_WIRE_DEV counted no packet since eth0 came back ($(cat "$wire/a.rxe.verdict"))"
  else
    fail link-cut-recovery "B did not reconnect, although A's $SOFTROCE_WIRE_DEV carried packets ($(cat "$wire/a.rxe.verdict"))"
  fi
}
step_link_cut_b() {
  local mark t0
  mark=$(log_mark)
  wire_wait a.link.down 60 || { fail link-cut "$WHY"; return 1; }
  t0=$(now_ms)
  rxe_stats cut
  wait_for "$LINKCUT_BOUND" "peer-echo not CONNECTED after A's eth0 went down" peer_not CONNECTED \
    || { save_health linkcut; rxe_stats undetected; fail link-cut "$WHY ($(peer_seen))"; return 1; }
  rxe_stats detected
  timing linkcut-detected $(($(now_ms) - t0))
  save_health linkcut
  signal b.link.detected
  await_log "$mark" "$PEER_DOWN" || { fail link-cut "$WHY"; return 1; }
  echo "link-cut: $LOGGED" >> "$out/down-lines.txt"
  # RC has no keepalive: only a send that exhausts its retries (IBV_WC_RETRY_EXC_ERR), or the
  # flushed work requests behind it (IBV_WC_WR_FLUSH_ERR), can have told B.
  grep -Eqi 'retry|flush' <<< "$LOGGED $(last_error)" \
    || { fail link-cut "B's peer went down, but not through a failed send (retry exceeded/flush): $LOGGED"; return 1; }
  wire_wait a.link.up "$((LINKCUT_BOUND + 60))" || { fail link-cut "$WHY"; return 1; }
  pass link-cut
}
# The reconnect after the link is back. In Debian's 6.1 kernel it cannot happen: a cut under a live
# connection leaves A's rxe1 without a packet sent or received (two-hosts-selftest.sh's live cut
# reproduces it with rping alone), so a failure is KNOWN when A's counters show exactly that, and
# FAIL otherwise (docs/softroce.md, "The sample on two hosts").
step_link_cut_recovery_b() {
  local t0 verdict
  t0=$(now_ms)
  if wait_for "$RECONNECT_BOUND" "peer-echo CONNECTED again after A's eth0 came back" peer_is CONNECTED; then
    timing linkcut-reconnected-after-up $(($(now_ms) - t0))
    save_health linkup
    if echo_check after-linkcut; then pass link-cut-recovery; else fail link-cut-recovery "$WHY"; fi
    signal b.link-cut.done
    return 0
  fi
  save_health linkup   # also refreshes HEALTH, which the waits' subshells could not
  local why="$WHY ($(peer_seen))"
  diagnose recovery
  signal b.recovery.failed
  wire_wait a.rxe.verdict 90 && verdict=$(cat "$wire/a.rxe.verdict")
  if [[ ${verdict:-} == flat:* ]]; then
    known link-cut-recovery "kernel finding: $why; A's $SOFTROCE_WIRE_DEV ${verdict}"
  else
    fail link-cut-recovery "$why; A's $SOFTROCE_WIRE_DEV ${verdict:-gave no verdict}"
  fi
  signal b.link-cut.done
}

# sigterm_both STEP ORDER...: both hosts SIGTERM their JVM at the same moment (B says when): exit 143
# within STOP_BOUND, the ORDER's log lines in order after the SIGTERM, and an empty kernel.
sigterm_both() {
  if [ "$host" = B ]; then signal "$1.go"
  else wait_for 300 "B's $1.go" on_wire "$1.go" || say "no $1.go from B ($WHY): stopping anyway"
  fi
  sigterm_own "$@"
}
# sigterm_own STEP ORDER...: this host's half of it.
sigterm_own() {
  local step=$1 mark t0 t why='' prev entry what re n left=''
  shift
  if ! app_alive; then
    fail "$step" "no running JVM to stop (see $APP_LOG)"
    return 1
  fi
  mark=$(log_mark)
  kill -TERM "$JVM"
  t0=$(now_ms)
  say "SIGTERM to the JVM $JVM"
  app_exit "$STOP_BOUND" || { fail "$step" "the JVM did not exit within $STOP_BOUND s of SIGTERM (killed)"; return 1; }
  timing "$step-sigterm-exit" $(($(now_ms) - t0))
  [ "$APP_RC" = 143 ] || why="exit $APP_RC after SIGTERM, not 143"
  # Each step is looked for from the line of the step before it on (one line may say several), so
  # that an earlier line of the same words (the other side's disconnect) cannot stand in for it.
  prev=$((mark + 1))
  for entry in "$@"; do
    what=${entry%%|*}; re=${entry#*|}
    n=$(tail -n +"$prev" "$APP_LOG" | grep -n -m1 -E -- "$re" | cut -d: -f1)
    if [ -z "$n" ]; then
      echo "$what: none" >> "$out/$step-order.txt"
      why="${why:+$why; }no $step log line for: $what (/$re/) at or after line $prev"
      break
    fi
    prev=$((prev + n - 1))
    echo "$what: line $prev: $(sed -n "${prev}p" "$APP_LOG" | cut -c1-200)" >> "$out/$step-order.txt"
  done
  snapshot "after-$step"
  for t in "${KERNEL_TYPES[@]}"; do
    n=$(rdma resource show "$t" 2>/dev/null | grep -cE ' pid [0-9]+')
    [ "$n" = 0 ] || left="$left $t:$n"
  done
  [ -z "$left" ] || why="${why:+$why; }left in the kernel after the exit (rdma resource show):$left"
  if [ -n "$why" ]; then fail "$step" "$why"; return 1; fi
  pass "$step"
}
# The connected pair stopped, A first: A's log shows every phase of the connections' shutdown in
# order; B sees the DISCONNECTED, reconnects in vain, and a SIGTERM in the middle of that storm still
# ends it within the bound, its loop stopped before its channel and the verbs go. (Two SIGTERMs at
# the same moment would not show more: whoever disconnects first ends the other's connection.)
step_shutdown_a() {
  signal a.sigterm
  sigterm_own shutdown "${SHUTDOWN_ORDER[@]}"
}
step_shutdown_b() {
  local mark n
  mark=$(log_mark)
  wire_wait a.sigterm 60 || { fail shutdown "$WHY"; return 1; }
  wait_for "$DOWN_BOUND" "peer-echo not CONNECTED after A's SIGTERM" peer_not CONNECTED \
    || { fail shutdown "$WHY ($(peer_seen))"; return 1; }
  await_log "$mark" "${PEER_DOWN}the other side disconnected \(RDMA_CM_EVENT_DISCONNECTED\)" \
    || { fail shutdown "$WHY"; return 1; }
  echo "shutdown: $LOGGED" >> "$out/down-lines.txt"
  n=$(attempts) || n=0
  wait_for 30 "peer-echo attempts above $((n + 1)) after A's stop" attempts_above $((n + 1)) \
    || { fail shutdown "$WHY"; return 1; }
  save_health storm
  sigterm_own shutdown "${STORM_ORDER[@]}"
}
# Both started again for the link cut: B connected to A again, the echo again.
step_restart_a() {
  app_start || { fail restart "$WHY"; return 1; }
  wait_for "$START_BOUND" "a listening cm_id of the JVM" jvm_listening || { fail restart "$WHY"; return 1; }
  timing jvm-3-listening $(($(now_ms) - APP_T0))
  signal a.listening.3
  wire_wait b.restart.done "$((START_BOUND + CONNECT_BOUND + 150))" || { fail restart "$WHY"; return 1; }
  pass restart
}
step_restart_b() {
  local t0
  app_start || { fail restart "$WHY"; return 1; }
  wait_for "$START_BOUND" "an HTTP answer of the sample" answers || { fail restart "$WHY"; return 1; }
  wire_wait a.listening.3 "$START_BOUND" || { fail restart "$WHY"; return 1; }
  t0=$(now_ms)
  wait_for "$CONNECT_BOUND" "peer-echo CONNECTED" peer_is CONNECTED || { save_health restart; fail restart "$WHY ($(peer_seen))"; return 1; }
  timing restart-connect-after-listening $(($(now_ms) - t0))
  echo_check restart || { fail restart "$WHY"; return 1; }
  signal b.restart.done
  pass restart
}

: > "$out/results"
: > "$out/timings"
say "sample $jar, profiles $PROFILES, $SOFTROCE_ADDR -> $SOFTROCE_PEER_ADDR on $SOFTROCE_WIRE_DEV"
h=${host,,}
for step in connect peer-killed shutdown restart link-cut link-cut-recovery; do
  if aborted; then
    echo "FAIL $step: not run: an earlier step failed" >> "$out/results"
    continue
  fi
  "step_${step//-/_}_$h"
done
# The last stop always runs, whatever failed, so that no JVM outlives the run: only its bound
# counts then, not what the other host did.
LOCAL_WAITS=1
if app_alive || ! grep -q '^PASS shutdown' "$out/results"; then
  sigterm_both stop "${STOP_ORDER[@]}"
else
  echo "FAIL stop: not run: no JVM was started again after the shutdown" >> "$out/results"
fi
# Nothing may outlive the run, whatever failed (a JVM never found is still java.sh's child).
if [ -n "$WRAPPER" ] && kill -0 "$WRAPPER" 2>/dev/null; then
  if [ -n "$JVM" ] || jvm_child; then kill -KILL "$JVM" 2>/dev/null; fi
  kill -KILL "$WRAPPER" 2>/dev/null
fi
if grep -q '^FAIL' "$out/results"; then exit 1; fi
exit 0
