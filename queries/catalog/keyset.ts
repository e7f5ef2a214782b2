import type { Knex } from 'knex';

export interface SortKey {
  column: string;
  desc: boolean;
}

/** Position after the last row of a page: its sort values and id. */
export interface KeysetPosition {
  v: (string | null)[];
  id: string;
}

/** ORDER BY for the keys, nulls last in both directions, id ascending as the tie-break. */
export function orderBy(q: Knex.QueryBuilder, keys: SortKey[]): void {
  for (const k of keys) q.orderByRaw(`?? ${k.desc ? 'desc' : 'asc'} nulls last`, [k.column]);
  q.orderBy('id', 'asc');
}

/**
 * Rows strictly after `pos` in that order. Expressed per key, so it stays exact with nulls (which
 * sort last and equal each other) and with rows inserted since the previous page: a live keyset
 * gives no duplicates and no gaps, unlike an offset.
 */
export function whereAfter(q: Knex.QueryBuilder, keys: SortKey[], pos: KeysetPosition): void {
  const branches: string[] = [];
  const bindings: unknown[] = [];
  for (let i = 0; i <= keys.length; i++) {
    const parts: string[] = [];
    const b: unknown[] = [];
    for (let j = 0; j < i; j++) {
      if (pos.v[j] === null) {
        parts.push(`?? is null`);
        b.push(keys[j].column);
      } else {
        parts.push(`?? = ?`);
        b.push(keys[j].column, pos.v[j]);
      }
    }
    if (i < keys.length) {
      // Nothing sorts after a null within its key: that branch is empty.
      if (pos.v[i] === null) continue;
      parts.push(`(?? ${keys[i].desc ? '<' : '>'} ? or ?? is null)`);
      b.push(keys[i].column, pos.v[i], keys[i].column);
    } else {
      parts.push(`id > ?`);
      b.push(pos.id);
    }
    branches.push(`(${parts.join(' and ')})`);
    bindings.push(...b);
  }
  q.whereRaw(`(${branches.join(' or ')})`, bindings as never);
}
