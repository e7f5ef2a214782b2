import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client as EsClient } from '@elastic/elasticsearch';
import { AssignerProtocol, type Kafka } from 'kafkajs';
import { createKafka } from '../../infra/bus/kafka-client';
import { runImport } from '../../src/cli/import/import-cli';
import { IdentityCommands } from '../../commands/identity/identity-commands';
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/util/logger';
import { openRuntime, type Runtime } from '../../src/runtime';
import { runCli, startServe } from '../support/cli';
import { dropTestIndexes, testElasticsearchUrl, uniqueAlias } from '../support/elasticsearch';
import { freshDatabaseUrl } from '../support/postgres';
import { client } from '../support/runtime';
import { upload } from '../support/working-filings';
import { catalogFiling, file as catalogFile } from '../support/catalog-records';

/**
 * Issue 6 part 5: the production topology as separate real processes on one Postgres database, a real
 * Kafka and a real Elasticsearch — one `api`, one `projector`, two `indexer`s — with one indexer
 * SIGKILLed in the middle of the uploads.
 */
const BIN = path.join(__dirname, '../../bin/ifrs.js');
const brokers = process.env.KAFKA_BROKERS?.split(',').map((s) => s.trim()).filter(Boolean) ?? [];
const esUrl = testElasticsearchUrl();

interface Proc {
  name: string;
  child: ChildProcess;
  exited: Promise<number | null>;
  stderr: () => string;
}

/** `ifrs serve --role <role>` for the roles without HTTP: ready once it logged "running as <role>". */
function startRole(name: string, role: string, args: string[], env: NodeJS.ProcessEnv): Promise<Proc> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'serve', '--role', role, '--port', '0', ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${name} did not start: ${err.slice(-2000)}`));
    }, 90_000);
    child.stdout.resume();
    child.stderr.on('data', (d) => {
      err += d;
      if (err.includes(`"msg":"running as ${role}"`)) {
        clearTimeout(timer);
        resolve({ name, child, exited, stderr: () => err });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited (${code}) before it was running: ${err.slice(-2000)}`));
    });
  });
}

async function stop(p: Proc): Promise<void> {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return;
  p.child.kill('SIGTERM');
  const done = await Promise.race([p.exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 10_000))]);
  if (!done) {
    p.child.kill('SIGKILL');
    await p.exited;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs fn on every item, at most `n` at a time. */
async function eachLimit<T, R>(items: T[], n: number, fn: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]);
      }
    }),
  );
  return out;
}

/** The consumer group's members and the partitions each was assigned. */
async function groupMembers(kafka: Kafka, groupId: string, topic: string): Promise<{ state: string; members: number[][] }> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const { groups } = await admin.describeGroups([groupId]);
    const g = groups[0];
    const members = g.members.map((m) => {
      const a = m.memberAssignment.length ? AssignerProtocol.MemberAssignment.decode(m.memberAssignment) : null;
      return [...(a?.assignment[topic] ?? [])].sort((x, y) => x - y);
    });
    return { state: g.state, members };
  } finally {
    await admin.disconnect();
  }
}

