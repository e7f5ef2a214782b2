import crypto from 'node:crypto';

/** What an upload token carries: everything completion needs, signed, so the server keeps no upload state. */
export interface UploadGrant {
  uploadId: string;
  artifactId: string;
  /** True when the client named an existing artifact (a new version), false for a new artifact. */
  existing: boolean;
  scopeId: string;
  tenantId: string;
  userId: string;
  name: string;
  mimeType: string;
  size: number;
  /** Expiry, epoch seconds: one hour after issue. */
  exp: number;
}

export const UPLOAD_TOKEN_TTL_SECONDS = 3600;

/** HMAC-signed, self-contained upload tokens (`<base64url json>.<base64url mac>`). */
export class UploadTokens {
  constructor(private readonly secret: Buffer) {}

  private mac(body: string): string {
    return crypto.createHmac('sha256', this.secret).update(`upload-token\n${body}`).digest('base64url');
  }

  issue(grant: UploadGrant): string {
    const body = Buffer.from(JSON.stringify(grant)).toString('base64url');
    return `${body}.${this.mac(body)}`;
  }

  verify(token: string, now = Date.now()): { status: 'ok'; grant: UploadGrant } | { status: 'invalid' } | { status: 'expired'; grant: UploadGrant } {
    const [body, mac, ...rest] = token.split('.');
    if (!body || !mac || rest.length) return { status: 'invalid' };
    const expected = Buffer.from(this.mac(body));
    const given = Buffer.from(mac);
    if (expected.length !== given.length || !crypto.timingSafeEqual(expected, given)) return { status: 'invalid' };
    let grant: UploadGrant;
    try {
      grant = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as UploadGrant;
    } catch {
      return { status: 'invalid' };
    }
    return grant.exp * 1000 < now ? { status: 'expired', grant } : { status: 'ok', grant };
  }
}
