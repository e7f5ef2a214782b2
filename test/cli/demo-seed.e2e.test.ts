import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { runCli, startServe } from '../support/cli';
import { freshDatabaseUrl } from '../support/postgres';

const BIN = path.join(__dirname, '../../bin/ifrs.js');

/** Turns one printed example (`curl -s -H ... [-X POST] "URL" [-d 'JSON']`) into a fetch against `base`. */
async function runExample(example: string, printedBase: string, base: string): Promise<{ status: number; body: any }> {
  const url = /"(http:\/\/[^"]+)"/.exec(example)?.[1];
  assert.ok(url, `no URL in ${example}`);
  const headers: Record<string, string> = {};
  for (const m of example.matchAll(/-H "([^:"]+): ([^"]+)"/g)) headers[m[1]!] = m[2]!;
  const data = /-d '([^']+)'/.exec(example)?.[1];
  const r = await fetch(url.replace(printedBase, base), { method: /-X POST/.test(example) ? 'POST' : 'GET', headers, body: data });
  return { status: r.status, body: await r.json() };
}

/** The three printed examples answer 200 with non-empty results. */
async function checkExamples(examples: string[], printedBase: string, base: string): Promise<void> {
  assert.equal(examples.length, 3);
  const [list, search, text] = await Promise.all(examples.map((e) => runExample(e, printedBase, base)));
  assert.equal(list!.status, 200, JSON.stringify(list!.body));
  assert.ok(list!.body.filings.length > 0, 'the filtered catalog list is not empty');
  assert.equal(search!.status, 200, JSON.stringify(search!.body));
  assert.ok(search!.body.filings.length > 0, 'the search finds filings');
  const passages = search!.body.filings.flatMap((f: any) => f.matches.flatMap((m: any) => m.passages ?? []));
  assert.ok(passages.length > 0, 'the search returns passages');
  assert.ok(passages.every((p: any) => Number.isInteger(p.pageStart) && Number.isInteger(p.pageEnd) && p.text.length > 0), 'passages carry page numbers');
  assert.equal(text!.status, 200, JSON.stringify(text!.body));
  assert.ok(text!.body.text.trim().length > 0, 'the text chunk is not empty');
}

