"""Schemathesis hooks for `npm run schemathesis`.

A cursor is an HMAC-signed token bound to the caller and the request (400 `invalid_cursor` otherwise): no
generated string can be one, so the run's copy of the document drops the `cursor` inputs. Cursors are tested
by the project's own suites. The served document is unchanged.
"""

import uuid

import schemathesis


def _drop_cursor(node):
    if isinstance(node, dict):
        params = node.get("parameters")
        if isinstance(params, list):
            node["parameters"] = [p for p in params if not (isinstance(p, dict) and p.get("name") == "cursor" and p.get("in") == "query")]
        props = node.get("properties")
        if isinstance(props, dict) and "cursor" in props and node.get("type") == "object":
            props.pop("cursor")
            if isinstance(node.get("required"), list) and "cursor" in node["required"]:
                node["required"].remove("cursor")
        for value in node.values():
            _drop_cursor(value)
    elif isinstance(node, list):
        for value in node:
            _drop_cursor(value)


@schemathesis.hook
def before_load_schema(ctx, raw_schema):
    # Request inputs only: response schemas keep `nextCursor` (a different name) anyway.
    for item in raw_schema.get("paths", {}).values():
        _drop_cursor(item)
    _drop_cursor(raw_schema.get("components", {}).get("schemas", {}))


@schemathesis.hook
def filter_query(ctx, query):
    # Catalog list: sourceReference, sourceStatus and filingType need exactly one `source` (stated likewise).
    if isinstance(query, dict) and any(k in query for k in ("sourceReference", "sourceStatus", "filingType")):
        source = query.get("source")
        if not isinstance(source, str):
            return False
    return True


@schemathesis.hook("before_call")
def fresh_idempotency_key(ctx, case, **kwargs):
    # An Idempotency-Key names one request: the generator reuses the document's example key (and its
    # boundary values) for different requests, which the service rightly answers with 422
    # idempotency_key_reused. Each generated request gets a fresh key; replays are tested by the suite.
    # Positive cases only: a negative one is refused before any key is claimed, and an edit here would make
    # Schemathesis revalidate it as positive (and send the header it meant to leave out).
    if case.meta is not None and case.meta.generation.mode.is_negative:
        return
    headers = case.headers or {}
    for name in list(headers):
        if name.lower() == "idempotency-key":
            headers[name] = str(uuid.uuid4())


SOURCE_BOUND = ("sourceReference", "sourceStatus", "filingType")


@schemathesis.hook("before_call")
def one_source(ctx, case, **kwargs):
    # Catalog list: the coverage and stateful phases do not apply filter_query, so a positive case that gives
    # sourceReference, sourceStatus or filingType gets the exactly one `source` the contract needs with them.
    if case.meta is not None and case.meta.generation.mode.is_negative:
        return
    query = case.query
    if not isinstance(query, dict) or not any(k in query for k in SOURCE_BOUND):
        return
    source = query.get("source")
    values = source if isinstance(source, list) else [source]
    if isinstance(source, str) and source in ("serff", "florida_irfs"):
        return
    query["source"] = next((v for v in values if v in ("serff", "florida_irfs")), "serff")


def _ordered_ranges(node):
    if isinstance(node, dict):
        value = node.get("value")
        if node.get("operator") == "between" and isinstance(value, list) and len(value) == 2:
            try:
                node["value"] = sorted(value)
            except TypeError:
                pass
        for child in node.values():
            _ordered_ranges(child)
    elif isinstance(node, list):
        for child in node:
            _ordered_ranges(child)


@schemathesis.hook("before_call")
def ordered_ranges(ctx, case, **kwargs):
    # Search: a `between` range must not end before it starts (in SearchFilter's description; JSON Schema cannot
    # compare two items). The stateful phase does not apply filters either: a positive case's ranges are ordered.
    if case.meta is not None and case.meta.generation.mode.is_negative:
        return
    if isinstance(case.body, dict) and "filters" in case.body:
        _ordered_ranges(case.body["filters"])


@schemathesis.hook("before_call")
def intent_adds_a_word(ctx, case, **kwargs):
    # Search: an `intent` must add a word to `query` (in its description; JSON Schema cannot compare two
    # fields). A positive case's intent gets one word more, within its 500 characters.
    if case.meta is not None and case.meta.generation.mode.is_negative:
        return
    body = case.body
    if isinstance(body, dict) and isinstance(body.get("intent"), str) and isinstance(body.get("query"), str):
        body["intent"] = body["intent"][:478] + " underwritingaim"
