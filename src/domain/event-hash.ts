import crypto from 'node:crypto';
import canonicalize from 'canonicalize';
import type { EventMetadata } from './events';

/**
 * The tamper-evidence chain of a stream. Each event's `hash` is SHA-256 (hex) over the RFC 8785
 * canonical JSON of `{data, metadata, prevHash, recordedAt, schemaVersion, streamId, type, version}`,
 * `metadata` without the two hash keys, `recordedAt` as ISO 8601 with milliseconds, `prevHash` the
 * hash of the stream's previous event (null for the first). Adapters store both hashes in metadata.
 */
export interface HashedEvent {
  streamId: string;
  version: number;
  type: string;
  schemaVersion: number;
  data: unknown;
  /** Metadata as stored; the hash keys are left out here. */
  metadata: EventMetadata;
  recordedAt: string;
  prevHash: string | null;
}

export const HASH_KEY = 'hash';
export const PREV_HASH_KEY = 'prevHash';

export function withoutHashes(metadata: EventMetadata | null | undefined): EventMetadata {
  if (!metadata) return {};
  if (!(HASH_KEY in metadata) && !(PREV_HASH_KEY in metadata)) return metadata;
  const { [HASH_KEY]: _h, [PREV_HASH_KEY]: _p, ...rest } = metadata;
  return rest;
}

function canon(v: unknown): string {
  return canonicalize(v) ?? 'null';
}

export function canonicalEvent(e: HashedEvent): string {
  return canon({
    data: e.data ?? {},
    metadata: withoutHashes(e.metadata),
    prevHash: e.prevHash,
    recordedAt: e.recordedAt,
    schemaVersion: e.schemaVersion,
    streamId: e.streamId,
    type: e.type,
    version: e.version,
  });
}

// One-shot crypto.hash (Node >= 20.12) costs a sixth of createHash's object for an event-sized text.
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: 'hex') => string }).hash;

export function sha256Hex(text: string): string {
  return oneShot ? oneShot('sha256', text, 'hex') : crypto.createHash('sha256').update(text, 'utf8').digest('hex');
}

/** canonicalEvent's text assembled from its parts (keys in RFC 8785 order): no sort and object walk per event. */
function canonicalText(e: HashedEvent): string {
  return `{"data":${canon(e.data ?? {})},"metadata":${canon(withoutHashes(e.metadata))},"prevHash":${e.prevHash === null ? 'null' : canon(e.prevHash)},"recordedAt":${canon(e.recordedAt)},"schemaVersion":${canon(e.schemaVersion)},"streamId":${canon(e.streamId)},"type":${canon(e.type)},"version":${canon(e.version)}}`;
}

export function eventHash(e: HashedEvent): string {
  return sha256Hex(canonicalText(e));
}

/** One event of an append, as chainAppend hashed it. */
export interface ChainedEvent {
  /** The event's data as canonical JSON: also what the store writes (the same JSON as JSON.stringify's). */
  dataText: string;
  prevHash: string | null;
  hash: string;
}

/**
 * The hashes of one append's events, chained in node from `prevHash` (the stream's head at
 * `expectedVersion`): the append then writes values it already knows, and the database computes
 * nothing. The metadata, shared by the append's events, is canonicalized once; the text hashed is
 * canonicalEvent's, assembled from the canonical parts (RFC 8785 orders the keys as written here).
 * `metadataText`: the metadata without hashes as canonical JSON, for the store to write.
 */
export function chainAppend(a: {
  streamId: string;
  expectedVersion: number;
  prevHash: string | null;
  recordedAt: string;
  metadata: EventMetadata;
  events: readonly { type: string; schemaVersion?: number; data?: unknown }[];
}): { events: ChainedEvent[]; headHash: string | null; metadataText: string } {
  const metadataText = canon(withoutHashes(a.metadata));
  const head = `,"metadata":${metadataText},"prevHash":`;
  const middle = `,"recordedAt":${canon(a.recordedAt)},"schemaVersion":`;
  const stream = `,"streamId":${canon(a.streamId)},"type":`;
  let prev = a.prevHash;
  // An append's events mostly share their type and schema version: their texts are made once.
  let kind = '';
  let kindText = '';
  const events = a.events.map((e, i) => {
    const dataText = canon(e.data ?? {});
    const schemaVersion = e.schemaVersion ?? 1;
    if (kind !== `${schemaVersion} ${e.type}`) {
      kind = `${schemaVersion} ${e.type}`;
      kindText = `${middle}${canon(schemaVersion)}${stream}${canon(e.type)},"version":`;
    }
    const text = `{"data":${dataText}${head}${prev === null ? 'null' : `"${prev}"`}${kindText}${a.expectedVersion + i + 1}}`;
    const chained = { dataText, prevHash: prev, hash: sha256Hex(text) };
    prev = chained.hash;
    return chained;
  });
  return { events, headHash: prev, metadataText };
}

