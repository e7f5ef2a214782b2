import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { Knex } from 'knex';
import { client, makeCaller, startTestRuntime, type TestCaller, type TestRuntime } from '../../support/runtime';
import { aFiling, aTextFile, importFiling, type ImportedFiling } from '../../support/catalog-filing-mother';
import { SEARCH_BOUNDS } from '../../../src/ports/search-bounds';

/** Bounds of this suite: an answer within a few seconds, a backend within a few hundred MB (it grew past 16 GB). */
const ANSWER_WITHIN_MS = 5_000;
const BACKEND_RSS_MAX_MB = 256;
const STATEMENT_GONE_WITHIN_MS = 1_000;

const phraseQuery = (n: number) => Array.from({ length: n }, (_, i) => `"w${i}a w${i}b"`).join(' ');
/** The query the contract's 4,000 characters allow with as many quoted phrases as fit (~250). */
const fullPhraseQuery = () => {
  let q = '';
  for (let i = 0; `${q} "w${i}a w${i}b"`.trim().length <= 4000; i++) q = `${q} "w${i}a w${i}b"`.trim();
  return q;
};
const hundredStates = () => ['TX', 'CA', ...Array.from({ length: 98 }, (_, i) => String.fromCharCode(65 + Math.floor(i / 26), 65 + (i % 26)))].slice(0, 100);
const hundredCodes = () => Array.from({ length: 100 }, (_, i) => String(60000 + i));

