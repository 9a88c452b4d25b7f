# SPDX-License-Identifier: Apache-2.0
# Sourced by the throw-away test servers (scripts/rgw.sh, azurite.sh, gcs.sh): their shared
# command line (`start|stop|env DIR`), logging, port check, waiting and stopping, so that
# each script holds only what is its own server's.
#
# The script sets, before calling service_init: SERVICE (the log prefix), and after it
# SERVICE_LOGS (the log files under DIR, a glob, whose tail a failure prints) and
# SERVICE_TAIL (how many lines of them, default 30). It defines start(), its stop function
# and its env function, and ends with `service_main STOP_FN ENV_FN`.

# service_init "$@": the command and the absolute DIR (cmd, D); ROOT, the checkout.
service_init() {
  local usage
  usage="usage: $(basename "$0") start|stop|env DIR"
  cmd=${1:?$usage}
  D=$(realpath -m "${2:?$usage}")
  ROOT=$(cd "$(dirname "$0")/.." && pwd)
}

log() { echo "[$SERVICE] $*" >&2; }

# The tail (N lines, default SERVICE_TAIL) of the server's logs, on stderr.
tail_logs() {
  # SERVICE_LOGS is a glob: unquoted on purpose.
  # shellcheck disable=SC2086
  tail -n "${1:-${SERVICE_TAIL:-30}}" "$D"/$SERVICE_LOGS >&2 2>/dev/null || true
}

fail() {
  log "$*"
  tail_logs
  exit 1
}

# Every named binary is on PATH.
require_commands() {
  local b
  for b in "$@"; do
    command -v "$b" >/dev/null || fail "$b is missing: run scripts/setup.sh"
  done
}

port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# PORT HINT: a busy port is an error (never a skip).
require_free_port() {
  if port_busy "$1"; then
    fail "port $1 is in use ($2)"
  fi
}

# WHAT STOP_FN: a fresh DIR; what an earlier (crashed) run left there is stopped and wiped.
wipe_stale() {
  if [ -d "$D" ]; then
    log "removing $1 left by an earlier run in $D"
    "$2"
    rm -rf "$D"
  fi
}

# TRIES DELAY CMD...: runs CMD until it succeeds, at most TRIES times DELAY seconds apart.
wait_for() {
  local tries=$1 delay=$2 i
  shift 2
  for ((i = 0; i < tries; i++)); do
    "$@" && return 0
    sleep "$delay"
  done
  return 1
}

# Stopping: the pids SIGTERM-ed so far, waited for by stop_killed.
KILLED=()

# PID_FILE REGEX: SIGTERM to the pid in PID_FILE if it still runs a process whose command
# line matches REGEX (never someone else's process that got the pid later).
term_pid_file() {
  [ -f "$1" ] || return 0
  local p
  p=$(cat "$1")
  if kill -0 "$p" 2>/dev/null && grep -qE "$2" "/proc/$p/cmdline" 2>/dev/null; then
    kill "$p" 2>/dev/null && KILLED+=("$p")
  fi
  return 0
}

# REGEX: SIGTERM to every process whose command line matches REGEX (our servers whose pid
# files are gone with a wiped directory still name DIR there).
term_matching() {
  local proc
  for proc in /proc/[0-9]*; do
    if { tr '\0' ' ' <"$proc/cmdline"; } 2>/dev/null | grep -qE "$1"; then
      kill "${proc#/proc/}" 2>/dev/null && KILLED+=("${proc#/proc/}")
    fi
  done
  return 0
}

# Waits up to 5 s for each SIGTERM-ed pid to exit, then SIGKILLs it.
stop_killed() {
  local p
  for p in "${KILLED[@]}"; do
    wait_for 50 0.1 pid_gone "$p" || true
    kill -9 "$p" 2>/dev/null || true
  done
  KILLED=()
}

pid_gone() { ! kill -0 "$1" 2>/dev/null; }

# STOP_FN ENV_FN: runs the command: start, stop (STOP_FN, then DIR removed) or env.
service_main() {
  case "$cmd" in
    start) start ;;
    stop)
      "$1"
      rm -rf "$D"
      ;;
    env) "$2" ;;
    *) fail "unknown command '$cmd' (start|stop|env)" ;;
  esac
}