/** Stored metadata: the canonical metadata text with the two hashes added, without parsing it again. */
export function metadataWithHashes(metadataText: string, prevHash: string | null, hash: string): string {
  const hashes = `"${HASH_KEY}":"${hash}","${PREV_HASH_KEY}":${prevHash === null ? 'null' : `"${prevHash}"`}`;
  return metadataText === '{}' ? `{${hashes}}` : `${metadataText.slice(0, -1)},${hashes}}`;
}

/** What a stored event offers the verifier. */
export interface ChainLink {
  streamId: string;
  version: number;
  type: string;
  schemaVersion: number;
  data: unknown;
  metadata: EventMetadata;
  recordedAt: Date | string;
}

export interface ChainVerdict {
  /** The stream's version as its events (or its stream row, when given) say. */
  version: number;
  /** The hash of the last event read (null for an empty stream). */
  headHash: string | null;
  verified: boolean;
  /** The first version whose event is missing, moved or altered; null when verified. */
  firstBrokenVersion: number | null;
}

function isoTime(t: Date | string): string {
  return typeof t === 'string' ? new Date(t).toISOString() : t.toISOString();
}

/**
 * Checks one stream's chain, event by event in the order read (version order). `head`, when known
 * (the stream row), also catches the loss of the last events, which leaves an intact but short chain.
 */
export class ChainVerifier {
  private expectedVersion = 1;
  private prev: string | null = null;
  private broken: number | null = null;
  private last = 0;

  /** Feeds the next event; false once the chain is broken (later events need not be read). */
  push(e: ChainLink): boolean {
    return this.pushSplit({ ...e, metadata: withoutHashes(e.metadata), hash: e.metadata?.[HASH_KEY], prevHash: e.metadata?.[PREV_HASH_KEY] ?? null, recordedAt: isoTime(e.recordedAt) });
  }

  /**
   * The same with the stored hashes apart from the rest of the metadata and the recorded time as ISO text,
   * as a reader that splits them in its query hands them over (no object copy and no Date per event).
   */
  pushSplit(e: Omit<ChainLink, 'recordedAt'> & { recordedAt: string; hash: unknown; prevHash: unknown }): boolean {
    if (this.broken !== null) return false;
    this.last = e.version;
    const stored = e.hash;
    if (e.version !== this.expectedVersion || e.prevHash !== this.prev || typeof stored !== 'string') {
      this.broken = Math.min(this.expectedVersion, e.version);
      return false;
    }
    const h = eventHash({ streamId: e.streamId, version: e.version, type: e.type, schemaVersion: e.schemaVersion, data: e.data, metadata: e.metadata, recordedAt: e.recordedAt, prevHash: this.prev });
    if (h !== stored) {
      this.broken = e.version;
      return false;
    }
    this.prev = h;
    this.expectedVersion++;
    return true;
  }

  verdict(head?: { version: number; headHash?: string | null }): ChainVerdict {
    if (this.broken !== null) return { version: Math.max(this.last, head?.version ?? 0), headHash: this.prev, verified: false, firstBrokenVersion: this.broken };
    const read = this.expectedVersion - 1;
    if (head && (head.version !== read || (head.headHash !== undefined && head.headHash !== this.prev))) {
      return { version: head.version, headHash: this.prev, verified: false, firstBrokenVersion: Math.min(read + 1, head.version) };
    }
    return { version: read, headHash: this.prev, verified: true, firstBrokenVersion: null };
  }
}

export function verifyChain(events: Iterable<ChainLink>, head?: { version: number; headHash?: string | null }): ChainVerdict {
  const v = new ChainVerifier();
  for (const e of events) if (!v.push(e)) break;
  return v.verdict(head);
}
