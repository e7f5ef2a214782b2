import type { CursorBinding, CursorService } from '../../src/http/cursors';
import { datasetNotEnabled } from '../../src/domain/errors';
import { hasDataset, type Principal } from '../../src/domain/principal';

/** /insurance/carriers* and /insurance/carrier-groups* need the tenant dataset naic (DESIGN.md). */
export function requireNaic(principal: Principal): void {
  if (!hasDataset(principal, 'naic')) throw datasetNotEnabled('naic');
}

/**
 * Offset pages for the carrier and product lists (the spec: "offsets, no binding or expiry guarantee").
 * The offset still travels in a signed cursor, so a tampered one is invalid_cursor, not a random page.
 * `expires: false` for products, whose cursors the spec makes live ("no binding or expiry").
 */
export async function offsetPage<T>(
  cursors: CursorService,
  binding: CursorBinding,
  cursor: string | undefined,
  limit: number,
  fetch: (offset: number, limit: number) => Promise<T[]>,
  options: { expires?: boolean } = {},
): Promise<{ items: T[]; nextCursor: string | null }> {
  const decoded = cursor ? await cursors.decode<{ o: number }>(binding, cursor, options) : null;
  const offset = decoded?.state.o ?? 0;
  const rows = await fetch(offset, limit + 1);
  const items = rows.slice(0, limit);
  const nextCursor = rows.length > limit ? await cursors.encode(binding, { o: offset + limit }, decoded?.issuedAt) : null;
  return { items, nextCursor };
}
