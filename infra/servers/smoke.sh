#!/usr/bin/env bash
# Smoke check: starts Kafka and Elasticsearch, exercises each, stops them again
# (unless they were already running before, or SMOKE_KEEP_RUNNING=1).
# Prints "N passed, N failed" at the end; exits non-zero on any failure.
set -uo pipefail
dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ES_URL="http://127.0.0.1:${ES_PORT:-9200}"
BROKER="127.0.0.1:${KAFKA_PORT:-9092}"
pass=0 fail=0
ok() { echo "ok   - $*"; pass=$((pass + 1)); }
ko() { echo "FAIL - $*"; fail=$((fail + 1)); }
check() { local name="$1"; shift; if "$@"; then ok "$name"; else ko "$name"; fi; }

was_running_kafka=0 was_running_es=0
"$dir/kafka.sh" status >/dev/null 2>&1 && was_running_kafka=1
"$dir/elasticsearch.sh" status >/dev/null 2>&1 && was_running_es=1
cleanup() {
  if [[ "${SMOKE_KEEP_RUNNING:-0}" != 1 ]]; then
    (( was_running_es )) || "$dir/elasticsearch.sh" stop
    (( was_running_kafka )) || "$dir/kafka.sh" stop
  fi
}
trap cleanup EXIT

if ! "$dir/start-all.sh"; then
  echo "0 passed, 1 failed"
  exit 1
fi

# ---------------- Kafka: create a topic, produce one message, consume it ----------------
topic="smoke-$$-$RANDOM"
msg="hello-$RANDOM"
kafka_topic() {
  "$dir/kafka.sh" tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$BROKER" \
    --create --topic "$topic" --partitions 1 --replication-factor 1 >/dev/null
}
kafka_produce() {
  printf '%s\n' "$msg" | "$dir/kafka.sh" tool org.apache.kafka.tools.ConsoleProducer \
    --bootstrap-server "$BROKER" --topic "$topic" >/dev/null
}
kafka_consume() {
  local got
  got="$("$dir/kafka.sh" tool org.apache.kafka.tools.consumer.ConsoleConsumer --bootstrap-server "$BROKER" \
    --topic "$topic" --from-beginning --max-messages 1 --timeout-ms 30000 2>/dev/null)"
  [[ "$got" == "$msg" ]] || { echo "  consumed '$got', expected '$msg'"; return 1; }
}
kafka_autocreate() {
  # auto.create.topics.enable=true: producing to an unknown topic creates it.
  printf 'x\n' | "$dir/kafka.sh" tool org.apache.kafka.tools.ConsoleProducer \
    --bootstrap-server "$BROKER" --topic "$topic-auto" >/dev/null &&
  "$dir/kafka.sh" tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$BROKER" --list | grep -qx "$topic-auto"
}
check "kafka: create topic $topic" kafka_topic
check "kafka: produce one message" kafka_produce
check "kafka: consume the message back" kafka_consume
check "kafka: topic auto-creation" kafka_autocreate

# ---------------- Elasticsearch: index, version, alias, search ----------------
idx="smoke-$$-$RANDOM"
es() { # es METHOD PATH [JSON] -> body on stdout, fails on HTTP >= 400
  local m="$1" p="$2"; shift 2
  curl -sS --fail-with-body --max-time 30 -X "$m" -H 'content-type: application/json' "$ES_URL$p" ${1:+-d "$1"}
}
has() { grep -q -- "$1" <<<"$2" || { echo "  expected '$1' in: ${2:0:400}"; return 1; }; }

es_health() { has '"status":"green"\|"status":"yellow"' "$(es GET /_cluster/health)"; }
es_create() {
  has '"acknowledged":true' "$(es PUT "/$idx" '{
    "settings": {"number_of_shards": 1, "number_of_replicas": 0,
      "analysis": {"analyzer": {"std_en": {"type": "standard", "stopwords": "_english_"}}}},
    "aliases": {"'"$idx"'-alias": {}},
    "mappings": {"properties": {
      "title": {"type": "text", "analyzer": "std_en", "fields": {"raw": {"type": "keyword"},
                "en": {"type": "text", "analyzer": "english"}}},
      "group": {"type": "keyword"}}}}')"
}
es_index() {
  es PUT "/$idx-alias/_doc/1?version=5&version_type=external" '{"title":"Auto insurance rate filing","group":"a"}' >/dev/null &&
  es PUT "/$idx-alias/_doc/2?version=1&version_type=external" '{"title":"Homeowners insurance rule filing","group":"a"}' >/dev/null &&
  es PUT "/$idx-alias/_doc/3?version=1&version_type=external&refresh=true" '{"title":"Auto insurance form filing","group":"b"}' >/dev/null
}
es_external_conflict() {
  local code
  code="$(curl -s -o /dev/null -w '%{http_code}' -X PUT -H 'content-type: application/json' \
    "$ES_URL/$idx/_doc/1?version=3&version_type=external" -d '{"title":"stale"}')"
  [[ "$code" == 409 ]] || { echo "  expected 409 for an older external version, got $code"; return 1; }
}
es_search() {
  local r
  r="$(es POST "/$idx-alias/_search" '{"query":{"match":{"title":"the insurance filings filing"}},
    "collapse":{"field":"group"},"highlight":{"fields":{"title":{}}}}')" || return 1
  has '"value":3' "$r" && has '<em>insurance</em>' "$r" && has '"group":\["a"\]' "$r" && has '"group":\["b"\]' "$r"
}
es_root() { has '"number":"8\.' "$(es GET /)" && curl -sf -o /dev/null -I "$ES_URL/"; }
es_english() {
  local r
  r="$(es POST "/$idx/_search" '{"query":{"match":{"title.en":{"query":"filed rates","operator":"and"}}},"highlight":{"fields":{"title.en":{}}}}')" || return 1
  has '"value":1' "$r" && has '<em>rate</em> <em>filing</em>' "$r"
}
check "elasticsearch: cluster health" es_health
check "elasticsearch: GET / and HEAD / (infra-compat plugin)" es_root
check "elasticsearch: create index with mapping + alias" es_create
check "elasticsearch: index docs with version_type=external" es_index
check "elasticsearch: stale external version rejected (409)" es_external_conflict
check "elasticsearch: search with highlight + collapse via alias" es_search
check "elasticsearch: english analyzer (stemming) + highlight" es_english
es DELETE "/$idx" >/dev/null || true

echo "$pass passed, $fail failed"
(( fail == 0 ))
