#!/usr/bin/env bash
# Stops Elasticsearch and Kafka if they run (safe to call when nothing runs).
set -uo pipefail
dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
rc=0
"$dir/elasticsearch.sh" stop || rc=1
"$dir/kafka.sh" stop || rc=1
exit "$rc"
