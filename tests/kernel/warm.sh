# Sourced by the guest's scenario scripts (after they set PY and CHECKOUT): tapediag commands forked from one
# warm interpreter, tests/kernel/warm.py (its docstring says why and what a child shares with the server).
WARM_REQ=/tmp/warm.requests; WARM_REP=/tmp/warm.replies
SEP=$(printf '\037')
warm_start() {  # the server; should it end early, each request still gets an answer and a line in its stderr file
  mkfifo $WARM_REQ $WARM_REP
  ( "$PY" "$CHECKOUT/tests/kernel/warm.py" $WARM_REQ $WARM_REP
    while req=$(cat $WARM_REQ) && [ -n "$req" ]; do
      echo "tests/kernel/warm.py ended early: see the scenario's guest.log" > "$(echo "$req" | cut -d "$SEP" -f3)"
      if [ "$(echo "$req" | cut -d "$SEP" -f1)" = - ]; then echo 125 > $WARM_REP; else echo > $WARM_REP; fi
    done ) &
}
warm() {  # warm OUT ERR ARGS...: tapediag ARGS > OUT 2> ERR; returns its exit status
  printf "%s$SEP" - "$@" > $WARM_REQ
  read -r rc < $WARM_REP
  return "${rc:-125}"
}
warm_bg() {  # warm_bg PREFIX OUT ERR ARGS...: the same in the background, its PID in WARM_PID (empty if none);
  # when it ends, PREFIX.end holds the guest's uptime and then PREFIX.rc its exit status
  printf "%s$SEP" "$@" > $WARM_REQ
  read -r WARM_PID < $WARM_REP
}
warm_wait() {  # warm_wait PREFIX PID: until the command started by warm_bg has ended
  [ -n "$2" ] || { echo 125 > "$1.rc"; return; }
  while [ ! -f "$1.rc" ]; do sleep 0.05; done
}
warm_stop() { printf '' > $WARM_REQ; }
