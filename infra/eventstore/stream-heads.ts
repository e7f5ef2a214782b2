import { LRUCache } from 'lru-cache';

/**
 * The hash chain's last link of recently written or read streams, per pool: `version` -> the hash of
 * the stream's event at that version. An event never changes once committed, so an entry is a fact,
 * true for as long as the log is untampered, and an append at exactly that version chains from it
 * without reading the stream (the append still checks it against the stream row: see postgres-append.ts).
 * Only committed appends and reads outside transactions are noted. Bounded: a miss costs one read.
 */
export class StreamHeads {
  private readonly heads = new LRUCache<string, { version: number; hash: string }>({ max: 20_000 });

  /** The hash at `version`, or undefined when not known. */
  get(streamId: string, version: number): string | undefined {
    const h = this.heads.get(streamId);
    return h && h.version === version ? h.hash : undefined;
  }

  note(streamId: string, version: number, hash: unknown): void {
    if (typeof hash !== 'string') return;
    const h = this.heads.peek(streamId);
    if (!h || h.version <= version) this.heads.set(streamId, { version, hash });
  }
}
