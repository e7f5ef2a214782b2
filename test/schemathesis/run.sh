#!/usr/bin/env bash
# `npm run schemathesis [-- SECONDS]`: Schemathesis (PyPI, pinned) with every check against a demo instance
# served from a throw-away data directory. Exits non-zero on any failure. SECONDS bounds the generated phases
# (default 120); CI runs a bounded pass. Needs python3 and PyPI for the first run (a venv under .cache/).
set -euo pipefail
cd "$(dirname "$0")/../.."
MAX_TIME="${1:-120}"
VENV=.cache/schemathesis-venv
VERSION=4.32.5
if [ ! -x "$VENV/bin/schemathesis" ] || [ "$("$VENV/bin/schemathesis" --version 2>/dev/null)" != "schemathesis, version $VERSION" ]; then
  rm -rf "$VENV" && python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$VERSION"
fi
DATA="$(mktemp -d /tmp/ifrs-schemathesis-XXXXXX)"
chmod 755 "$DATA"
PORT="$(node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")"
SERVER_PID=
cleanup() {
  if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
  rm -rf "$DATA"
}
trap cleanup EXIT
export LOG_LEVEL=warn
# A small demo (no PDFs): every operation has real ids to reach, in seconds.
KEY="$(node bin/ifrs.js --data-dir "$DATA" demo seed --filings 60 --no-pdf | node -pe 'JSON.parse(require("fs").readFileSync(0)).apiKey')"
node bin/ifrs.js --data-dir "$DATA" serve --port "$PORT" >"$DATA/serve.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 1 120); do curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null && break; sleep 0.5; done
BASE="http://127.0.0.1:$PORT/api/v2"
# The document's ids come from the live service; the demo key is a manager of the demo scope. One worker:
# with two threads, Hypothesis' lambda descriptions (ast.parse) can hit CPython 3.11's "AST constructor
# recursion depth mismatch" race, an error of the tool, not of the service.
SCHEMATHESIS_HOOKS=hooks PYTHONPATH=test/schemathesis \
"$VENV/bin/schemathesis" --config-file test/schemathesis/schemathesis.toml run "$BASE/openapi.json" --url "$BASE" \
  --header "Authorization: Bearer $KEY" \
  --checks all --max-time "$MAX_TIME" --workers 1 --seed 20261127 \
  --suppress-health-check all --no-color "${@:2}"