if (!brokers.length || !esUrl) {
  // Not a pass: no tests are registered. CI (.ci/run) starts both servers and exports both variables.
  console.log(
    `Process roles (api / projector / 2× indexer on Kafka + Elasticsearch) — ${[!brokers.length && 'KAFKA_BROKERS', !esUrl && 'ELASTICSEARCH_URL'].filter(Boolean).join(' and ')} not set; this e2e suite did NOT run (start them: eval "$(infra/servers/start-all.sh)")`,
  );
} else {
  describe('ifrs serve --role api | projector | indexer ×2 as separate processes (Kafka + Elasticsearch)', function () {
    this.timeout(180_000);
    const topic = `ifrs.test.roles.${crypto.randomBytes(4).toString('hex')}`;
    const alias = uniqueAlias('ifrs-roles');
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ifrs-roles-'));
    const dataDir = (name: string) => ['--data-dir', path.join(tmp, name)];
    const procs: Proc[] = [];
    const kafka = createKafka(brokers, createLogger('silent'), 'ifrs-roles-test');
    const es = new EsClient({ node: esUrl });
    let env: NodeJS.ProcessEnv;
    let api: Proc & { url: string };
    let apiKey: string;
    let scope: string;
    let rt: Runtime | null = null;

    before(async function () {
      this.timeout(150_000);
      const databaseUrl = await freshDatabaseUrl();
      env = {
        DATABASE_URL: databaseUrl,
        KAFKA_BROKERS: brokers.join(','),
        KAFKA_TOPIC: topic,
        ELASTICSEARCH_URL: esUrl,
        ELASTICSEARCH_INDEX: alias,
        ESDB_URL: '',
        IFRS_DATA_DIR: '',
        LOG_LEVEL: 'info',
      };
      // The operator's setup through the service's own commands, in-process on the same database
      // (what `ifrs admin ...` and `ifrs import` run; one runtime instead of a process per command).
      rt = await openRuntime(loadConfig(env, { dataDir: path.join(tmp, 'setup') }), createLogger('silent'), { poolMax: 5 });
      const id = rt.container.get(IdentityCommands);
      const meta = { actor: 'operator:test' };
      const { tenantId } = await id.createTenant({ name: 'Roles Co', datasets: ['naic'], sharing: false }, meta);
      const { userId } = await id.createUser({ tenantId, name: 'Ed Itor', email: 'ed@example.com' }, meta);
      scope = (await id.createScope({ tenantId, name: 'Roles scope' }, meta)).scope;
      await id.grant({ scope, userId, role: 'editor' }, meta);
      apiKey = (await id.createKey({ userId, readOnly: false, permissions: ['serff:view'] }, meta)).apiKey;
      const listings = path.join(tmp, 'listings.jsonl');
      fs.writeFileSync(
        listings,
        [
          { type: 'scope_company', scope, id: crypto.randomUUID(), name: 'Acme Insurance Co', naicCompanyCode: '12345' },
          { type: 'scope_jurisdiction', scope, id: crypto.randomUUID(), code: 'TX', name: 'Texas' },
          { type: 'scope_product', scope, id: crypto.randomUUID(), name: 'Cyber Shield' },
        ]
          .map((r) => JSON.stringify(r))
          .join('\n') + '\n',
      );
      assert.deepEqual(await runImport(rt, listings, { wait: false }), { imported: 3, failed: 0, errors: [] });

      // The indexers first, before any relay created the topic (deployments start in any order), then
      // the api and the projector.
      // Each is tracked as soon as it runs, so a failed start of another still stops it in `after`.
      const track = <P extends Proc>(p: P) => (procs.push(p), p);
      await Promise.all([startRole('indexer-1', 'indexer', dataDir('indexer-1'), env).then(track), startRole('indexer-2', 'indexer', dataDir('indexer-2'), env).then(track)]);
      await Promise.all([
        startServe(['--role', 'api', '--port', '0', ...dataDir('api')], env).then((s) => (api = track({ name: 'api', child: s.child, exited: s.exited, stderr: s.stderr, url: s.url }))),
        startRole('projector', 'projector', dataDir('projector'), env).then(track),
      ]);
    });

    after(async function () {
      this.timeout(60_000);
      await Promise.all(procs.map(stop));
      await rt?.close();
      const admin = kafka.admin();
      await admin.connect().catch(() => undefined);
      await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
      await admin.disconnect().catch(() => undefined);
      await dropTestIndexes(es, alias).catch(() => undefined);
      await es.close();
      fs.rmSync(tmp, { recursive: true, force: true });
    });

    it('indexes every uploaded version exactly once across two indexers, survives a SIGKILLed one, and serves catalog search from Elasticsearch', async () => {
      const api0 = client(api.url, apiKey);
      const indexers = procs.filter((p) => p.name.startsWith('indexer')).sort((a, b) => a.name.localeCompare(b.name));
      assert.equal(indexers.length, 2);

      // Both indexers joined the consumer group `ifrs.indexer` and split the topic's partitions; no
      // other process is a member (neither the api nor the projector runs the indexing worker).
      let group = await groupMembers(kafka, 'ifrs.indexer', topic);
      for (const deadline = Date.now() + 30_000; !(group.state === 'Stable' && group.members.length === 2 && group.members.every((m) => m.length > 0)); ) {
        assert.ok(Date.now() < deadline, `expected exactly the two indexers in the group, sharing it: ${JSON.stringify(group)}`);
        await sleep(250);
        group = await groupMembers(kafka, 'ifrs.indexer', topic);
      }
      assert.deepEqual(group.members.flat().sort((a, b) => a - b), [...Array(12).keys()], 'every partition assigned once');

      // 20 small files (≤ 256 KiB: their blobs live in Postgres, shared by every process), 6 of them
      // uploaded again as new versions; the second indexer is SIGKILLed after the first half.
      const artifacts: { id: string; versions: number }[] = [];
      const uploadOne = async (i: number) => {
        const r = await upload(api.url, apiKey, scope, `working file ${i} about wildfire mitigation, roof ${i} and hail`, { name: `file-${i}.txt` });
        artifacts[i] = { id: r.artifact.id, versions: 1 };
      };
      await eachLimit([...Array(10).keys()], 4, uploadOne);
      const killed = indexers[1];
      killed.child.kill('SIGKILL');
      await killed.exited;
      await eachLimit([...Array(10).keys()].map((i) => i + 10), 4, uploadOne);
      await eachLimit([0, 3, 7, 11, 15, 19], 3, async (i) => {
        await upload(api.url, apiKey, scope, `working file ${i}, second version`, { name: `file-${i}.txt`, artifactId: artifacts[i].id });
        artifacts[i].versions++;
      });
      assert.equal(artifacts.reduce((n, a) => n + a.versions, 0), 26);

      // Every artifact's current version turns isIndexed (the killed member's partitions move to the
      // survivor once its Kafka session times out, 30 s).
      const deadline = Date.now() + 75_000;
      for (const a of artifacts) {
        for (;;) {
          const r = await api0.get(`/artifacts/${a.id}`);
          assert.equal(r.status, 200, r.text);
          if (r.body.isIndexed) {
            assert.equal(r.body.data.contentVersion, a.versions);
            break;
          }
          assert.ok(Date.now() < deadline, `artifact ${a.id} (version ${a.versions}) was not indexed in time; indexer-1 log tail: ${indexers[0].stderr().slice(-1500)}`);
          await sleep(300);
        }
      }
      group = await groupMembers(kafka, 'ifrs.indexer', topic);
      assert.equal(group.members.length, 1, `only the survivor is left in the group: ${JSON.stringify(group)}`);
      assert.deepEqual(group.members[0], [...Array(12).keys()], 'the survivor took over every partition');

      // Exactly one ArtifactVersionIndexed per version, in the log itself (the event store read as
      // `ifrs events read` reads it; the CLI itself for two of them, an original and a re-uploaded one).
      const readStream = async (artifactId: string, viaCli: boolean) => {
        if (!viaCli) return (await rt!.store.readStream(`artifact-${artifactId}`)).map((e) => ({ type: e.type, data: e.data as Record<string, any> }));
        const r = await runCli(['events', 'read', '--stream', `artifact-${artifactId}`, ...dataDir('cli')], env);
        assert.equal(r.code, 0, r.stderr);
        return r.json.events as { type: string; data: Record<string, any> }[];
      };
      await eachLimit(artifacts, 4, async (a) => {
        const events = await readStream(a.id, a === artifacts[1] || a === artifacts[15]);
        const added = events.filter((e) => e.type === 'ArtifactVersionAdded').map((e) => e.data.version.id as string);
        const indexed = events.filter((e) => e.type === 'ArtifactVersionIndexed').map((e) => e.data.versionId as string);
        assert.equal(added.length, a.versions);
        assert.deepEqual([...indexed].sort(), [...added].sort(), `artifact ${a.id}: one ArtifactVersionIndexed per version, no more`);
      });

      // Catalog filings imported by the CLI (without --wait: no projector in that process's role here)
      // reach Elasticsearch through the projector process and are searchable through the API process.
      const catalog = path.join(tmp, 'catalog.jsonl');
      const filing = (o: Record<string, unknown>) => catalogFiling({ description: 'A filing imported by the roles test.', ...o });
      const file = (name: string, pages: string[]) => catalogFile({ name, role: 'supporting_document', text: { pages } });
      const wildfire = filing({ sourceReference: '25-900001', files: [file('Wildfire Rule.pdf', ['Cover letter', 'The wildfire surcharge applies to dwellings in high hazard zones.'])] });
      const roof = filing({ sourceReference: '25-900002', files: [file('Roof.pdf', ['Roof age schedule for hail losses.'])] });
      fs.writeFileSync(catalog, [wildfire, roof].map((r) => JSON.stringify(r)).join('\n') + '\n');
      const imported = await runCli(['import', catalog, ...dataDir('cli')], env);
      assert.equal(imported.code, 0, imported.stderr);
      assert.deepEqual({ imported: imported.json.imported, failed: imported.json.failed }, { imported: 2, failed: 0 }, imported.stdout);

      let found: { status: number; body: any; text: string };
      for (const until = Date.now() + 30_000; ; ) {
        const r = await api0.post('/insurance/filings/search', { query: 'wildfire surcharge', intent: 'find filings for competitive research', includePassages: true });
        if (r.status === 200 && r.body.filings?.length) {
          found = r;
          break;
        }
        assert.ok(Date.now() < until, `search found nothing in time: ${r.status} ${r.text}`);
        await sleep(300);
      }
      assert.deepEqual(found.body.filings.map((f: { id: string }) => f.id), [wildfire.id]);
      assert.match(found.body.filings[0].matches[0].passages[0].text, /wildfire surcharge/i);
      // It is the Elasticsearch index that answered: the documents are in the alias.
      const count = await es.count({ index: alias });
      assert.ok(count.count >= 2, `documents in ${alias}: ${count.count}`);

      // The surviving processes are all still up.
      for (const p of procs.filter((x) => x !== killed)) assert.equal(p.child.exitCode, null, `${p.name} exited: ${p.stderr().slice(-1500)}`);
    });
  });
}
