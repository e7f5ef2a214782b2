#!/usr/bin/env bash
# Versity S3 Gateway (a real S3 server over a POSIX directory) for tests, plain http on one address.
# Usage: infra/servers/s3.sh start|stop|status|install
# start prints the environment lines for `eval`: S3_ENDPOINT, S3_BUCKET, AWS_ACCESS_KEY_ID,
# AWS_SECRET_ACCESS_KEY, S3_FORCE_PATH_STYLE, S3_REGION.
# Env: S3_HOST (bind address, 127.0.0.1), S3_PORT (a free port when unset), S3_BUCKET (ifrs-test; created by
#      the service at start), S3_ACCESS_KEY / S3_SECRET_KEY (the gateway's root user), S3_REGION (us-east-1),
#      S3_START_TIMEOUT (30 s), VERSITYGW_VERSION (v1.8.0), SERVERS_DIR (infra/.cache/run),
#      INFRA_CACHE_DIR (infra/.cache; the binary is `go install`ed into $INFRA_CACHE_DIR/versitygw-<version>)
LOG_PREFIX=s3
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

VERSITYGW_VERSION="${VERSITYGW_VERSION:-v1.8.0}"
S3_HOST="${S3_HOST:-127.0.0.1}"
S3_BUCKET="${S3_BUCKET:-ifrs-test}"
S3_ACCESS_KEY="${S3_ACCESS_KEY:-ifrs-test-access}"
S3_SECRET_KEY="${S3_SECRET_KEY:-ifrs-test-secret-key}"
S3_REGION="${S3_REGION:-us-east-1}"
S3_START_TIMEOUT="${S3_START_TIMEOUT:-30}"

S3_BIN_DIR="$INFRA_CACHE_DIR/versitygw-$VERSITYGW_VERSION"
S3_BIN="$S3_BIN_DIR/versitygw"
S3_HOME_DIR="$SERVERS_DIR/s3"
S3_DATA="$S3_HOME_DIR/data"
S3_PID="$S3_HOME_DIR/versitygw.pid"
S3_ADDR_FILE="$S3_HOME_DIR/address"
S3_OUT="$S3_HOME_DIR/stdout.log"
S3_MARKER="versitygw"

install() {
  if [[ -x "$S3_BIN" ]]; then return 0; fi
  need go
  log "go install github.com/versity/versitygw/cmd/versitygw@$VERSITYGW_VERSION into $S3_BIN_DIR (about 2 minutes the first time)"
  mkdir -p "$S3_BIN_DIR"
  GOBIN="$S3_BIN_DIR" go install "github.com/versity/versitygw/cmd/versitygw@$VERSITYGW_VERSION" >&2 \
    || die "go install of versitygw $VERSITYGW_VERSION failed"
  [[ -x "$S3_BIN" ]] || die "versitygw missing in $S3_BIN_DIR after go install"
}

# accepts <host> <port>: true if something accepts TCP connections there.
accepts() { (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; }

free_port() {
  need node
  node -e "const s=require('net').createServer();s.listen(0,process.argv[1],()=>{console.log(s.address().port);s.close()})" "$S3_HOST"
}

print_env() {
  local addr
  addr="$(cat "$S3_ADDR_FILE")"
  echo "S3_ENDPOINT=http://$addr"
  echo "S3_BUCKET=$S3_BUCKET"
  echo "AWS_ACCESS_KEY_ID=$S3_ACCESS_KEY"
  echo "AWS_SECRET_ACCESS_KEY=$S3_SECRET_KEY"
  echo "S3_FORCE_PATH_STYLE=true"
  echo "S3_REGION=$S3_REGION"
}

is_running() { pid_alive "$S3_PID" "$S3_MARKER"; }

start() {
  if is_running; then
    log "already running (pid $(cat "$S3_PID"), $(cat "$S3_ADDR_FILE"))"
    print_env
    return 0
  fi
  rm -f "$S3_PID"
  install
  local port="${S3_PORT:-$(free_port)}"
  if accepts "$S3_HOST" "$port"; then die "$S3_HOST:$port is already in use by another process; set S3_PORT"; fi
  mkdir -p "$S3_DATA"
  echo "$S3_HOST:$port" >"$S3_ADDR_FILE"
  log "starting versitygw $VERSITYGW_VERSION on $S3_HOST:$port (posix backend in $S3_DATA)"
  : >"$S3_OUT"
  # setsid: own session, so the gateway outlives this shell and is not hit by its signals.
  # --keep-alive: without it every request of a client pays a new connection.
  ROOT_ACCESS_KEY="$S3_ACCESS_KEY" ROOT_SECRET_KEY="$S3_SECRET_KEY" VGW_REGION="$S3_REGION" \
    setsid bash -c 'echo $$ >"$1"; shift; exec "$@"' _ "$S3_PID" \
    "$S3_BIN" --port "$S3_HOST:$port" --keep-alive --quiet posix "$S3_DATA" \
    </dev/null >>"$S3_OUT" 2>&1 &
  local i=0
  while [[ ! -s "$S3_PID" ]] && (( i++ < 50 )); do sleep 0.1; done
  local deadline=$((SECONDS + S3_START_TIMEOUT))
  until accepts "$S3_HOST" "$port"; do
    if ! is_running; then tail_log "$S3_OUT"; die "versitygw exited during startup"; fi
    if (( SECONDS >= deadline )); then
      tail_log "$S3_OUT"
      stop_pid versitygw "$S3_PID" "$S3_MARKER" 10
      die "versitygw was not accepting connections within ${S3_START_TIMEOUT}s"
    fi
    sleep 0.2
  done
  log "ready (pid $(cat "$S3_PID"), RSS $(rss_of "$S3_PID") MiB, log $S3_OUT)"
  print_env
}

status() {
  if is_running; then
    echo "s3: running (pid $(cat "$S3_PID"), $(cat "$S3_ADDR_FILE"), RSS $(rss_of "$S3_PID") MiB)"
  else
    echo "s3: not running"
    return 3
  fi
}

case "${1:-}" in
  start) start ;;
  stop) stop_pid versitygw "$S3_PID" "$S3_MARKER" "${S3_STOP_TIMEOUT:-10}" ;;
  status) status ;;
  install) install; echo "$S3_BIN" ;;
  *) echo "usage: $0 start|stop|status|install" >&2; exit 2 ;;
esac
