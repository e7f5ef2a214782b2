"""End-to-end checks of the Python SDK against a real server.

Run by test/clients/python-sdk.e2e.test.ts, which starts the service, imports filings and passes
IFRS_BASE_URL, IFRS_API_KEY, IFRS_USER_ID and IFRS_FL_FILING_IDS (comma-separated) in the environment.
"""

import http.server
import os
import threading
import time
import unittest

from ifrs_client import IfrsClient, IfrsError, retry_delay

BASE_URL = os.environ["IFRS_BASE_URL"]
API_KEY = os.environ["IFRS_API_KEY"]


class AgainstServer(unittest.TestCase):
    def test_rule_key_authenticates_and_typed_answers_come_back(self) -> None:
        with IfrsClient(BASE_URL, API_KEY) as api:
            me = api.me()
            self.assertEqual(me["id"], os.environ["IFRS_USER_ID"])

    def test_rule_pages_follow_next_cursor_until_null(self) -> None:
        with IfrsClient(BASE_URL, API_KEY) as api:
            pages = list(api.pages("/insurance/filings", {"state": "FL", "limit": 2}))
            self.assertEqual(len(pages), 3)
            self.assertIsNone(pages[-1]["nextCursor"])
            ids = sorted(f["id"] for f in api.filings(state="FL", limit=2))
            self.assertEqual(ids, sorted(os.environ["IFRS_FL_FILING_IDS"].split(",")))

    def test_rule_error_answer_raises_with_code_and_request_id(self) -> None:
        with IfrsClient(BASE_URL, API_KEY) as api:
            with self.assertRaises(IfrsError) as caught:
                api.filing("00000000-0000-4000-8000-000000000000")
            self.assertEqual(caught.exception.status, 404)
            self.assertEqual(caught.exception.code, "not_found")
            self.assertTrue(caught.exception.request_id)
        with IfrsClient(BASE_URL, "ifrs_not_a_key") as anonymous:
            with self.assertRaises(IfrsError) as caught:
                anonymous.me()
            self.assertEqual((caught.exception.status, caught.exception.code), (401, "unauthenticated"))

    def test_rule_invalid_request_details_are_carried(self) -> None:
        with IfrsClient(BASE_URL, API_KEY) as api:
            with self.assertRaises(IfrsError) as caught:
                api.get_json("/insurance/filings", {"limit": 0})
            self.assertEqual(caught.exception.code, "invalid_request")
            self.assertEqual(caught.exception.details[0]["location"], "query")


class Retries(unittest.TestCase):
    """A stand-in upstream answering 429 then 503 with Retry-After, so the client's waits are observable."""

    def test_rule_429_and_503_are_retried_after_retry_after(self) -> None:
        seen: list[float] = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (the stdlib's name)
                seen.append(time.monotonic())
                status = 429 if len(seen) == 1 else 503 if len(seen) == 2 else 200
                body = b'{"id":"u","tenantId":"t","name":null,"email":null}' if status == 200 else b'{"error":"busy","code":"rate_limited","requestId":"r"}'
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Retry-After", "1")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            with IfrsClient(f"http://127.0.0.1:{server.server_address[1]}/api/v2", "k") as api:
                self.assertEqual(api.me()["id"], "u")
            self.assertEqual(len(seen), 3)
            self.assertGreaterEqual(seen[1] - seen[0], 0.95)
            self.assertGreaterEqual(seen[2] - seen[1], 0.95)
        finally:
            server.shutdown()
            server.server_close()

    def test_rule_retry_after_seconds_or_date_capped(self) -> None:
        self.assertEqual(retry_delay("2", 0, 30), 2)
        self.assertEqual(retry_delay("120", 0, 30), 30)
        self.assertEqual(retry_delay(None, 0, 30), 0.25)
        self.assertEqual(retry_delay("soon", 2, 30), 1)


if __name__ == "__main__":
    unittest.main()
