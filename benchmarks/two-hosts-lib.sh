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
