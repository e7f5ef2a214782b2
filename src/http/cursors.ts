import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { invalidCursor } from '../domain/errors';
import type { Principal } from '../domain/principal';

const MAX_LENGTH = 128;
const LIFETIME_MS = 24 * 60 * 60 * 1000;
const MAC_BYTES = 12;
const BIND_BYTES = 8;
const BINDINGS_KEPT = 1_000;
const BINDING_TEXT_KEPT = 2_048;
/** version(1) kind(1) issuedAt(4) binding(8) storage(1) + state + mac(12): the state gets what is left of 128 base64 characters. */
const HEADER_BYTES = 15;
const INLINE_STATE_MAX = Math.floor((MAX_LENGTH * 3) / 4) - HEADER_BYTES - MAC_BYTES;

export interface CursorBinding {
  /** The list it belongs to: GET and POST cursors of one resource are not interchangeable. */
  kind: string;
  principal: Principal | null;
  /** Everything the page depends on besides the position: filters, sort, limit, scope sets. */
  request: unknown;
}

export interface DecodedCursor<S> {
  state: S;
  issuedAt: number;
}

function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v)
      .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v ?? null);
}

const KINDS = new Map<string, number>();
function kindByte(kind: string): number {
  if (!KINDS.has(kind)) KINDS.set(kind, crypto.createHash('sha256').update(kind).digest()[0]);
  return KINDS.get(kind)!;
}

/**
 * Opaque, tamper-proof cursors: an HMAC over the position state and a hash of the caller and the
 * request, with the first page's time (24 hours from the first page, never extended). State too large
 * for 128 characters is kept in Postgres under a random id.
 */
export class CursorService {
  constructor(private readonly secret: Buffer, private readonly knex: Knex | null, private readonly now: () => number = Date.now) {}

  /**
   * Bindings by their text: a page with a cursor decodes and encodes with the same binding, and a list's
   * first pages repeat; an HMAC costs more than the look-up (a tenth of a list page's node CPU).
   */
  private readonly bindings = new Map<string, Buffer>();

  private binding(b: CursorBinding): Buffer {
    const caller = b.principal ? `${b.principal.tenantId}|${b.principal.userId}|${[...b.principal.permissions].sort().join(',')}|${b.principal.readOnly}` : '-';
    const text = `${b.kind}\n${caller}\n${canonical(b.request)}`;
    let bytes = this.bindings.get(text);
    if (bytes === undefined) {
      bytes = crypto.createHmac('sha256', this.secret).update(text).digest().subarray(0, BIND_BYTES);
      // Forgetting all at once is fine: a forgotten binding is computed again, to the same bytes. Long
      // texts (hundred-value filters) are not kept, so the map stays small.
      if (this.bindings.size >= BINDINGS_KEPT) this.bindings.clear();
      if (text.length <= BINDING_TEXT_KEPT) this.bindings.set(text, bytes);
    }
    return bytes;
  }

  private mac(body: Buffer): Buffer {
    return crypto.createHmac('sha256', this.secret).update(body).digest().subarray(0, MAC_BYTES);
  }

  /** `issuedAt` is the first page's time; pass the decoded one when continuing. */
  async encode<S>(b: CursorBinding, state: S, issuedAt?: number): Promise<string> {
    const json = Buffer.from(JSON.stringify(state));
    let storage = 0;
    let payload = json;
    const issued = issuedAt ?? this.now();
    if (json.length > INLINE_STATE_MAX) {
      if (!this.knex) throw new Error('cursor state too large and no server-side store');
      const id = crypto.randomBytes(16);
      await this.knex('cursor_states').insert({ id: id.toString('hex'), payload: JSON.stringify(state), expires_at: new Date(issued + LIFETIME_MS) });
      storage = 1;
      payload = id;
    }
    const header = Buffer.alloc(HEADER_BYTES);
    header.writeUInt8(1, 0);
    header.writeUInt8(kindByte(b.kind), 1);
    header.writeUInt32BE(Math.floor(issued / 1000), 2);
    this.binding(b).copy(header, 6);
    header.writeUInt8(storage, 14);
    const body = Buffer.concat([header, payload]);
    return Buffer.concat([body, this.mac(body)]).toString('base64url');
  }

  /** `expires: false` for lists whose cursors the spec makes live (products: "no binding or expiry"). */
  async decode<S>(b: CursorBinding, cursor: string, options: { expires?: boolean } = {}): Promise<DecodedCursor<S>> {
    if (cursor.length < 1 || cursor.length > MAX_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalidCursor();
    const raw = Buffer.from(cursor, 'base64url');
    // Node ignores the unused low bits of the last character: only the canonical spelling of the bytes
    // is the cursor, so an altered last character is refused like any other alteration.
    if (raw.length < HEADER_BYTES + MAC_BYTES || raw.toString('base64url') !== cursor) throw invalidCursor();
    const body = raw.subarray(0, raw.length - MAC_BYTES);
    const mac = raw.subarray(raw.length - MAC_BYTES);
    if (!crypto.timingSafeEqual(mac, this.mac(body))) throw invalidCursor();
    if (body.readUInt8(0) !== 1 || body.readUInt8(1) !== kindByte(b.kind)) throw invalidCursor();
    if (!crypto.timingSafeEqual(body.subarray(6, 14), this.binding(b))) {
      throw invalidCursor('The cursor was issued for other filters, sort, page size or caller; restart without a cursor.');
    }
    const issuedAt = body.readUInt32BE(2) * 1000;
    if (options.expires !== false && this.now() - issuedAt > LIFETIME_MS) throw invalidCursor('The cursor has expired (24 hours from the first page); restart without a cursor.');
    const payload = body.subarray(HEADER_BYTES);
    try {
      if (body.readUInt8(14) === 1) {
        const row = this.knex ? await this.knex('cursor_states').where({ id: payload.toString('hex') }).first('payload') : null;
        if (!row) throw invalidCursor();
        return { state: row.payload as S, issuedAt };
      }
      return { state: JSON.parse(payload.toString('utf8')) as S, issuedAt };
    } catch (e) {
      if (e instanceof Error && 'code' in e) throw e;
      throw invalidCursor();
    }
  }

  /** Server-side states past their lifetime; called periodically by the server. */
  async purgeExpired(): Promise<number> {
    if (!this.knex) return 0;
    return this.knex('cursor_states').where('expires_at', '<', new Date(this.now())).delete();
  }
}