describe('ifrs demo seed (the real CLI)', function () {
  this.timeout(180_000);
  let url: string;
  let dataDir: string;
  let db: pg.Client;
  let env: NodeJS.ProcessEnv;
  const count = async (sql: string, args: unknown[] = []) => Number((await db.query(sql, args)).rows[0].n);

  before(async () => {
    url = await freshDatabaseUrl();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ifrs-demo-'));
    env = { DATABASE_URL: url, LOG_LEVEL: 'warn', KAFKA_BROKERS: '', ELASTICSEARCH_URL: '', ESDB_URL: '' };
    db = new pg.Client({ connectionString: url });
    await db.connect();
  });
  after(async () => {
    await db.end();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  let first: any;

  it('seeds tenant, scope, manager user, key, catalog with PDFs and working filings; the printed key and the three examples work against the service', async () => {
    const r = await runCli(['demo', 'seed', '--filings', '30', '--data-dir', dataDir], env, 150_000);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim().split('\n').length, 1, 'exactly one JSON object on stdout');
    first = r.json;
    for (const k of ['tenantId', 'scope', 'userId', 'keyId', 'apiKey', 'filings', 'imported', 'failed', 'seconds', 'baseUrl', 'examples']) assert.ok(k in first, `${k} in the result`);
    assert.match(first.apiKey, /^ifrs_/);
    assert.match(first.scope, /^mc:[0-9a-f-]{36}$/);
    assert.equal(first.filings, 30);
    assert.equal(first.failed, 0);
    assert.ok(first.imported > 30);
    assert.match(r.stderr, /demo: importing/, 'progress on stderr');

    const serve = await startServe(['--port', '0', '--data-dir', dataDir], env);
    try {
      const auth = { Authorization: `Bearer ${first.apiKey}` };
      const me = await fetch(`${serve.url}/users/me`, { headers: auth });
      assert.equal(me.status, 200);
      assert.equal(((await me.json()) as { tenantId: string }).tenantId, first.tenantId);
      await checkExamples(first.examples, first.baseUrl, serve.url);

      // Working filings: managed ones (created through the command services) with items and a resolved thread,
      // next to the generator's imported reference filings.
      const list = (await (await fetch(`${serve.url}/insurance/managed-filings?limit=50`, { headers: auth })).json()) as { filings: { id: string; filingMode: string | null }[] };
      const rows = list.filings;
      assert.ok(rows.some((f) => f.filingMode === 'managed'), JSON.stringify(list).slice(0, 300));
      assert.ok(rows.some((f) => f.filingMode === 'reference'));
      const managed = first.workingFilings[0];
      const items = (await (await fetch(`${serve.url}/managed-filings/${managed}/items`, { headers: auth })).json()) as { items: unknown[] };
      assert.ok(items.items.length >= 2, 'items with uploaded artifacts');
      assert.ok((await count(`select count(*) as n from es_events where type = 'FilingThreadResolved' and stream_id = $1`, [`managedFiling-${managed}`])) >= 1, 'one thread resolved');
      assert.ok((await count(`select count(*) as n from managed_filing_comments where filing_id = $1`, [managed])) >= 3, 'a comment thread with a reply');
    } finally {
      serve.child.kill('SIGTERM');
      await serve.exited;
    }
  });

  it('rule: a second seed on the same data reuses tenant, scope and user, appends nothing but the new key, and issues a new working key', async () => {
    assert.ok(first, 'the first seed ran');
    const before = await count('select max(global_position) as n from es_events');
    const r = await runCli(['demo', 'seed', '--filings', '30', '--data-dir', dataDir], env, 150_000);
    assert.equal(r.code, 0, r.stderr);
    const second = r.json;
    assert.equal(second.tenantId, first.tenantId);
    assert.equal(second.scope, first.scope);
    assert.equal(second.userId, first.userId);
    assert.deepEqual(second.workingFilings, first.workingFilings, 'working filings are not created again');
    assert.notEqual(second.keyId, first.keyId);
    assert.notEqual(second.apiKey, first.apiKey);
    const appended = (await db.query('select type from es_events where global_position > $1', [before])).rows.map((x) => x.type);
    assert.deepEqual(appended, ['ApiKeyIssued'], 'only the new key was appended');
    assert.equal(await count(`select count(*) as n from identity_tenants`), 1);
    assert.equal(await count(`select count(*) as n from identity_api_keys where user_id = $1`, [first.userId]), 2);
  });

  it('serve --demo seeds an empty database, then prints the key and examples that work', async () => {
    const url2 = await freshDatabaseUrl();
    const dd = fs.mkdtempSync(path.join(os.tmpdir(), 'ifrs-demo-serve-'));
    const child = spawn(process.execPath, [BIN, 'serve', '--demo', '--port', '0', '--data-dir', dd], {
      env: { ...process.env, ...env, DATABASE_URL: url2, IFRS_DEMO_FILINGS: '20' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise((r) => child.on('exit', r));
    try {
      let out = '';
      let err = '';
      child.stderr.on('data', (d) => (err += d));
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no banner: ${out} ${err}`)), 150_000);
        child.stdout.on('data', (d) => {
          out += d;
          if (/listening on/.test(out) && (out.match(/^ {2}curl /gm) ?? []).length === 3) {
            clearTimeout(timer);
            resolve();
          }
        });
        child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${err}`)));
      });
      const base = /listening on (http:\/\/\S+)/.exec(out)![1]!;
      assert.match(out, /demo API key: ifrs_/);
      const examples = out.split('\n').filter((l) => l.startsWith('  curl ')).map((l) => l.trim());
      await checkExamples(examples, base, base);
    } finally {
      child.kill('SIGTERM');
      await exited;
      fs.rmSync(dd, { recursive: true, force: true });
    }
  });
});
