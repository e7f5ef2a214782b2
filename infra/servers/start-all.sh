#!/usr/bin/env bash
# Starts Kafka and Elasticsearch for integration tests and prints the variables to export.
# Usage: eval "$(infra/servers/start-all.sh)"   (progress goes to stderr, KEY=VALUE lines to stdout)
# Resolution (cold cache) runs in parallel; the servers start one after the other (2-core CI:
# starting both JVMs at once was not faster). On failure call stop-all.sh to clean up.
set -euo pipefail
dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# Resolve both in parallel on a cold cache (two separate Maven projects, safe to run together).
"$dir/kafka.sh" resolve >/dev/null & kpid=$!
"$dir/elasticsearch.sh" resolve >/dev/null & epid=$!
wait "$kpid" || { echo "start-all: Kafka resolution failed" >&2; exit 1; }
wait "$epid" || { echo "start-all: Elasticsearch resolution failed" >&2; exit 1; }
"$dir/kafka.sh" start
"$dir/elasticsearch.sh" start