/** Private (anonymous) resident memory of a Postgres backend, in MB, from /proc (the shared buffers are not its own). */
function backendAnonMb(pid: number): number | null {
  try {
    const m = /RssAnon:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/** The largest backend of the runtime's database while `fn` runs, sampled every 20 ms, and fn's result and duration. */
async function measured<T>(knex: Knex, fn: () => Promise<T>): Promise<{ result: T; ms: number; peakMb: number; sampled: number }> {
  let peakMb = 0;
  let sampled = 0;
  let running = true;
  const sampler = (async () => {
    while (running) {
      const rows = (await knex.raw(`select pid from pg_stat_activity where datname = current_database() and backend_type = 'client backend'`)).rows as { pid: number }[];
      for (const r of rows) {
        const mb = backendAnonMb(r.pid);
        if (mb !== null) {
          sampled++;
          peakMb = Math.max(peakMb, mb);
        }
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  const start = Date.now();
  try {
    const result = await fn();
    return { result, ms: Date.now() - start, peakMb, sampled };
  } finally {
    running = false;
    await sampler;
  }
}

/** Holds an ACCESS EXCLUSIVE lock on `table` until released: a statement reading it waits, running, in pg_stat_activity. */
async function lockTable(knex: Knex, table: string): Promise<() => Promise<void>> {
  const trx = await knex.transaction();
  await trx.raw(`lock table ${table} in access exclusive mode`);
  return async () => {
    if (!trx.isCompleted()) await trx.rollback();
  };
}

/** Statements of other sessions of the database waiting on a lock, whose text mentions `text`. */
async function waiting(knex: Knex, text: string): Promise<{ pid: number }[]> {
  return (
    await knex.raw(
      `select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and state = 'active' and wait_event_type = 'Lock' and query like ?`,
      [`%${text}%`],
    )
  ).rows;
}

async function until(cond: () => Promise<boolean>, ms: number): Promise<number> {
  const start = Date.now();
  while (!(await cond())) {
    if (Date.now() - start > ms) throw new Error(`not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
  return Date.now() - start;
}

describe('abuse: bounded work per request (search cost bound, statement timeout, cancel on disconnect, backend memory)', () => {
  let t: TestRuntime;
  let caller: TestCaller;
  let bomb: ImportedFiling;

  before(async () => {
    t = await startTestRuntime();
    caller = await makeCaller(t.rt);
    // One filing holds every phrase of the bombs on one page, so the phrase checks run, not only their planning.
    bomb = await importFiling(t.rt, aFiling({ state: 'TX', submissionDate: '2024-02-01' }), [
      aTextFile([`Phrase bomb page. ${Array.from({ length: 260 }, (_, i) => `w${i}a w${i}b.`).join(' ')}`], { name: 'Bomb.pdf' }),
    ]);
    await importFiling(t.rt, aFiling({ state: 'TX', submissionDate: '2024-03-01' }), [aTextFile(['Wildfire surcharge schedule for Texas dwellings.'], { name: 'Wildfire.pdf' })]);
    await t.rt.engine.catchUp();
  });
  after(async () => t?.close());

  /** A request whose client goes away (closes its connection) before the answer: `leave()`. */
  const abandoned = (method: string, path: string, body?: string) => {
    const req = http.request(`${t.baseUrl}${path}`, { method, headers: { authorization: `Bearer ${caller.apiKey}`, 'content-type': 'application/json' } });
    req.on('error', () => undefined);
    req.end(body);
    return { leave: () => req.destroy() };
  };
  const search = (body: object) => client(t.baseUrl, caller.apiKey).post('/filings/search', body);

  it('rule: the phrase bomb of issue 19 (100 quoted phrases, a state filter) is a coded 400 naming the bound and the field, in bounded time and memory', async () => {
    const m = await measured(t.rt.db.knex, () => search({ query: phraseQuery(100), filters: [{ field: 'state', operator: 'eq', value: 'TX' }] }));
    assert.equal(m.result.status, 400, m.result.text);
    assert.equal(m.result.body.code, 'invalid_request');
    assert.deepEqual(m.result.body.details[0].path, ['query']);
    assert.match(m.result.body.details[0].message, new RegExp(`At most ${SEARCH_BOUNDS.phrases} quoted phrases`));
    assert.ok(m.ms < ANSWER_WITHIN_MS, `${m.ms} ms`);
    assert.ok(m.peakMb < BACKEND_RSS_MAX_MB, `${m.peakMb} MB`);
  });

  it('rule: the full 4,000-character phrase query with 100-value filters is answered (coded 400), never a crash', async () => {
    const query = fullPhraseQuery();
    assert.ok(query.length > 3990 && query.length <= 4000);
    const filters = [
      { field: 'state', operator: 'in', value: hundredStates() },
      { field: 'naicCompanyCodes', operator: 'notContainsAny', value: hundredCodes() },
      { field: 'trackingNumber', operator: 'in', value: Array.from({ length: 100 }, (_, i) => `FL-24-${String(100000 + i)}`) },
    ];
    const m = await measured(t.rt.db.knex, () => search({ query, filters, includePassages: true }));
    assert.equal(m.result.status, 400, m.result.text);
    assert.deepEqual(m.result.body.details[0].path, ['query']);
    assert.ok(m.ms < ANSWER_WITHIN_MS, `${m.ms} ms`);
    assert.ok(m.peakMb < BACKEND_RSS_MAX_MB, `${m.peakMb} MB`);
  });

  it(`rule: searches at the bound (${SEARCH_BOUNDS.phrases} phrases; ${SEARCH_BOUNDS.words} words) with 100-value filters answer 200 in bounded time, Postgres backends stay bounded`, async () => {
    const states = { field: 'state', operator: 'in', value: hundredStates() };
    const atPhraseBound = await measured(t.rt.db.knex, () => search({ query: phraseQuery(SEARCH_BOUNDS.phrases), filters: [states], includePassages: true }));
    assert.equal(atPhraseBound.result.status, 200, atPhraseBound.result.text);
    assert.deepEqual(atPhraseBound.result.body.filings.map((f: { id: string }) => f.id), [bomb.filing.id]);
    const words = Array.from({ length: SEARCH_BOUNDS.words }, (_, i) => `w${i}a`).join(' ');
    const atWordBound = await measured(t.rt.db.knex, () => search({ query: words, filters: [states, { field: 'naicCompanyCodes', operator: 'notContainsAny', value: hundredCodes() }] }));
    assert.equal(atWordBound.result.status, 200, atWordBound.result.text);
    for (const m of [atPhraseBound, atWordBound]) {
      assert.ok(m.ms < ANSWER_WITHIN_MS, `${m.ms} ms`);
      assert.ok(m.sampled > 0, 'no backend was measured');
      assert.ok(m.peakMb < BACKEND_RSS_MAX_MB, `${m.peakMb} MB`);
    }
  });

  it('rule: a search whose client disconnects is cancelled: its statement is gone from pg_stat_activity within a second', async () => {
    const release = await lockTable(t.rt.db.knex, 'search_filings');
    try {
      const r = abandoned('POST', '/filings/search', JSON.stringify({ query: 'wildfire surcharge roof' }));
      await until(async () => (await waiting(t.rt.db.knex, 'search_filings')).length === 1, 5_000);
      r.leave();
      await until(async () => (await waiting(t.rt.db.knex, 'search_filings')).length === 0, STATEMENT_GONE_WITHIN_MS);
    } finally {
      await release();
    }
    // Answered normally once the lock is gone: the cancelled connection was not lent again.
    assert.equal((await search({ query: 'wildfire surcharge roof' })).status, 200);
  });

  it('rule: a text read whose client disconnects is cancelled: its statement is gone from pg_stat_activity within a second', async () => {
    const fileId = bomb.files[0].fileId;
    const release = await lockTable(t.rt.db.knex, 'files_entries');
    try {
      const r = abandoned('GET', `/files/${fileId}/text`);
      await until(async () => (await waiting(t.rt.db.knex, 'files_entries')).length === 1, 5_000);
      r.leave();
      await until(async () => (await waiting(t.rt.db.knex, 'files_entries')).length === 0, STATEMENT_GONE_WITHIN_MS);
    } finally {
      await release();
    }
  });
});

describe('abuse: the statement timeout', () => {
  let t: TestRuntime;
  let caller: TestCaller;
  const TIMEOUT_MS = 300;

  before(async () => {
    t = await startTestRuntime({ statementTimeoutMs: TIMEOUT_MS });
    caller = await makeCaller(t.rt);
    await importFiling(t.rt, aFiling({ state: 'TX' }), [aTextFile(['Wildfire surcharge schedule.'])]);
    await t.rt.engine.catchUp();
  });
  after(async () => t?.close());

  it('rule: a statement past the statement timeout answers 503 temporarily_unavailable with Retry-After, and is gone from Postgres', async () => {
    const release = await lockTable(t.rt.db.knex, 'search_filings');
    try {
      const start = Date.now();
      const r = await client(t.baseUrl, caller.apiKey).post('/filings/search', { query: 'wildfire surcharge' });
      const ms = Date.now() - start;
      assert.equal(r.status, 503, r.text);
      assert.equal(r.body.code, 'temporarily_unavailable');
      assert.match(r.body.error, /statement timeout/);
      assert.ok(Number(r.headers.get('retry-after')) >= 1);
      assert.ok(r.headers.get('x-request-id'));
      assert.ok(ms >= TIMEOUT_MS && ms < ANSWER_WITHIN_MS, `${ms} ms`);
      assert.equal((await waiting(t.rt.db.knex, 'search_filings')).length, 0);
    } finally {
      await release();
    }
    // The next request gets a fresh connection and answers.
    const ok = await client(t.baseUrl, caller.apiKey).post('/filings/search', { query: 'wildfire surcharge' });
    assert.equal(ok.status, 200, ok.text);
  });
});
