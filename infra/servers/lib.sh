# shellcheck shell=bash
# Shared helpers for infra/servers/*.sh. Source it; do not run it.
set -euo pipefail

SERVERS_SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
INFRA_DIR="$(cd "$SERVERS_SCRIPT_DIR/.." && pwd)"
# Resolved artifacts (gitignored). Override with INFRA_CACHE_DIR.
INFRA_CACHE_DIR="${INFRA_CACHE_DIR:-$INFRA_DIR/.cache}"
# Runtime state: pid files, data, logs. Override with SERVERS_DIR.
SERVERS_DIR="${SERVERS_DIR:-$INFRA_CACHE_DIR/run}"
# Attempts for each Maven resolution (network hiccups on a cold ~/.m2).
MVN_ATTEMPTS="${MVN_ATTEMPTS:-4}"

log() { printf '[%s] %s\n' "${LOG_PREFIX:-servers}" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

need() {
  local c
  for c in "$@"; do command -v "$c" >/dev/null 2>&1 || die "required command '$c' not found on PATH"; done
}

# need_java17: both servers need Java 17 or newer on PATH (or JAVA_HOME/bin first on PATH).
need_java17() {
  need java
  local v
  v="$(java -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')"
  [[ "${v%%.*}" =~ ^[0-9]+$ && "${v%%.*}" -ge 17 ]] || die "Java 17+ required, found java.specification.version='$v' ($(command -v java))"
}

# mvn_retry <pom> <mvn args...>: runs Maven in batch mode with retries and backoff.
mvn_retry() {
  local pom="$1"; shift
  local attempt=1 delay=5 out
  out="$(mktemp)"
  while :; do
    if mvn -B -q -f "$pom" \
        -Dmaven.wagon.http.retryHandler.count=3 \
        -Dmaven.wagon.httpconnectionManager.ttlSeconds=25 \
        -Dhttp.keepAlive=false \
        "$@" >"$out" 2>&1; then
      rm -f "$out"; return 0
    fi
    if (( attempt >= MVN_ATTEMPTS )); then
      log "Maven failed after $attempt attempts; last output:"
      tail -n 40 "$out" >&2
      rm -f "$out"; return 1
    fi
    log "Maven attempt $attempt failed; retrying in ${delay}s (tail below)"
    tail -n 5 "$out" >&2
    sleep "$delay"; attempt=$((attempt + 1)); delay=$((delay * 2))
  done
}

# port_open <port> [host]: true if something accepts TCP connections on <host>:<port> (host 127.0.0.1).
port_open() {
  (exec 3<>"/dev/tcp/${2:-127.0.0.1}/$1") 2>/dev/null
}

# pid_alive <pidfile> <cmdline-marker>: true if the pid in the file is running and its
# command line contains the marker (guards against a recycled pid).
pid_alive() {
  local pidfile="$1" marker="$2" pid
  [[ -s "$pidfile" ]] || return 1
  pid="$(cat "$pidfile")"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  [[ -r "/proc/$pid/cmdline" ]] || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF -- "$marker"
}

# stop_pid <name> <pidfile> <marker> [timeout]: TERM, then KILL after timeout. Safe if nothing runs.
stop_pid() {
  local name="$1" pidfile="$2" marker="$3" timeout="${4:-30}" pid i
  if ! pid_alive "$pidfile" "$marker"; then
    rm -f "$pidfile"
    log "$name is not running"
    return 0
  fi
  pid="$(cat "$pidfile")"
  log "stopping $name (pid $pid)"
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < timeout * 4; i++)); do
    kill -0 "$pid" 2>/dev/null || { rm -f "$pidfile"; log "$name stopped"; return 0; }
    sleep 0.25
  done
  log "$name did not stop within ${timeout}s; sending KILL"
  kill -KILL "$pid" 2>/dev/null || true
  for ((i = 0; i < 40; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.25
  done
  rm -f "$pidfile"
  log "$name killed"
}

# rss_of <pidfile>: resident set size of the process in MiB (empty if not running).
rss_of() {
  local pid
  pid="$(cat "$1" 2>/dev/null)" || return 0
  awk '/^VmRSS:/ {printf "%d", $2/1024}' "/proc/$pid/status" 2>/dev/null || true
}

tail_log() {
  local f
  for f in "$@"; do
    [[ -f "$f" ]] || continue
    log "---- last lines of $f ----"
    tail -n 40 "$f" >&2
  done
}
