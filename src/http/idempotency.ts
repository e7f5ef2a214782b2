import crypto from 'node:crypto';
import type { Request } from 'express';
import { stringify } from 'safe-stable-stringify';
import { AppError } from '../domain/errors';
import type { RecordedEvent } from '../domain/events';
import type { Principal } from '../domain/principal';
import type { IdempotencyCaller, IdempotencyStore, StoredAnswer } from '../ports/idempotency-store';
import type { RouteSpec } from './route';
import { IDEMPOTENCY_METADATA_KEY, type KeyMark } from '../ports/write-trace';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
/** Stripe's bound and alphabet: a UUID or any other visible ASCII token. */
const KEY = /^[\x21-\x7e]{1,255}$/;

const headerDetail = (message: string) => [{ location: 'header' as const, path: [IDEMPOTENCY_HEADER], code: 'invalid_value' as const, message }];

/** The header's value, null when absent; a malformed one is a 400 naming the header. */
export function idempotencyKeyOf(req: Request): string | null {
  const raw = req.headers['idempotency-key'];
  if (raw === undefined) return null;
  if (typeof raw !== 'string' || !KEY.test(raw)) {
    const message = 'Idempotency-Key must be 1 to 255 visible ASCII characters, e.g. a UUID.';
    throw new AppError(400, 'invalid_request', message, headerDetail(message));
  }
  return raw;
}

/**
 * What makes two requests "the same" for a key: the operation (its first path form, so both forms of a
 * path are one operation), its path parameters and the validated body. The body is serialized with sorted
 * keys, so a client that orders its fields differently on a retry still matches.
 */
export function requestFingerprint(route: Pick<RouteSpec, 'method' | 'paths'>, params: unknown, body: unknown): string {
  return crypto
    .createHash('sha256')
    .update(stringify({ op: `${route.method} ${route.paths[0]}`, params: params ?? {}, body: body ?? null }) ?? '')
    .digest('base64url');
}

export const idempotencyKeyRefused = () => {
  const message = 'This operation is not idempotent (a replayed upload completion adds another version): send it without Idempotency-Key.';
  return new AppError(400, 'idempotency_key_not_supported', message, headerDetail(message));
};
export const idempotencyKeyReused = () =>
  new AppError(422, 'idempotency_key_reused', 'This Idempotency-Key was already used with another request (method, path or body); use a new key for a new request.');
export const idempotencyKeyInUse = () =>
  new AppError(409, 'idempotency_key_in_use', 'A request with this Idempotency-Key is still in progress; retry after it has finished.', [], {}, { 'Retry-After': '1' });

/**
 * The identity a keyed request's events carry (caller, key and request, hashed: the log keeps no key in
 * clear and every mark has one short length).
 */
export function keyIdentity(caller: IdempotencyCaller, key: string, fingerprint: string): string {
  return crypto.createHash('sha256').update(stringify({ t: caller.tenantId, u: caller.userId, key, fingerprint }) ?? '').digest('base64url');
}

/** A key this request holds: record its answer, or give it up when the request failed. */
export interface HeldKey {
  /** How the command handler marks this request's appends. */
  mark: KeyMark;
  /** Streams an earlier holder of this request (its host gone) was about to append to: look there first. */
  noted: string[];
  complete(answer: StoredAnswer): Promise<void>;
  release(): Promise<void>;
}

export type KeyOutcome = { replay: StoredAnswer } | { held: HeldKey };

/** Claims the key for this request, or answers why not: the first answer to replay, 409 in flight, 422 another request. */
export async function claimKey(store: IdempotencyStore, principal: Principal, key: string, fingerprint: string): Promise<KeyOutcome> {
  const caller: IdempotencyCaller = { tenantId: principal.tenantId, userId: principal.userId };
  const claim = await store.claim(caller, key, fingerprint);
  switch (claim.kind) {
    case 'replay':
      return { replay: claim.answer };
    case 'mismatch':
      throw idempotencyKeyReused();
    case 'in_flight':
      throw idempotencyKeyInUse();
    case 'claimed': {
      const noted = new Set(claim.noted);
      return {
        held: {
          noted: claim.noted,
          mark: {
            identity: keyIdentity(caller, key, fingerprint),
            noteStream: async (streamId) => {
              if (noted.has(streamId)) return;
              await store.noteStream(caller, key, fingerprint, streamId);
              noted.add(streamId);
            },
          },
          complete: (answer) => store.complete(caller, key, fingerprint, answer),
          release: () => store.release(caller, key, fingerprint),
        },
      };
    }
  }
}

/**
 * The events an earlier holder of the key appended, read from the streams it noted: empty when its host died
 * before its append committed (the request may run again). Only noted streams are read, so this costs a few
 * stream reads on a takeover and nothing otherwise, and works through any EventStore adapter's readStream.
 */
export async function keyedEvents(readStream: (streamId: string) => Promise<RecordedEvent[]>, held: HeldKey): Promise<RecordedEvent[]> {
  const found: RecordedEvent[] = [];
  for (const streamId of held.noted) {
    for (const e of await readStream(streamId)) if (e.metadata[IDEMPOTENCY_METADATA_KEY] === held.mark.identity) found.push(e);
  }
  return found;
}

/** The OpenAPI text of the header, shared by every operation that honours it. */
export const IDEMPOTENCY_DESCRIPTION =
  'Extension (the Stripe convention): a retry with the same key and the same request gets the first successful answer again (status, body and Location; marked `Idempotent-Replayed: true`) for 24 hours, and the write happens once. Keys belong to the caller (tenant and user). The same key with another body is `422 idempotency_key_reused`; a retry while the first request is still running is `409 idempotency_key_in_use` with `Retry-After`. An error before anything was written is not kept (a retry runs the request again); an error after the write may have committed is kept like a success.';
