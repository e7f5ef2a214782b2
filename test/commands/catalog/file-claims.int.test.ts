import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { CommandHandler } from '../../../commands/command-handler';
import { catalogFilingDecider, type CatalogFilingCommand } from '../../../commands/catalog/catalog-filing';
import type { CatalogFile, CatalogFilingFields } from '../../../src/domain/events/catalog';
import { catalogFileClaims } from '../../../commands/catalog/file-claims';
import { BatchedAppender } from '../../../infra/eventstore/batched-appender';
import type { EventStore } from '../../../src/ports/event-store';
import { PostgresFileClaims } from '../../../infra/eventstore/postgres-file-claims';
import { backfillFileClaims } from '../../../infra/postgres/migrations/009_catalog_file_claims';
import { DomainError } from '../../../src/domain/errors';
import { createLogger } from '../../../src/util/logger';
import { aBareFile, aFiling } from '../../support/catalog-filing-mother';
import { eventStoreForSuite } from '../../support/postgres';

const claims = catalogFileClaims(new PostgresFileClaims());
const command = (filing: CatalogFilingFields, files: CatalogFile[]): CatalogFilingCommand => ({ type: 'ImportCatalogFiling', filing, files });

describe('catalog file claims on Postgres', function () {
  this.timeout(60_000);
  const fx = eventStoreForSuite();
  const knex = (): Knex => fx.db.knex;
  const appender = (store: EventStore = fx.store) => new BatchedAppender(knex(), store, new CommandHandler(store, null, createLogger('silent')));
  const submit = (a: BatchedAppender, filing: CatalogFilingFields, files: CatalogFile[]) =>
    a.submit(catalogFilingDecider, `catalogFiling-${filing.id}`, command(filing, files), { actor: 'test' }, claims);
  const holder = async (fileId: string) => (await knex().raw('select filing_id from catalog_file_claims where file_id = ?', [fileId])).rows[0]?.filing_id ?? null;
  const streamTypes = async (filingId: string) => (await fx.store.readStream(`catalogFiling-${filingId}`)).map((e) => e.type);

  it('rule: two filings naming one file id in the same append batch: the first is appended and holds it, the second is refused and appends nothing, the rest of the batch is appended', async () => {
    const shared = aBareFile();
    const [a, b, c] = [aFiling(), aFiling(), aFiling()];
    const ap = appender();
    // Submitted in one turn: one batch.
    const results = await Promise.allSettled([submit(ap, a, [shared]), submit(ap, b, [aBareFile(), shared]), submit(ap, c, [aBareFile()])]);
    assert.equal(results[0].status, 'fulfilled');
    assert.equal(results[2].status, 'fulfilled');
    assert.equal(results[1].status, 'rejected');
    const e = (results[1] as PromiseRejectedResult).reason;
    assert.ok(e instanceof DomainError);
    assert.equal(e.message, `file ${shared.fileId} already belongs to catalog filing ${a.id}`);
    assert.equal(await holder(shared.fileId), a.id);
    assert.deepEqual(await streamTypes(b.id), []);
    assert.deepEqual(await streamTypes(c.id), ['CatalogFilingImported']);
    const claimedByB = await knex().raw('select count(*)::int as n from catalog_file_claims where filing_id = ?', [b.id]);
    assert.equal(claimedByB.rows[0].n, 0, "the refused filing's other file ids stay free");
  });

  it('rule: a take that meets a claim of a transaction still running waits for it: committed, the key is refused; rolled back, the key is taken', async () => {
    const store = new PostgresFileClaims();
    for (const outcome of ['commit', 'rollback'] as const) {
      const key = crypto.randomUUID();
      const first = await knex().transaction();
      assert.deepEqual([...(await store.take(first, [{ key, owner: 'aaaaaaaa-0000-4000-8000-000000000001' }]))], []);
      let secondDone = false;
      const second = knex().transaction(async (trx) => {
        const held = await store.take(trx, [{ key, owner: 'bbbbbbbb-0000-4000-8000-000000000002' }]);
        secondDone = true;
        return held;
      });
      await new Promise((r) => setTimeout(r, 200));
      assert.equal(secondDone, false, 'the second take waits for the first transaction');
      if (outcome === 'commit') await first.commit();
      else await first.rollback();
      const held = await second;
      if (outcome === 'commit') assert.deepEqual([...held], [[key, 'aaaaaaaa-0000-4000-8000-000000000001']]);
      else assert.deepEqual([...held], []);
      assert.equal(await holder(key), outcome === 'commit' ? 'aaaaaaaa-0000-4000-8000-000000000001' : 'bbbbbbbb-0000-4000-8000-000000000002');
    }
  });

  it('rule: two appenders (two import processes) racing for the same file ids: each file id ends with exactly one filing, whose stream lists it', async () => {
    const [x, y] = [appender(), appender()];
    const files = Array.from({ length: 200 }, () => aBareFile());
    const xs = files.map(() => aFiling());
    const ys = files.map(() => aFiling());
    const [rx, ry] = await Promise.all([
      Promise.allSettled(files.map((f, i) => submit(x, xs[i], [f]))),
      Promise.allSettled(files.map((f, i) => submit(y, ys[i], [f]))),
    ]);
    for (let i = 0; i < files.length; i++) {
      const won = [rx[i].status, ry[i].status];
      assert.deepEqual(won.slice().sort(), ['fulfilled', 'rejected'], `file ${i}: ${won.join(', ')}`);
      const winner = rx[i].status === 'fulfilled' ? xs[i] : ys[i];
      const loser = rx[i].status === 'fulfilled' ? ys[i] : xs[i];
      assert.equal(await holder(files[i].fileId), winner.id);
      assert.deepEqual(await streamTypes(loser.id), []);
    }
  });

  it('rule: on an event store without bulk appends (EventStoreDB), the claim is taken in Postgres before the append: a second filing is refused, the first re-imports', async () => {
    const s = fx.store;
    // The same Postgres log behind the port alone, so the appender takes its one-by-one path.
    const generic: EventStore = {
      append: (...a) => s.append(...a),
      readStream: (...a) => s.readStream(...a),
      readAll: (o) => s.readAll(o),
      head: () => s.head(),
      lastCommitted: () => s.lastCommitted(),
      onAppended: (l) => s.onAppended(l),
      close: async () => {},
    };
    const ap = appender(generic);
    const shared = aBareFile();
    const [a, b] = [aFiling(), aFiling()];
    assert.equal((await submit(ap, a, [shared])).status, 'created');
    await assert.rejects(submit(ap, b, [shared]), (e: unknown) => e instanceof DomainError && e.message === `file ${shared.fileId} already belongs to catalog filing ${a.id}`);
    assert.equal((await submit(ap, a, [shared])).status, 'unchanged');
    assert.equal((await submit(ap, a, [shared, aBareFile()])).status, 'updated');
    assert.deepEqual(await streamTypes(b.id), []);
  });

  it('rule: the claims agree with an event log written before them: the first filing in log order to list a file id holds it', async () => {
    const shared = aBareFile();
    const [a, b] = [aFiling(), aFiling()];
    // Events appended straight to the log, as before claims existed (the old importer let both in).
    await fx.store.append(`catalogFiling-${a.id}`, [{ type: 'CatalogFilingImported', data: { filing: a, files: [shared] } }], 0, { actor: 'test' });
    await fx.store.append(`catalogFiling-${b.id}`, [{ type: 'CatalogFilingImported', data: { filing: b, files: [aBareFile(), shared] } }], 0, { actor: 'test' });
    await fx.store.append(`catalogFiling-${a.id}`, [{ type: 'CatalogFilingUpdated', data: { filing: a, files: [] } }], 1, { actor: 'test' });
    await backfillFileClaims(knex());
    assert.equal(await holder(shared.fileId), a.id);
    const ap = appender();
    await assert.rejects(submit(ap, b, [shared, aBareFile()]), (e: unknown) => e instanceof DomainError && e.message.endsWith(a.id));
    // Idempotent: a second run changes nothing.
    await backfillFileClaims(knex());
    assert.equal(await holder(shared.fileId), a.id);
  });
});
