import { WORKING_FILINGS_DECISIONS } from './features/working-filings-decisions';

/** Decisions taken where the contract is silent; served in the OpenAPI description and mirrored in the README. */
export const DECISIONS = `Decisions where the contract is silent:
- Authentication is checked before validation: a bad key on a bad request is a 401.
- Unknown query parameters and body fields are rejected (400 invalid_request, detail code unknown_field); a scalar parameter given twice is rejected.
- Nullable fields are always present (null), empty lists are [].
- Cursors are opaque, at most 128 characters, HMAC-signed, bound to the caller and to every filter, sort and limit, and expire 24 hours after the first page; except the products list's, which the spec makes live offsets (no binding or expiry).
- Key permission serff:view is needed to see source=serff catalog filings.
- The tenant dataset naic gates /insurance/carriers* and /insurance/carrier-groups* (403 dataset_not_enabled).
- Safe retries (extension): POST writes accept Idempotency-Key (Stripe convention): the first successful answer is kept per caller (tenant and user) and key for 24 hours and replayed (Idempotent-Replayed: true) for a retry of the same request; another body is 422 idempotency_key_reused; a retry while the first is still running is 409 idempotency_key_in_use with Retry-After; an error answer is kept only when the write may already have committed (otherwise a retry runs again). Upload completion refuses the header (400 idempotency_key_not_supported), since the contract makes it non-idempotent; read-only POSTs (search, listings) ignore it.
- Extension: per-key request limits. A token bucket per API key on every operation (a signed address without a key: per client address) and, on search and extracted text, a cap on the key's requests in flight; over either, 429 rate_limited at once with Retry-After. RateLimit and RateLimit-Policy (draft-ietf-httpapi-ratelimit-headers-10) are sent once a key has used more than half of a limit, and on every 429.` + WORKING_FILINGS_DECISIONS;
