# Helpers the two-host benchmarks (two-hosts-cm.sh, two-hosts-sessions.sh) share, sourced inside the
# guests of tools/softroce/two-hosts.sh: host A serves, host B connects, and they meet on files in
# $SOFTROCE_WIRE_DIR.

wire_wait() {   # wire_wait NAME SECONDS: until the other host touched NAME, or give up
  local n=0
  until [ -e "$SOFTROCE_WIRE_DIR/$1" ]; do
    n=$((n + 1))
    [ "$n" -lt $(($2 * 10)) ] || { echo "host $SOFTROCE_HOST: no $1 after $2 s" >&2; return 1; }
    sleep 0.1
  done
}

# A listening rdma_cm id shows in the kernel's resource tracking, with its port.
cm_listening() {   # cm_listening PID PORT: until a listener on PORT is up, or PID ended
  local n=0
  until rdma resource show cm_id 2>/dev/null | grep -Eq "state LISTEN.*[^0-9]$2([^0-9]|\$)"; do
    kill -0 "$1" 2>/dev/null || return 1
    n=$((n + 1)); [ "$n" -lt 1200 ] || return 1; sleep 0.1
  done
}

# rxe's packet counters on the wire's device, cumulative since boot: a stuck run shows where packets
# stopped, and two of them around a run say what it sent, resent and refused (rcvd_rnr_err: RNR NAKs).
counters() { grep -H . "/sys/class/infiniband/$SOFTROCE_WIRE_DEV/ports/1/hw_counters/"* 2>/dev/null | sed 's|.*/||'; }

jvm() { "$SOFTROCE_JAVA" -cp "$JAR" "$@"; }

# serve_step ROUND WHAT OUT PORT LINGER DONE_WAIT COMMAND...: A's side of one benchmark. Runs COMMAND in the
# background, appending to OUT; tells B once its listener on PORT is up (or that none came), waits up to
# DONE_WAIT s for B to be done, then gives the server LINGER tenths of a second to end with its connection
# before ending it. Appends "server exit N".
serve_step() {
  local round=$1 what=$2 out=$3 port=$4 linger=$5 done_wait=$6 pid rc=0 n=0
  shift 6
  "$@" >> "$out" 2>&1 &
  pid=$!
  # Told even when no listener came up: B's client then fails at once, with its error in its file.
  cm_listening "$pid" "$port" || echo "no listener: the server ended or was not up in 120 s" >> "$out"
  touch "$SOFTROCE_WIRE_DIR/$round-$what.listening"
  wire_wait "$round-$what.done" "$done_wait" || true
  while kill -0 "$pid" 2>/dev/null && [ "$n" -lt "$linger" ]; do
    n=$((n + 1)); sleep 0.1
  done
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || rc=$?
  echo "server exit $rc" >> "$out"
}

# client_step ROUND WHAT OUT COMMAND...: B's side of one benchmark, once A's listener is up: runs COMMAND
# appending to OUT, then "wall_s S" (the guest's clock) and "client exit N" (125: no listener came). The
# caller touches ROUND-WHAT.done when it has recorded what it wants after the run.
client_step() {
  local round=$1 what=$2 out=$3 rc=0 t0
  shift 3
  if wire_wait "$round-$what.listening" 240; then
    t0=$(cut -d' ' -f1 /proc/uptime)
    "$@" >> "$out" 2>&1 || rc=$?
    echo "wall_s $(awk -v a="$t0" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { print b - a }')" >> "$out"
  else
    rc=125
  fi
  echo "client exit $rc" >> "$out"
}
