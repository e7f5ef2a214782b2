import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import type { Readable } from 'node:stream';
import type { BlobStore } from '../../src/ports/blob-store';

// The callback API with plain descriptors: a FileHandle costs an object and a finalizer per read.
const open = promisify(fs.open);
const read = (fd: number, buffer: Buffer, offset: number, length: number, position: number) =>
  new Promise<number>((resolve, reject) => fs.read(fd, buffer, offset, length, position, (e, n) => (e ? reject(e) : resolve(n))));
const close = promisify(fs.close);

const KEY = /^[0-9a-f]{64}$/;

/** Blobs under `<dataDir>/blobs/ab/cd/<sha256>`, written to a temporary name and renamed (atomic). */
export class FsBlobStore implements BlobStore {
  constructor(private readonly root: string) {
    fs.mkdirSync(path.join(root, 'tmp'), { recursive: true });
  }

  private file(sha256: string): string {
    if (!KEY.test(sha256)) throw new Error(`not a blob key: ${sha256}`);
    return path.join(this.root, sha256.slice(0, 2), sha256.slice(2, 4), sha256);
  }

  async put(content: Buffer): Promise<{ sha256: string; size: number }> {
    const sha256 = crypto.createHash('sha256').update(content).digest('hex');
    const target = this.file(sha256);
    if (!fs.existsSync(target)) {
      await fs.promises.mkdir(path.dirname(target), { recursive: true });
      const tmp = path.join(this.root, 'tmp', `${sha256}.${process.pid}.${crypto.randomBytes(4).toString('hex')}`);
      await fs.promises.writeFile(tmp, content);
      await fs.promises.rename(tmp, target);
    }
    return { sha256, size: content.length };
  }

  async putStream(content: Readable): Promise<{ sha256: string; size: number }> {
    const tmp = path.join(this.root, 'tmp', `upload.${process.pid}.${crypto.randomBytes(8).toString('hex')}`);
    const hash = crypto.createHash('sha256');
    let size = 0;
    content.on('data', (c: Buffer) => {
      hash.update(c);
      size += c.length;
    });
    try {
      await pipeline(content, fs.createWriteStream(tmp));
      const sha256 = hash.digest('hex');
      const target = this.file(sha256);
      await fs.promises.mkdir(path.dirname(target), { recursive: true });
      await fs.promises.rename(tmp, target);
      return { sha256, size };
    } finally {
      await fs.promises.rm(tmp, { force: true });
    }
  }

  async get(sha256: string): Promise<Buffer> {
    return fs.promises.readFile(this.file(sha256));
  }

  async read(sha256: string, start: number, length: number): Promise<Buffer> {
    const fd = await open(this.file(sha256), 'r');
    try {
      const buffer = Buffer.allocUnsafe(length);
      let filled = 0;
      // A regular file returns short reads only at its end; the loop is for the odd filesystem that does not.
      while (filled < length) {
        const n = await read(fd, buffer, filled, length - filled, start + filled);
        if (n === 0) break;
        filled += n;
      }
      return filled === length ? buffer : buffer.subarray(0, filled);
    } finally {
      await close(fd);
    }
  }

  stream(sha256: string, range?: { start: number; end: number }): Readable {
    return fs.createReadStream(this.file(sha256), range ? { start: range.start, end: range.end } : undefined);
  }

  async has(sha256: string): Promise<boolean> {
    return fs.promises
      .access(this.file(sha256))
      .then(() => true)
      .catch(() => false);
  }

  async size(sha256: string): Promise<number> {
    return (await fs.promises.stat(this.file(sha256))).size;
  }
}
