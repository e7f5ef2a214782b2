import crypto from 'node:crypto';
import { Readable } from 'node:stream';
import type { Knex } from 'knex';
import type { BlobStore } from '../../src/ports/blob-store';

export const SMALL_BLOB_MAX = 256 * 1024;

interface Pending {
  sha256: string;
  content: Buffer;
  done: Array<{ resolve(): void; reject(e: unknown): void }>;
}

/**
 * Small blobs in Postgres, large ones in the filesystem store. An import writes thousands of small
 * texts a second: one file each is bounded by file creation (about 1,500/s on these disks), while
 * rows batched into one multi-row insert per tick cost one commit for many blobs.
 */
export class TieredBlobStore implements BlobStore {
  private readonly pending = new Map<string, Pending>();
  private draining = false;

  constructor(private readonly knex: Knex, private readonly large: BlobStore, private readonly maxBatch = 500) {}

  async put(content: Buffer): Promise<{ sha256: string; size: number }> {
    if (content.length > SMALL_BLOB_MAX) return this.large.put(content);
    const sha256 = crypto.createHash('sha256').update(content).digest('hex');
    await new Promise<void>((resolve, reject) => {
      const p = this.pending.get(sha256) ?? { sha256, content, done: [] };
      p.done.push({ resolve, reject });
      this.pending.set(sha256, p);
      // Deferred a tick so that puts made together share a statement.
      if (!this.draining) {
        this.draining = true;
        setImmediate(() => void this.drain());
      }
    });
    return { sha256, size: content.length };
  }

  /** Writes pending blobs, a batch per statement, until none are left; what arrives meanwhile rides the next batch. */
  private async drain(): Promise<void> {
    try {
      while (this.pending.size) {
        const batch = [...this.pending.values()].slice(0, this.maxBatch);
        for (const b of batch) this.pending.delete(b.sha256);
        try {
          // The contents travel as ONE binary parameter, cut apart by offset: a bytea[] parameter is
          // sent as text, every byte spelled as two hex digits that the driver writes and Postgres parses.
          const offsets: number[] = [];
          let offset = 0;
          for (const b of batch) {
            offsets.push(offset);
            offset += b.content.length;
          }
          await this.knex.raw(
            `insert into blob_small (sha256, size, content)
             select h, n, substring(cast(? as bytea) from o + 1 for n)
             from unnest(cast(? as text[]), cast(? as int[]), cast(? as int[])) as u(h, n, o) on conflict do nothing`,
            [Buffer.concat(batch.map((b) => b.content)), batch.map((b) => b.sha256), batch.map((b) => b.content.length), offsets],
          );
          for (const b of batch) b.done.forEach((d) => d.resolve());
        } catch (e) {
          for (const b of batch) b.done.forEach((d) => d.reject(e));
        }
      }
    } finally {
      this.draining = false;
    }
  }

  async putStream(content: Readable): Promise<{ sha256: string; size: number }> {
    return this.large.putStream(content);
  }

  private async small(sha256: string): Promise<Buffer | null> {
    const row = await this.knex('blob_small').where({ sha256 }).first('content');
    return row ? (row.content as Buffer) : null;
  }

  async get(sha256: string): Promise<Buffer> {
    return (await this.small(sha256)) ?? this.large.get(sha256);
  }

  /**
   * The filesystem first: a miss there costs one failed open, a miss in Postgres a round trip, and the
   * text route reads small blobs in its own statement, so what reaches here is mostly large.
   */
  async read(sha256: string, start: number, length: number): Promise<Buffer> {
    if (length <= 0) return Buffer.alloc(0);
    try {
      return await this.large.read(sha256, start, length);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
    const row = await this.knex('blob_small').where({ sha256 }).first(this.knex.raw('substring(content from ? for ?) as content', [start + 1, length]));
    if (!row) throw Object.assign(new Error(`blob not found: ${sha256}`), { code: 'ENOENT' });
    return row.content as Buffer;
  }

  stream(sha256: string, range?: { start: number; end: number }): Readable {
    // Look in Postgres first; fall back to the file (whose own stream reports a missing blob).
    return Readable.from(this.chunks(sha256, range), { objectMode: false });
  }

  private async *chunks(sha256: string, range?: { start: number; end: number }): AsyncGenerator<Buffer> {
    const row = range
      ? await this.knex('blob_small').where({ sha256 }).first(this.knex.raw('substring(content from ? for ?) as content', [range.start + 1, range.end - range.start + 1]))
      : await this.knex('blob_small').where({ sha256 }).first('content');
    if (row) {
      yield row.content as Buffer;
      return;
    }
    for await (const chunk of this.large.stream(sha256, range)) yield chunk as Buffer;
  }

  async has(sha256: string): Promise<boolean> {
    const row = await this.knex('blob_small').where({ sha256 }).first(this.knex.raw('1 as x'));
    return !!row || this.large.has(sha256);
  }

  async size(sha256: string): Promise<number> {
    const row = await this.knex('blob_small').where({ sha256 }).first('size');
    return row ? Number(row.size) : this.large.size(sha256);
  }
}
