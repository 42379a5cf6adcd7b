# shellcheck shell=bash
# Sourced by two-hosts-spring-guest.sh (inside each guest, never on the host): the sample application
# of this host, what it says and what the kernel holds of it.
#   app_*       start the JVM (java.sh, its AOT cache when there is one), find it, wait for its exit
#   health      /actuator/health/rdmaConnections, read with jq
#   event_*     the application's event log (rdma.verbs.connections.event-log, JSON lines; the format
#               is docs/configuration.md#the-event-log, pinned by EventLogTests), read with jq, and
#               checked after the exit by event-log.py
#   jvm_objects, snapshot, kernel_left   `rdma resource show` of this JVM / of everything
# Needs from the sourcing script: host, out, jar, PROFILES, and say, wait_for (lib.sh's sr_wait_for
# with the failure reason in WHY).
# shellcheck disable=SC2317  # conditions are called by name through wait_for
# shellcheck disable=SC2154,SC2034  # out, jar, WHY, APP_* are the sourcing script's

base=http://127.0.0.1:8080
# What `rdma resource show` must hold nothing of once the JVM has exited.
KERNEL_TYPES=(pd cq qp mr cm_id ctx)
AOT_CACHE=${SPRING_TWO_AOT_CACHE:-}

# ---- the JVM ----
JVM=; WRAPPER=; APP_LOG=; APP_EVENTS=; APP_N=0; APP_T0=
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
  local aot=()
  APP_N=$((APP_N + 1))
  APP_LOG=$out/app-$APP_N.log
  APP_EVENTS=$out/app-$APP_N.events.jsonl
  JVM=
  # The class data of the sample, trained on the host (two-hosts-spring.sh): without it the start
  # under TCG takes twice as long. A cache the JVM cannot use is ignored with a warning (AOTMode=auto).
  [ -n "$AOT_CACHE" ] && [ -f "$AOT_CACHE" ] && aot=("-XX:AOTCache=$AOT_CACHE" "-Xlog:aot=info:file=$out/aot-$APP_N.txt")
  APP_T0=$(sr_now_ms)
  "$SOFTROCE_JAVA" "${aot[@]}" -jar "$jar" --spring.profiles.active="$PROFILES" \
    --rdma.verbs.connections.event-log="$APP_EVENTS" > "$APP_LOG" 2>&1 &
  WRAPPER=$!
  say "started the sample ($PROFILES${aot:+, AOT cache}), log $APP_LOG"
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
# The JVM's crash log, if it crashed (java.sh points -XX:ErrorFile at this host's out dir).
app_crash_log() { local f=$out/hs_err_pid$1.log; [ -f "$f" ] && printf '%s' "$f"; }
answers() { curl -s -m 5 -o /dev/null "$base/actuator/health"; }

# ---- health ----
HEALTH=
health() { HEALTH=$(curl -s -m 5 "$base/actuator/health/rdmaConnections" 2>/dev/null) && [ -n "$HEALTH" ]; }
# detail COMPONENT KEY: components.COMPONENT.details.KEY of the last health answer, empty if absent.
detail() { jq -r --arg c "$1" --arg k "$2" '.components[$c].details[$k] // empty' <<< "$HEALTH" 2>/dev/null; }
peer_state() { health && detail peer-echo state; }
peer_is() { [ "$(peer_state)" = "$1" ]; }
peer_not() { local s; s=$(peer_state) && [ -n "$s" ] && [ "$s" != "$1" ]; }
last_error() { detail peer-echo lastError; }
attempts() { health && detail peer-echo attempts; }
attempts_above() { local n; n=$(attempts) && [[ $n =~ ^[0-9]+$ ]] && [ "$n" -gt "$1" ]; }
# What the last health answer said of the peer, for a failure message.
peer_seen() { printf 'last seen: state %s, attempts %s, lastError "%s"' "$(detail peer-echo state)" "$(detail peer-echo attempts)" "$(last_error)"; }
save_health() { health; printf '%s\n' "$HEALTH" > "$out/health-$1.json"; }

# ---- the event log ----
events_mark() { local n; n=$(wc -l < "$APP_EVENTS" 2>/dev/null) || n=0; printf '%s' "${n:-0}"; }
# event_seen MARK FILTER: EVENT is the first line after line MARK of the event log that the jq boolean
# FILTER selects (compact JSON); the application may write it a little after what the other host or
# the health endpoint already shows.
EVENT=
event_seen() {
  EVENT=$(tail -n +"$(($1 + 1))" "$APP_EVENTS" 2>/dev/null | jq -c "select($2)" 2>/dev/null | head -n 1)
  [ -n "$EVENT" ]
}
await_event() { wait_for 10 "an event log line ($2) in $APP_EVENTS" event_seen "$1" "$2"; }
# field KEY: KEY of EVENT, as text.
field() { jq -r --arg k "$1" '.[$k] // empty | if type == "array" then join(", ") else tostring end' <<< "$EVENT"; }
# events_check STEP EXPECT: event-log.py on this JVM's log once it exited (every connection's start has
# one end, the shutdown's phases in order, QP before id, nothing left; EXPECT connected=N|unconnected|any);
# its lines go to STEP-events.txt, WHY to its verdict on failure.
events_check() {
  python3 "$SOFTROCE_HOME/event-log.py" "$APP_EVENTS" --expect "$2" > "$out/$1-events.txt" 2>&1 && return 0
  WHY=$(grep -m1 '^FAIL' "$out/$1-events.txt" || tail -n 1 "$out/$1-events.txt")
  return 1
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
# process_objects TYPE: how many objects of TYPE any process holds in this kernel.
process_objects() { rdma resource show "$1" 2>/dev/null | grep -cE ' pid [0-9]+'; }
# kernel_left: what any process still holds, "TYPE:N ...", empty when nothing.
kernel_left() {
  local t n left=''
  for t in "${KERNEL_TYPES[@]}"; do
    n=$(process_objects "$t")
    [ "$n" = 0 ] || left="$left $t:$n"
  done
  printf '%s' "${left# }"
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
# rxe's counters on the wire's device (sent/received packets, completer retries, retry_exceeded_err):
# whether the cut link stopped the traffic and B's QP retried, whatever the application made of it.
rxe_stats() { rdma statistic show link "$SOFTROCE_WIRE_DEV/1" > "$out/rxe-stats-$1.txt" 2>&1; }
# rxe's packet counters of the wire's device from a stats file: "sent_pkts N rcvd_pkts M".
packets() { grep -oE 'sent_pkts [0-9]+ rcvd_pkts [0-9]+' "$out/rxe-stats-$1.txt" 2>/dev/null; }
