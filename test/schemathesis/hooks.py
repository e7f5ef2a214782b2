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


@schemathesis.hook
def before_call(ctx, case, **kwargs):
    # An Idempotency-Key names one request: the generator reuses the document's example key (and its
    # boundary values) for different requests, which the service rightly answers with 422
    # idempotency_key_reused. Each generated request gets a fresh key; replays are tested by the suite.
    headers = case.headers or {}
    for name in list(headers):
        if name.lower() == "idempotency-key":
            headers[name] = str(uuid.uuid4())
