"""A thin typed client for the Insurance Filing Research Service over httpx.

The record and page shapes are TypedDicts generated from the served OpenAPI document (``models.py``);
this module adds what every caller needs: the API key, errors as exceptions carrying the service's
``code`` and ``requestId``, retries that honour ``Retry-After``, and page iteration until ``nextCursor``
is null.
"""

from __future__ import annotations

import email.utils
import time
from collections.abc import Iterator, Mapping
from typing import Any, cast

import httpx

from . import models

__all__ = ["IfrsClient", "IfrsError", "retry_delay"]

Params = Mapping[str, str | int | bool | list[str] | None]


class IfrsError(Exception):
    """The service's error answer ``{error, code, details?, requestId}`` as an exception."""

    def __init__(self, status: int, code: str, request_id: str | None, details: list[models.Detail] | None, body: Any) -> None:
        message = body.get("error") if isinstance(body, dict) else None
        super().__init__(f"{status} {code}: {message or 'request failed'}")
        self.status = status
        self.code = code
        self.request_id = request_id
        self.details = details
        self.body = body


def retry_delay(header: str | None, attempt: int, max_seconds: float) -> float:
    """Seconds to wait: ``Retry-After`` in seconds or as an HTTP date, else a growing default."""
    seconds: float | None = None
    if header:
        value = header.strip()
        if value.isdigit():
            seconds = float(value)
        else:
            try:
                seconds = email.utils.parsedate_to_datetime(value).timestamp() - time.time()
            except (TypeError, ValueError):
                seconds = None
    if seconds is None or seconds < 0:
        seconds = 0.25 * 2**attempt
    return min(seconds, max_seconds)


def _retry_safe(request: httpx.Request, status: int) -> bool:
    """A write that may not run twice is retried on 503 only when it carries an Idempotency-Key."""
    if status == 429:
        return True
    if request.method in ("GET", "HEAD", "PUT"):
        return True
    if request.method == "POST" and request.url.path.endswith("/search"):
        return True
    return "Idempotency-Key" in request.headers


class IfrsClient:
    """``IfrsClient("http://127.0.0.1:8080/api/v2", api_key)``; use as a context manager or call ``close()``."""

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        retries: int = 3,
        max_retry_delay: float = 30.0,
        timeout: float = 30.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self._http = httpx.Client(
            base_url=base_url.rstrip("/"),
            headers={"Authorization": f"Bearer {api_key}"},
            timeout=timeout,
            transport=transport,
        )
        self.retries = retries
        self.max_retry_delay = max_retry_delay

    def __enter__(self) -> IfrsClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    # The generic call: every typed method below goes through it.
    def request(
        self,
        method: str,
        path: str,
        *,
        params: Params | None = None,
        json: Any = None,
        headers: Mapping[str, str] | None = None,
    ) -> httpx.Response:
        clean = {k: v for k, v in (params or {}).items() if v is not None}
        request = self._http.build_request(method, path, params=clean, json=json, headers=headers)
        attempt = 0
        while True:
            response = self._http.send(request)
            if response.status_code in (429, 503) and attempt < self.retries and _retry_safe(request, response.status_code):
                time.sleep(retry_delay(response.headers.get("Retry-After"), attempt, self.max_retry_delay))
                attempt += 1
                continue
            if response.status_code >= 400:
                raise _error(response)
            return response

    def get_json(self, path: str, params: Params | None = None) -> Any:
        return self.request("GET", path, params=params).json()

    def pages(self, path: str, params: Params | None = None, *, method: str = "GET", body: Mapping[str, Any] | None = None) -> Iterator[dict[str, Any]]:
        """Every page of a list (GET, ``cursor`` query) or search (POST, ``cursor`` in the body)."""
        cursor: str | None = None
        while True:
            if method == "GET":
                page = self.request("GET", path, params={**(params or {}), "cursor": cursor}).json()
            else:
                payload = {**(body or {}), **({"cursor": cursor} if cursor else {})}
                page = self.request(method, path, params=params, json=payload).json()
            yield page
            cursor = page.get("nextCursor")
            if not cursor:
                return

    def items(self, path: str, key: str, params: Params | None = None, **kwargs: Any) -> Iterator[dict[str, Any]]:
        """Every record of a paged list: ``client.items("/insurance/filings", "filings", {"state": "FL"})``."""
        for page in self.pages(path, params, **kwargs):
            yield from page[key]

    # Typed conveniences for the reads most callers start with.
    def me(self) -> models.CurrentUser:
        return cast(models.CurrentUser, self.get_json("/users/me"))

    def filings(self, **params: Any) -> Iterator[models.CatalogFiling]:
        return cast(Iterator[models.CatalogFiling], self.items("/insurance/filings", "filings", params))

    def filing(self, filing_id: str) -> models.CatalogFilingDetail:
        return cast(models.CatalogFilingDetail, self.get_json(f"/insurance/filings/{filing_id}"))

    def search(self, request: models.InsuranceSearchRequest) -> models.SearchResponse:
        return cast(models.SearchResponse, self.request("POST", "/insurance/filings/search", json=request).json())

    def text(self, file_id: str, max_bytes: int | None = None, cursor: str | None = None) -> models.ExtractedTextChunk:
        return cast(models.ExtractedTextChunk, self.get_json(f"/files/{file_id}/text", {"maxBytes": max_bytes, "cursor": cursor}))


def _error(response: httpx.Response) -> IfrsError:
    try:
        body: Any = response.json()
    except ValueError:
        body = None
    code = body.get("code") if isinstance(body, dict) and isinstance(body.get("code"), str) else "http_error"
    request_id = (body.get("requestId") if isinstance(body, dict) else None) or response.headers.get("X-Request-Id")
    details = body.get("details") if isinstance(body, dict) else None
    return IfrsError(response.status_code, code, request_id, details, body)
