import type { Knex } from 'knex';
import type { Claim, ClaimStore } from '../../src/ports/claim-store';

/**
 * Catalog file ids and the filing holding each (`catalog_file_claims`, migration 009): write-side state
 * kept in Postgres next to the event log, not a read model, so `ifrs projections rebuild` leaves it
 * alone. With the Postgres event store a claim commits in the same transaction as the append that
 * needs it; with EventStoreDB it commits just before that append (see docs/catalog.md).
 */
export class PostgresFileClaims implements ClaimStore {
  async take(trx: Knex.Transaction, claims: Claim[]): Promise<Map<string, string>> {
    const held = new Map<string, string>();
    const byKey = new Map<string, Claim>();
    for (const c of claims) if (!byKey.has(c.key.toLowerCase())) byKey.set(c.key.toLowerCase(), c);
    if (!byKey.size) return held;
    const keys = [...byKey.keys()].sort();
    // One statement: insert the free keys in key order (overlapping takers lock in the same order, so
    // they cannot deadlock), then look up the holder of the keys that were not free. The look-up is an
    // index probe per missed key only (materialized; `offset 0` keeps it a probe even when the planner,
    // without statistics for a table an import is filling, would rather scan).
    const res = await trx.raw(
      `with input as (select * from unnest(cast(? as uuid[]), cast(? as uuid[])) as c(file_id, filing_id)),
       ins as (
         insert into catalog_file_claims (file_id, filing_id)
         select file_id, filing_id from input order by file_id
         on conflict do nothing
         returning file_id
       ),
       missed as materialized (select i.file_id, i.filing_id from input i where not exists (select 1 from ins where ins.file_id = i.file_id))
       select m.file_id::text as file_id, h.filing_id::text as holder
       from missed m left join lateral (select filing_id from catalog_file_claims c where c.file_id = m.file_id offset 0) h on true`,
      [keys, keys.map((k) => byKey.get(k)!.owner)],
    );
    const rows = res.rows as { file_id: string; holder: string | null }[];
    // A key taken by a transaction that committed while this statement waited for it is not in this
    // statement's snapshot: a new statement (READ COMMITTED: a new snapshot) sees its holder.
    const unseen = rows.filter((r) => r.holder === null).map((r) => r.file_id);
    if (unseen.length) {
      const late = await trx.raw(`select file_id::text as file_id, filing_id::text as holder from catalog_file_claims where file_id = any(cast(? as uuid[]))`, [unseen]);
      rows.push(...(late.rows as { file_id: string; holder: string }[]));
    }
    for (const r of rows) {
      if (r.holder === null) continue;
      const claim = byKey.get(r.file_id)!;
      if (r.holder !== claim.owner.toLowerCase()) held.set(claim.key, r.holder);
    }
    return held;
  }
}
