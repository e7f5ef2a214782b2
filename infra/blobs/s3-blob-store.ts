import crypto from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { PassThrough, Readable } from 'node:stream';
import {
  CopyObjectCommand,
  CreateBucketCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { BlobStore } from '../../src/ports/blob-store';
import type { DirectTransfers } from '../../src/ports/direct-transfers';
import { SigV4Presigner } from './sigv4-presign';

export interface S3Settings {
  bucket: string;
  /** Unset: AWS itself, the region's endpoint. */
  endpoint: string | null;
  region: string;
  /** `http://host/bucket/key` instead of `http://bucket.host/key`: what gateways such as versitygw serve. */
  forcePathStyle: boolean;
}

type AwsCredentialIdentity = Awaited<ReturnType<S3Client['config']['credentials']>>;

const KEY = /^[0-9a-f]{64}$/;
const PUT_ATTEMPTS = 4;
const blobKey = (sha256: string) => {
  if (!KEY.test(sha256)) throw new Error(`not a blob key: ${sha256}`);
  return `blobs/${sha256}`;
};
const uploadKey = (uploadId: string) => {
  if (!/^[0-9A-Za-z-]{1,64}$/.test(uploadId)) throw new Error(`not an upload id: ${uploadId}`);
  return `uploads/${uploadId}`;
};

function status(e: unknown): number | undefined {
  return e instanceof S3ServiceException ? e.$metadata.httpStatusCode : (e as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode;
}

/** A missing object as the filesystem store reports it (ENOENT), so callers need not know the adapter. */
function missing(sha256: string, e: unknown): Error {
  return Object.assign(new Error(`blob not found: ${sha256}`), { code: 'ENOENT', cause: e });
}

/**
 * Blobs in one S3 bucket under `blobs/<sha256>`, so no byte of a file lives on an API host's disk: with
 * S3_BUCKET every original and upload, and the large tier of the other blobs (src/container.ts). Uploads land
 * under `uploads/<uploadId>` through presigned PUTs and are moved to their content address when completion has
 * read them back and hashed them.
 */
export class S3BlobStore implements BlobStore, DirectTransfers {
  readonly client: S3Client;
  private readonly bucket: string;
  private readonly presigner: SigV4Presigner;
  private readonly agents = { http: new http.Agent({ keepAlive: true, maxSockets: 64 }), https: new https.Agent({ keepAlive: true, maxSockets: 64 }) };
  private creds: AwsCredentialIdentity | null = null;
  private origin: Promise<{ protocol: string; host: string; prefix: string }> | null = null;

  constructor(settings: S3Settings, client?: S3Client) {
    this.bucket = settings.bucket;
    this.client =
      client ??
      new S3Client({
        region: settings.region,
        ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
        forcePathStyle: settings.forcePathStyle,
        // Only the checksums S3 requires: the SDK's default CRC32 would be signed into presigned PUTs as a
        // fixed value, refusing any client bytes but those of an empty body. Integrity is our SHA-256 check.
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
      });
    this.presigner = new SigV4Presigner(settings.region);
  }

  /**
   * Where the bucket's objects are addressed (scheme, host and path prefix), taken once from the SDK's own
   * endpoint rules (AWS virtual hosts, path style, custom endpoints); each address is then signed in one pass.
   */
  private objectOrigin() {
    this.origin ??= getSignedUrl(this.client, new GetObjectCommand({ Bucket: this.bucket, Key: 'blobs/origin' }), { expiresIn: 60 }).then((signed) => {
      const u = new URL(signed);
      return { protocol: u.protocol, host: u.host, prefix: u.pathname.slice(0, -'/blobs/origin'.length) };
    });
    return this.origin;
  }

  /**
   * The SDK's default credential chain, kept until five minutes before temporary credentials expire: asking the
   * client's provider on every redirect was a third of a presigned address's CPU.
   */
  private async credentials(): Promise<AwsCredentialIdentity> {
    const c = this.creds;
    if (c && (!c.expiration || c.expiration.getTime() - Date.now() > 5 * 60_000)) return c;
    this.creds = await this.client.config.credentials();
    return this.creds;
  }

  private async presign(method: 'GET' | 'PUT', key: string, query: Record<string, string>, ttlSeconds: number, headers: Record<string, string> = {}): Promise<string> {
    const o = await this.objectOrigin();
    const creds = await this.credentials();
    return this.presigner.presign({ method, protocol: o.protocol, host: o.host, path: `${o.prefix}/${key}`, query, headers }, creds, ttlSeconds);
  }

  async ensureReady(): Promise<void> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
      return;
    } catch (e) {
      if (status(e) !== 404) throw e;
    }
    try {
      await this.client.send(new CreateBucketCommand({ Bucket: this.bucket }));
    } catch (e) {
      // Another process of the deployment created it first.
      if ((e as Error).name !== 'BucketAlreadyOwnedByYou') throw e;
    }
  }

  /**
   * One PUT of a presigned address over a keep-alive agent, not the SDK's send: an import stores an original per
   * file, and the SDK's middleware stack cost about four times the client CPU per small object (1.7-2.3 ms against
   * 0.5-0.6 ms, measured on this machine against versitygw), a third of the import's rate. The object's SHA-256 is
   * a signed header the store checks (versitygw answers 400 to a mismatch). Storing the same bytes again rewrites
   * the same object: one round trip, where a HEAD first would be two.
   */
  async put(content: Buffer): Promise<{ sha256: string; size: number }> {
    const digest = crypto.createHash('sha256').update(content).digest();
    const sha256 = digest.toString('hex');
    const headers = { 'x-amz-checksum-sha256': digest.toString('base64') };
    for (let attempt = 1; ; attempt++) {
      const url = await this.presign('PUT', blobKey(sha256), {}, 300, headers);
      const r = await this.send(url, content, headers).catch((e: unknown) => e as Error);
      if (typeof r === 'number' && r >= 200 && r < 300) return { sha256, size: content.length };
      // A reused keep-alive socket the server closed, a 5xx or a 429: retried as the SDK would, a few times.
      const retryable = typeof r !== 'number' || r >= 500 || r === 429;
      if (!retryable || attempt >= PUT_ATTEMPTS) throw typeof r === 'number' ? new Error(`S3 PUT of blob ${sha256} answered ${r}`) : r;
      await new Promise((res) => setTimeout(res, 25 * 2 ** attempt));
    }
  }

  private send(url: string, body: Buffer, headers: Record<string, string>): Promise<number> {
    const secure = url.startsWith('https:');
    return new Promise((resolve, reject) => {
      const req = (secure ? https : http).request(url, { method: 'PUT', agent: secure ? this.agents.https : this.agents.http, headers: { ...headers, 'content-length': body.length } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  /**
   * The key is known only at the end: the bytes go to a temporary object (multipart above 5 MiB, so memory
   * stays bounded), hashed on the way, then are copied inside the store to their content address.
   */
  async putStream(content: Readable): Promise<{ sha256: string; size: number }> {
    const tmp = `tmp/${crypto.randomUUID()}`;
    const hash = crypto.createHash('sha256');
    let size = 0;
    const tap = new PassThrough();
    tap.on('data', (c: Buffer) => {
      hash.update(c);
      size += c.length;
    });
    content.on('error', (e) => tap.destroy(e));
    content.pipe(tap);
    try {
      await new Upload({ client: this.client, params: { Bucket: this.bucket, Key: tmp, Body: tap } }).done();
      const sha256 = hash.digest('hex');
      await this.client.send(new CopyObjectCommand({ Bucket: this.bucket, Key: blobKey(sha256), CopySource: `${this.bucket}/${tmp}` }));
      return { sha256, size };
    } finally {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: tmp })).catch(() => undefined);
    }
  }

  private async object(sha256: string, range?: string) {
    try {
      return await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: blobKey(sha256), Range: range }));
    } catch (e) {
      if (status(e) === 404) throw missing(sha256, e);
      throw e;
    }
  }

  async get(sha256: string): Promise<Buffer> {
    const r = await this.object(sha256);
    return Buffer.from(await r.Body!.transformToByteArray());
  }

  async read(sha256: string, start: number, length: number): Promise<Buffer> {
    if (length <= 0) return Buffer.alloc(0);
    try {
      const r = await this.object(sha256, `bytes=${start}-${start + length - 1}`);
      return Buffer.from(await r.Body!.transformToByteArray());
    } catch (e) {
      // A range that starts at or past the end: the filesystem store's short read of nothing.
      if (status(e) === 416) return Buffer.alloc(0);
      throw e;
    }
  }

  stream(sha256: string, range?: { start: number; end: number }): Readable {
    return Readable.from(this.chunks(sha256, range), { objectMode: false });
  }

  private async *chunks(sha256: string, range?: { start: number; end: number }): AsyncGenerator<Buffer> {
    const r = await this.object(sha256, range ? `bytes=${range.start}-${range.end}` : undefined);
    for await (const chunk of r.Body as Readable) yield chunk as Buffer;
  }

  private async head(key: string): Promise<{ size: number; etag: string | undefined } | null> {
    try {
      const h = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return { size: Number(h.ContentLength ?? 0), etag: h.ETag };
    } catch (e) {
      if (status(e) === 404) return null;
      throw e;
    }
  }

  async has(sha256: string): Promise<boolean> {
    return (await this.head(blobKey(sha256))) !== null;
  }

  async size(sha256: string): Promise<number> {
    const h = await this.head(blobKey(sha256));
    if (!h) throw missing(sha256, null);
    return h.size;
  }

  downloadUrl(sha256: string, response: { contentType: string; contentDisposition: string }, ttlSeconds: number): Promise<string> {
    // A random grant, signed with the rest, makes each redirect a fresh address (the contract's "fresh redirect"):
    // X-Amz-Date has whole seconds, so two redirects within one would otherwise be the same address.
    const query = { 'response-content-type': response.contentType, 'response-content-disposition': response.contentDisposition, 'x-ifrs-grant': crypto.randomBytes(9).toString('base64url') };
    return this.presign('GET', blobKey(sha256), query, ttlSeconds);
  }

  uploadUrl(uploadId: string, ttlSeconds: number): Promise<string> {
    return this.presign('PUT', uploadKey(uploadId), {}, ttlSeconds);
  }

  async uploadSize(uploadId: string): Promise<number | null> {
    return (await this.head(uploadKey(uploadId)))?.size ?? null;
  }

  async claimUpload(uploadId: string): Promise<{ sha256: string; size: number } | null> {
    const key = uploadKey(uploadId);
    let r;
    try {
      r = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
    } catch (e) {
      if (status(e) === 404) return null;
      throw e;
    }
    const hash = crypto.createHash('sha256');
    let size = 0;
    for await (const chunk of r.Body as Readable) {
      hash.update(chunk as Buffer);
      size += (chunk as Buffer).length;
    }
    const sha256 = hash.digest('hex');
    try {
      // Only the object that was hashed: a PUT that replaced it meanwhile fails the copy's precondition.
      await this.client.send(new CopyObjectCommand({ Bucket: this.bucket, Key: blobKey(sha256), CopySource: `${this.bucket}/${key}`, CopySourceIfMatch: r.ETag }));
    } catch (e) {
      if (status(e) === 412 || status(e) === 404) return null;
      throw e;
    }
    return { sha256, size };
  }

  async discardUpload(uploadId: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: uploadKey(uploadId) }));
  }

  async close(): Promise<void> {
    this.client.destroy();
    this.agents.http.destroy();
    this.agents.https.destroy();
  }
}
