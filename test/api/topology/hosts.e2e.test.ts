import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runImport } from '../../../src/cli/import/import-cli';
import { IdentityCommands } from '../../../commands/identity/identity-commands';
import { loadConfig } from '../../../src/config';
import { comparePositions } from '../../../src/domain/events';
import { createLogger } from '../../../src/util/logger';
import { openRuntime, type Runtime } from '../../../src/runtime';
import { catalogFiling, file as catalogFile } from '../../support/catalog-records';
import { client } from '../../support/runtime';
import { filingBody, seedListings, upload } from '../../support/working-filings';
import { startHostElasticsearch, startHostKafka, type HostServer } from '../../support/topology/host-bus-search';
import { HostPostgres, KEEPALIVE } from '../../support/topology/host-postgres';
import { startHostS3 } from '../../support/topology/host-s3';
import { Network, netnsUnavailable } from '../../support/topology/netns';
import { checkpointPosition, checkpointPositions, heldCheckpointLocks, readModelFingerprint, searchIndexFingerprint } from '../../support/topology/read-models';
import { killRole, startRole, stopRole, type RoleProcess } from '../../support/topology/role-process';

/**
 * Issue 20 item 3, "hosts, not processes": the production topology on Linux network namespaces. One host
 * per namespace, each with its own address on a private bridge: `shared` (Postgres, Kafka, Elasticsearch and the S3
 * gateway), two API hosts, two
 * projector hosts and one indexer host, each running `ifrs serve --role ...` against `shared`. Host
 * failures are made real (SIGKILL, a cut link, a Postgres restart) and what the service did is asserted
 * and timed; the figures are printed as the README's failure table (and written to
 * $IFRS_TOPOLOGY_RESULTS when set).
 */
const unavailable = netnsUnavailable();

interface Figure {
  failure: string;
  serviceDid: string;
  recovery: string;
  lostOrDoubled: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
/** One timed step of a scenario, printed under its title (CI's log shows where the time went). */
const phase = (what: string, ms: number) => console.log(`      · ${what}: ${seconds(ms)}`);

/** Polls fn until it returns a value other than undefined; fails with `what` after `ms`. */
async function until<T>(what: string, ms: number, fn: () => Promise<T | undefined>, pauseMs = 100): Promise<T> {
  const deadline = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms${last ? ` (last error: ${(last as Error).message})` : ''}`);
    await sleep(pauseMs);
  }
}

if (unavailable) {
  // Not a pass: no tests are registered. CI runs as root, where namespaces are available.
  console.log(`Host topology on network namespaces — ${unavailable}; this e2e suite did NOT run (run it as root on Linux with iproute2)`);
} else {
  describe('hosts, not processes: roles on separate network-namespace hosts against a shared Postgres, Kafka, Elasticsearch and S3 host', function () {
    this.timeout(120_000);
    const HOSTS = ['shared', 'api-1', 'api-2', 'projector-1', 'projector-2', 'indexer'];
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ifrs-topology-'));
    const figures: Figure[] = [];
    const roles = new Map<string, RoleProcess>();
    /** Every role process of the run, the killed ones too (their logs are kept when $IFRS_TOPOLOGY_LOGS names a directory). */
    const everyRole: RoleProcess[] = [];
    let net: Network;
    let postgres: HostPostgres;
    let s3: ReturnType<typeof startHostS3> | null = null;
    let kafka: HostServer | null = null;
    let elasticsearch: HostServer | null = null;
    const savedEnv: Record<string, string | undefined> = {};
    let databaseUrl: string;
    let rt: Runtime;
    let apiKey: string;
    let scope: string;

    const envFor = (host: string): NodeJS.ProcessEnv => ({
      DATABASE_URL: databaseUrl,
      IFRS_DATA_DIR: path.join(tmp, host),
      LOG_LEVEL: 'info',
      // Postgres carries the log (no server on the test machine's loopback is reachable from the
      // namespaces); the bus is Kafka and search is Elasticsearch, both on `shared`.
      ESDB_URL: '',
      KAFKA_BROKERS: kafka!.env.KAFKA_BROKERS,
      ELASTICSEARCH_URL: elasticsearch!.env.ELASTICSEARCH_URL,
      // Every blob in the bucket on `shared`: a host keeps no file on its own disk.
      ...s3!.env,
    });
    const role = (host: string) => {
      const p = roles.get(host);
      if (!p) throw new Error(`nothing runs on ${host}`);
      return p;
    };
    const api = (host: 'api-1' | 'api-2') => client(role(host).url!, apiKey);
    const start = async (host: string, r: 'api' | 'projector' | 'indexer') => {
      const p = await startRole(net, host, r, envFor(host));
      roles.set(host, p);
      everyRole.push(p);
      return p;
    };
    /** The artifact's stream: how many versions were added, and the version ids indexed (one per version, no more). */
    const versionsIndexed = async (artifactId: string) => {
      const events = await rt.store.readStream(`artifact-${artifactId}`);
      const added = events.filter((e) => e.type === 'ArtifactVersionAdded').map((e) => (e.data as { version: { id: string } }).version.id);
      const indexed = events.filter((e) => e.type === 'ArtifactVersionIndexed').map((e) => (e.data as { versionId: string }).versionId);
      return { added, indexed };
    };
    const allIndexed = async (ids: string[]) => {
      for (const id of ids) {
        const { added, indexed } = await versionsIndexed(id);
        if (indexed.length < added.length) return undefined;
      }
      return true;
    };
    const caughtUp = async () => {
      const s = await rt.engine.status();
      return s.projections.every((p) => p.lag === 0) ? s : undefined;
    };
    /** The host whose session holds the Kafka relay's leader lock (infra/bus/session-lock.ts on `relay:kafka`), or null. */
    const relayHolder = async (): Promise<string | null> => {
      const key = crypto.createHash('sha256').update('relay:kafka').digest().readInt32BE(0);
      const r = await rt.db.knex.raw(
        `select host(a.client_addr) as address from pg_locks l join pg_stat_activity a on a.pid = l.pid
          where l.locktype = 'advisory' and l.granted and l.objsubid = 1 and l.objid::text::bigint = ? and a.client_addr is not null`,
        [BigInt.asUintN(32, BigInt(key)).toString()],
      );
      const address = (r.rows as { address: string }[])[0]?.address;
      return address ? ([...net.hosts.values()].find((h) => h.address === address)?.name ?? address) : null;
    };

    before(async function () {
      this.timeout(240_000);
      const setupAt = Date.now();
      net = Network.create(HOSTS);
      // Elasticsearch runs as an unprivileged user (it refuses root): it must reach its directory under tmp.
      fs.chmodSync(tmp, 0o711);
      const serversDir = path.join(tmp, 'servers');
      // The two JVMs start while Postgres does; each script waits until its server answers.
      const jvms = Promise.all([startHostKafka(net, 'shared', serversDir), startHostElasticsearch(net, 'shared', serversDir)]);
      jvms.catch(() => undefined);
      postgres = await HostPostgres.create(net, 'shared', tmp);
      await postgres.start();
      [kafka, elasticsearch] = await jvms;
      console.log(`  Kafka ready ${seconds(kafka.startMs)}, Elasticsearch ready ${seconds(elasticsearch.startMs)} after their start on the shared host`);
      databaseUrl = await postgres.createDatabase('ifrs');
      s3 = startHostS3(net, 'shared', serversDir);
      // The in-process runtime below reads its S3 credentials the SDK's way, from this process's environment.
      for (const k of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY'] as const) {
        savedEnv[k] = process.env[k];
        process.env[k] = s3.env[k];
      }
      // The operator's machine (the test process, on the bridge's gateway address) migrates and sets up
      // the caller through the service's own commands, as `ifrs admin ...` does.
      rt = await openRuntime(loadConfig(envFor('operator'), { dataDir: path.join(tmp, 'operator') }), createLogger('silent'), { poolMax: 5 });
      const id = rt.container.get(IdentityCommands);
      const meta = { actor: 'operator:test' };
      const { tenantId } = await id.createTenant({ name: 'Topology Co', datasets: ['naic'], sharing: false }, meta);
      const { userId } = await id.createUser({ tenantId, name: 'Ed Itor', email: 'ed@example.com' }, meta);
      scope = (await id.createScope({ tenantId, name: 'Topology scope' }, meta)).scope;
      await id.grant({ scope, userId, role: 'editor' }, meta);
      apiKey = (await id.createKey({ userId, readOnly: false, permissions: ['serff:view'] }, meta)).apiKey;
      await Promise.all([start('projector-1', 'projector'), start('projector-2', 'projector'), start('indexer', 'indexer')]);
      await Promise.all([start('api-1', 'api'), start('api-2', 'api')]);
      phase('set-up: namespaces, servers and roles', Date.now() - setupAt);
    });

    after(async function () {
      this.timeout(60_000);
      try {
        await Promise.all([...roles.values()].map(stopRole));
        const logs = process.env.IFRS_TOPOLOGY_LOGS;
        if (logs) {
          fs.mkdirSync(logs, { recursive: true });
          everyRole.forEach((p, i) => fs.writeFileSync(path.join(logs, `${String(i).padStart(2, '0')}-${p.host}.log`), p.log()));
        }
        await rt?.close().catch(() => undefined);
        await postgres?.stop().catch(() => undefined);
        for (const server of [s3, elasticsearch, kafka]) {
          try {
            server?.stop();
          } catch {
            /* the namespace's clean-up kills it */
          }
        }
      } finally {
        for (const [k, v] of Object.entries(savedEnv)) {
          if (v === undefined) delete process.env[k];
          else process.env[k] = v;
        }
        net?.destroySync();
        fs.rmSync(tmp, { recursive: true, force: true });
      }
      const table = [
        '| what failed | what the service did | time to recover | writes lost / doubled |',
        '|---|---|---|---|',
        ...figures.map((f) => `| ${f.failure} | ${f.serviceDid} | ${f.recovery} | ${f.lostOrDoubled} |`),
      ].join('\n');
      console.log(`\nHost failures (network-namespace topology, ${os.cpus().length} cores, load average ${os.loadavg()[0].toFixed(1)}):\n${table}\n`);
      if (process.env.IFRS_TOPOLOGY_RESULTS) fs.writeFileSync(process.env.IFRS_TOPOLOGY_RESULTS, `${table}\n`);
    });

    afterEach(function () {
      // A failed scenario shows what each host logged last.
      if (this.currentTest?.state !== 'failed') return;
      for (const p of roles.values()) console.log(`--- ${p.host} (${p.role}) ---\n${p.log().slice(-1500)}`);
      // Whole logs too (the tail above is often all one error repeated), kept after the run's clean-up.
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ifrs-topology-failed-'));
      for (const p of roles.values()) fs.writeFileSync(path.join(dir, `${p.host}.log`), p.log());
      console.log(`--- every host's log: ${dir}`);
    });

    it('rule: every role runs on its own host and talks to the others by address (upload through api-1, read, download, text and search through api-2; originals in S3 on the storage host)', async () => {
      // Each host has its own address; the shared Postgres sees one client address per host.
      const addresses = HOSTS.map((h) => net.host(h).address);
      assert.equal(new Set(addresses).size, HOSTS.length);
      const clients = await rt.db.knex.raw(`select distinct host(client_addr) as a from pg_stat_activity where datname = 'ifrs' and client_addr is not null`);
      const seen = new Set((clients.rows as { a: string }[]).map((r) => r.a));
      for (const h of ['api-1', 'api-2', 'projector-1', 'projector-2', 'indexer']) assert.ok(seen.has(net.host(h).address), `${h} (${net.host(h).address}) connected to Postgres on shared: ${[...seen].join(', ')}`);

      const storageHost = new URL(s3!.env.S3_ENDPOINT).host;
      assert.equal(new URL(s3!.env.S3_ENDPOINT).hostname, net.host('shared').address);
      const begun = await api('api-1').post('/files/uploads', { scope, name: 'probe.txt', mimeType: 'text/plain', size: 1 });
      assert.equal(new URL(begun.body.uploadUrl).host, storageHost, 'the upload address is on the storage host');
      // A small file and one over 256 KiB (which the filesystem store would keep on api-1's disk).
      const small = 'hail damage roof replacement schedule for the topology test';
      const large = `wind mitigation credit table ${'and roof covering details '.repeat(12_000)}`;
      assert.ok(Buffer.byteLength(large) > 256 * 1024);
      for (const [name, text] of [['roof.txt', small], ['wind.txt', large]]) {
        const up = await upload(role('api-1').url!, apiKey, scope, text, { name });
        const seenOn2 = await api('api-2').get(`/artifacts/${up.artifact.id}`);
        assert.equal(seenOn2.status, 200, seenOn2.text);
        assert.equal(seenOn2.body.contentSha256, crypto.createHash('sha256').update(text).digest('hex'));
        // The indexer host read the bytes from the bucket and indexed them (isIndexed read through api-2).
        await until(`${name} indexed on the indexer host`, 30_000, async () => ((await api('api-2').get(`/artifacts/${up.artifact.id}`)).body.isIndexed ? true : undefined));
      }

      // A catalog filing imported by `ifrs import` on api-1's host is downloaded, read and found through api-2.
      const page = 'The wildfire surcharge applies to dwellings in high hazard zones.';
      const content = `${page}\n${'Territory and protection class schedule. '.repeat(8_000)}`;
      const f = catalogFile({ name: 'Wildfire Rule.txt', role: 'rule', mimeType: 'text/plain', content: { base64: Buffer.from(content).toString('base64') }, text: { pages: [page] } });
      const filing = catalogFiling({ sourceReference: '25-990001', description: 'Imported on another host', files: [f] });
      const jsonl = path.join(tmp, 'catalog-one.jsonl');
      fs.writeFileSync(jsonl, JSON.stringify(filing) + '\n');
      const imported = await new Promise<{ code: number | null; out: string }>((resolve) => {
        const child = net.spawn('api-1', process.execPath, [path.join(__dirname, '../../../bin/ifrs.js'), 'import', jsonl, '--wait'], { env: { ...process.env, ...envFor('api-1-cli') } });
        let out = '';
        child.stdout!.on('data', (d) => (out += d));
        child.stderr!.on('data', (d) => (out += d));
        child.on('exit', (code) => resolve({ code, out }));
      });
      assert.equal(imported.code, 0, imported.out);
      const fileId = f.fileId as string;
      const download = await api('api-2').get(`/files/${fileId}/download`);
      assert.equal(download.status, 302, download.text);
      const location = download.headers.get('location')!;
      assert.equal(new URL(location).host, storageHost, 'the download address is on the storage host');
      const got = await fetch(location);
      assert.equal(got.status, 200);
      assert.equal(await got.text(), content, 'the signed address works without the API key and serves the original');
      const chunk = await api('api-2').get(`/files/${fileId}/text`);
      assert.equal(chunk.status, 200, chunk.text);
      assert.match(chunk.body.text, /wildfire surcharge/);
      const found = await until('the imported filing searchable through api-2', 30_000, async () => {
        const r = await api('api-2').post('/insurance/filings/search', { query: 'wildfire surcharge', intent: 'find filings for competitive research' });
        return r.status === 200 && r.body.filings.length ? r : undefined;
      });
      assert.deepEqual(found.body.filings.map((x: { id: string }) => x.id), [filing.id]);

      // The bus is Kafka and search is Elasticsearch, both on `shared`: one projector host holds the relay, and
      // the search documents are in the index there.
      const relay = await relayHolder();
      assert.ok(relay === 'projector-1' || relay === 'projector-2', `the Kafka relay runs on a projector host (held by ${relay})`);
      assert.ok((await checkpointPositions(rt)).get('relay:kafka')! > 0n, 'the relay has published to Kafka');
      const search = await searchIndexFingerprint(elasticsearch!.env.ELASTICSEARCH_URL, rt.config.elasticsearchIndex);
      assert.ok(search.docs > 0, 'the search documents are in Elasticsearch on the shared host');
    });

    const projectorFailures = [
      { how: 'killed' as const, rule: 'kill -9 of the projector host in the middle of a batch' },
      { how: 'cut off' as const, rule: 'the projector host cut off the network in the middle of a batch (Postgres ends its session by TCP keepalive)' },
    ];
    for (const { how, rule } of projectorFailures) {
      it(`rule: ${rule}: the other projector host takes over, nothing lost or applied twice (read models equal a rebuild from the log)`, async function () {
        this.timeout(180_000);
        // A backlog while both projector hosts are frozen, so that a batch is certainly under way when they resume.
        const projectors = ['projector-1', 'projector-2'].map(role);
        for (const p of projectors) p.child.kill('SIGSTOP');
        const records = Array.from({ length: 800 }, (_, i) =>
          catalogFiling({ description: `Backlog filing ${i} about roof age and hail`, files: [catalogFile({ name: `Rule ${i}.pdf`, text: { pages: [`rule ${i} page one`, `rule ${i} hail deductible`] } })] }),
        );
        const jsonl = path.join(tmp, `backlog-${how}.jsonl`);
        fs.writeFileSync(jsonl, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
        const result = await runImport(rt, jsonl, { wait: false });
        assert.deepEqual({ imported: result.imported, failed: result.failed }, { imported: records.length, failed: 0 });
        for (const p of projectors) p.child.kill('SIGCONT');

        // The projector host holding a batch lock is frozen; if its batch is still open (its transaction holds
        // the lock and cannot commit while frozen), it fails now, mid-batch.
        const byAddress = new Map(projectors.map((p) => [net.host(p.host).address, p]));
        const victim = await until('a projector host in the middle of a batch', 60_000, async () => {
          const held = (await heldCheckpointLocks(rt)).filter((l) => byAddress.has(l.address));
          if (!held.length) return undefined;
          const p = byAddress.get(held[0].address)!;
          p.child.kill('SIGSTOP');
          const still = (await heldCheckpointLocks(rt)).filter((l) => l.address === held[0].address);
          if (!still.length) {
            p.child.kill('SIGCONT');
            return undefined;
          }
          return { p, checkpoints: still.map((l) => l.checkpoint) };
        }, 5);
        const before = await checkpointPositions(rt);
        const failedAt = Date.now();
        if (how === 'killed') await killRole(victim.p);
        else {
          net.cut(victim.p.host);
          victim.p.child.kill('SIGCONT');
        }
        const survivor = projectors.find((p) => p !== victim.p)!;

        // Takeover: the survivor moves the checkpoints the failed host's open batch had locked.
        await until('the surviving projector host moves the interrupted checkpoints', 60_000, async () => {
          const now = await checkpointPositions(rt);
          return victim.checkpoints.every((c) => now.get(c)! > before.get(c)!) ? true : undefined;
        }, 20).catch(async (e: Error) => {
          const sessions = await rt.db.knex.raw(`select host(client_addr) as host, state, wait_event_type, wait_event, left(query, 120) as query from pg_stat_activity where datname = 'ifrs' and client_addr is not null`);
          throw new Error(`${e.message}; locked: ${victim.checkpoints.join(', ')} by ${victim.p.host}; sessions: ${JSON.stringify(sessions.rows)}`);
        });
        const takeoverMs = Date.now() - failedAt;
        phase(`projector ${how}: interrupted checkpoints moved by ${survivor.host}`, takeoverMs);
        await until('every read model caught up with the log', 120_000, caughtUp, 100);
        const caughtUpMs = Date.now() - failedAt;
        phase(`projector ${how}: every read model caught up`, caughtUpMs);
        assert.equal(survivor.child.exitCode, null, `${survivor.host} is still running`);
        if (how === 'cut off') {
          // Back on the network, the cut-off host finds its session gone (its batch never committed) and goes on by itself.
          net.restore(victim.p.host);
          await until(`${victim.p.host} connected to Postgres again`, 60_000, async () => {
            const r = await rt.db.knex.raw(`select count(*)::int as n from pg_stat_activity where host(client_addr) = ? and datname = 'ifrs'`, [net.host(victim.p.host).address]);
            return r.rows[0].n > 0 ? true : undefined;
          }, 200);
          assert.equal(victim.p.child.exitCode, null, `${victim.p.host} is still running`);
        }

        // Nothing lost, nothing applied twice: every read model equals a rebuild of it from the log, the
        // search read model in Elasticsearch included.
        const live = await readModelFingerprint(rt);
        const liveSearch = await searchIndexFingerprint(elasticsearch!.env.ELASTICSEARCH_URL, rt.config.elasticsearchIndex);
        const catalogRows = await rt.db.knex('catalog_filings').count<{ count: string }[]>('* as count');
        assert.ok(Number(catalogRows[0].count) >= records.length, `catalog rows: ${catalogRows[0].count}`);
        assert.ok(liveSearch.docs >= records.length, `search documents: ${liveSearch.docs}`);
        await rt.engine.rebuild();
        assert.deepEqual(await readModelFingerprint(rt), live, 'the live read models equal a rebuild from the log');
        assert.deepEqual(await searchIndexFingerprint(elasticsearch!.env.ELASTICSEARCH_URL, rt.config.elasticsearchIndex), liveSearch, 'the live search index equals a rebuild from the log');
        figures.push(
          how === 'killed'
            ? {
                failure: `projector host killed (SIGKILL) mid-batch (${victim.checkpoints.join(', ')} locked), ${records.length}-filing backlog`,
                serviceDid: 'its connection closed, so Postgres rolled its batch back at once; the other projector host (already running, competing per batch) applied it',
                recovery: `takeover ${seconds(takeoverMs)}; backlog projected ${seconds(caughtUpMs)} after the kill`,
                lostOrDoubled: '0 / 0 (every read model, the Elasticsearch index included, equals a rebuild from the log)',
              }
            : {
                failure: `projector host's link cut mid-batch (${victim.checkpoints.join(', ')} locked), ${records.length}-filing backlog`,
                serviceDid: `its batch lock stayed held until Postgres ended the silent session (TCP keepalive: ${KEEPALIVE.idle} s idle, ${KEEPALIVE.count} probes ${KEEPALIVE.interval} s apart; tcp_user_timeout ${KEEPALIVE.userTimeoutMs / 1000} s); then the other projector host applied it; reconnected, the cut-off host went on by itself`,
                recovery: `takeover ${seconds(takeoverMs)}; backlog projected ${seconds(caughtUpMs)} after the cut`,
                lostOrDoubled: '0 / 0 (every read model, the Elasticsearch index included, equals a rebuild from the log)',
              },
        );
        // The operator restarts a killed host: the topology has two projectors again.
        if (how === 'killed') await start(victim.p.host, 'projector');
      });
    }

    const restarts = [
      { signal: 'SIGINT' as const, what: 'restarted (fast shutdown, as a managed restart)' },
      { signal: 'SIGQUIT' as const, what: 'crashed and restarted (immediate shutdown: recovery from the WAL)' },
    ];
    for (const { signal, what } of restarts) {
      it(`rule: Postgres on the shared host ${what} under writes: every role recovers without a hand, no acknowledged write lost or doubled`, async function () {
        this.timeout(180_000);
        // Uploads through both API hosts, one after another, all through the outage and after it.
        const acknowledged: string[] = [];
        const failures: Record<string, number> = {};
        let writing = true;
        const writer = (async () => {
          for (let i = 0; writing; i++) {
            const h = i % 2 ? 'api-2' : 'api-1';
            try {
              acknowledged.push((await upload(role(h).url!, apiKey, scope, `written around the restart (${signal}) #${i}`, { name: `restart-${signal}-${i}.txt` })).artifact.id);
            } catch (e) {
              // `upload` says which step failed and its status ("begin upload: 503 ..."); anything else is a network error.
              const why = /^(\w+)[^:]*: (\d{3})/.exec((e as Error).message);
              const key = why ? `${why[2]} at ${why[1]}` : (e as Error).message.slice(0, 40);
              failures[key] = (failures[key] ?? 0) + 1;
              await sleep(50);
            }
          }
        })();
        const outage = async () => {
          await until('writes before the restart', 30_000, async () => (acknowledged.length >= 2 ? true : undefined), 20);
          const stoppedAt = Date.now();
          await postgres.stop(signal);
          // While it is down, the API hosts answer a read at once, with 503 (not a hang, not a crash). (Not
          // /users/me: an API key seen recently is answered from the process's key cache.)
          const during = await Promise.all(
            (['api-1', 'api-2'] as const).map((h) => fetch(`${role(h).url}/artifacts/${acknowledged[0]}`, { headers: { Authorization: `Bearer ${apiKey}` }, signal: AbortSignal.timeout(10_000) })),
          );
          assert.deepEqual(during.map((r) => r.status), [503, 503]);
          await sleep(1000);
          const ackedBeforeUp = acknowledged.length;
          await postgres.start();
          const upAt = Date.now();
          const apiMs: number[] = [];
          await Promise.all(
            (['api-1', 'api-2'] as const).map(async (h) => {
              await until(`${h} answers again`, 60_000, async () => ((await api(h).get(`/artifacts/${acknowledged[0]}`)).status === 200 ? true : undefined), 50);
              apiMs.push(Date.now() - upAt);
            }),
          );
          // A write acknowledged after the restart needs every write-path role: its answer waits for the projector hosts.
          await until('a write acknowledged after the restart', 60_000, async () => (acknowledged.length > ackedBeforeUp ? true : undefined), 20);
          const writeMs = Date.now() - upAt;
          await until('two more writes after the restart', 60_000, async () => (acknowledged.length >= ackedBeforeUp + 3 ? true : undefined), 20);
          return { upAt, downMs: upAt - stoppedAt, apiMs: Math.max(...apiMs), writeMs };
        };
        let t: Awaited<ReturnType<typeof outage>>;
        try {
          t = await outage();
        } finally {
          // Also when an assertion failed: the writer stops and the next scenario finds Postgres up.
          writing = false;
          await writer;
          if (!postgres.running) await postgres.start();
        }
        await until('the projectors caught up after the restart', 60_000, caughtUp);
        const projectMs = Date.now() - t.upAt;
        await until('every acknowledged upload indexed after the restart', 60_000, () => allIndexed(acknowledged));
        const indexMs = Date.now() - t.upAt;
        phase(`Postgres ${signal}: down`, t.downMs);
        phase(`Postgres ${signal}: API hosts answering / first write / projectors / indexer, after it was up`, t.apiMs);
        console.log(`      · … ${seconds(t.writeMs)} / ${seconds(projectMs)} / ${seconds(indexMs)}`);
        for (const p of roles.values()) assert.equal(p.child.exitCode, null, `${p.host} (${p.role}) still runs: ${p.log().slice(-1500)}`);
        // Acknowledged means kept, once: one version in the log, readable through either API host, indexed once.
        for (const id of acknowledged) {
          const { added, indexed } = await versionsIndexed(id);
          assert.equal(added.length, 1, `artifact ${id}: one version`);
          assert.deepEqual(indexed, added, `artifact ${id}: indexed once`);
        }
        for (const id of [acknowledged[0], acknowledged[acknowledged.length - 1]]) assert.equal((await api('api-2').get(`/artifacts/${id}`)).status, 200);
        // A failed answer is not a write: no upload the writer saw fail exists (had one, a retry would double it).
        const written = await rt.db.knex('working_artifacts').where('name', 'like', `restart-${signal}-%`).pluck('id');
        assert.deepEqual([...written].sort(), [...acknowledged].sort(), 'exactly the acknowledged uploads exist');
        const failedText = Object.entries(failures).map(([k, n]) => `${n}× ${k}`).join(', ');
        figures.push({
          failure: `Postgres on the shared host ${what}, down ${seconds(t.downMs)}, uploads running through both API hosts`,
          serviceDid: `requests during the outage answered at once (uploads failed: ${failedText}; not retried, and none of them was written); every role reconnected by itself, no process restarted`,
          recovery: `API hosts ${seconds(t.apiMs)}, first acknowledged write ${seconds(t.writeMs)}, projectors caught up ${seconds(projectMs)}, indexer ${seconds(indexMs)} after Postgres was up`,
          lostOrDoubled: `0 / 0 of ${acknowledged.length} acknowledged uploads`,
        });
      });
    }

    it('rule: kill -9 of the projector host holding the Kafka relay under uploads: the other projector host\'s relay takes over, every upload is indexed once', async function () {
      this.timeout(180_000);
      const began = Date.now();
      // Two projector hosts, also when an earlier scenario failed before its restart.
      for (const h of ['projector-1', 'projector-2']) if (roles.get(h)?.child.exitCode !== null || roles.get(h)?.child.signalCode !== null) await start(h, 'projector');
      // The scenario starts from a settled topology: one relay holds the lock and has relayed the whole log
      // (after the Postgres restarts before it, a relay must have found out that its old session was gone).
      const holder = await until('a projector host holding the Kafka relay', 30_000, async () => (await relayHolder()) ?? undefined);
      await until('the relay caught up with the log before the kill', 30_000, async () => {
        const head = await rt.store.head();
        return comparePositions(await checkpointPosition(rt, 'relay:kafka'), head) >= 0 ? true : undefined;
      });
      phase('relay scenario: settled', Date.now() - began);
      const victim = role(holder);
      const survivor = role(holder === 'projector-1' ? 'projector-2' : 'projector-1');
      const ids: string[] = [];
      let writing = true;
      const writer = (async () => {
        for (let i = 0; writing; i++) ids.push((await upload(role(i % 2 ? 'api-2' : 'api-1').url!, apiKey, scope, `relay failover file ${i} about hail`, { name: `relay-${i}.txt` })).artifact.id);
      })();
      let takeoverMs: number;
      let relayedMs: number;
      let indexedMs: number;
      /** What the relay was doing, for a failure message: the lock's holder now and the survivor's relay log lines. */
      const relayState = async () =>
        `lock held by ${await relayHolder().catch((e: Error) => e.message)}; ${survivor.host}'s relay log: ${survivor
          .log()
          .split('\n')
          .filter((l) => /relay|kafkajs/i.test(l))
          .slice(-8)
          .join('\n')}`;
      try {
        try {
          await until('uploads before the kill', 30_000, async () => (ids.length >= 3 ? true : undefined), 20);
          const relayedBefore = (await checkpointPositions(rt)).get('relay:kafka')!;
          const killedAt = Date.now();
          await killRole(victim);
          await until(`the relay lock taken over by ${survivor.host}`, 30_000, async () => ((await relayHolder()) === survivor.host ? true : undefined), 50).catch(async (e: Error) => {
            throw new Error(`${e.message}; ${await relayState()}`);
          });
          takeoverMs = Date.now() - killedAt;
          phase('relay scenario: lock taken over after the kill', takeoverMs);
          await until('the relay checkpoint moved by the survivor', 30_000, async () => ((await checkpointPositions(rt)).get('relay:kafka')! > relayedBefore ? true : undefined), 50).catch(async (e: Error) => {
            throw new Error(`${e.message}; ${await relayState()}`);
          });
          relayedMs = Date.now() - killedAt;
          phase('relay scenario: relay checkpoint moving after the kill', relayedMs);
          const afterKill = ids.length;
          await until('uploads after the takeover', 30_000, async () => (ids.length >= afterKill + 3 ? true : undefined), 20);
        } finally {
          writing = false;
          await writer;
        }
        const lastAt = Date.now();
        await until('every upload around the relay failover indexed', 60_000, () => allIndexed(ids), 200).catch(async (e: Error) => {
          throw new Error(`${e.message}; ${await relayState()}`);
        });
        indexedMs = Date.now() - lastAt;
        phase('relay scenario: every upload indexed after the writes ended', indexedMs);
      } finally {
        // The operator restarts the killed host, also when an assertion failed: the next scenarios find two
        // projectors (and a standby relay) again.
        if (victim.child.exitCode !== null || victim.child.signalCode !== null) await start(victim.host, 'projector');
      }
      for (const id of ids) {
        const { added, indexed } = await versionsIndexed(id);
        assert.equal(added.length, 1, `artifact ${id}: one version`);
        assert.deepEqual(indexed, added, `artifact ${id}: indexed once (a relay resend is dropped by the consumer)`);
      }
      assert.equal(survivor.child.exitCode, null, `${survivor.host} is still running`);
      figures.push({
        failure: `projector host holding the Kafka relay killed (SIGKILL) during ${ids.length} uploads`,
        serviceDid: `its relay lock (a session advisory lock) freed with its connection; the relay standing by on ${survivor.host} took it and went on from the relay checkpoint (a resend of what the dead relay published after it is dropped by the indexer's processed-event ids); uploads kept succeeding`,
        recovery: `relay lock taken ${seconds(takeoverMs!)} and relay checkpoint moving ${seconds(relayedMs!)} after the kill; every upload indexed ${seconds(indexedMs!)} after the writes ended`,
        lostOrDoubled: `0 / 0 of ${ids.length} uploads (one ArtifactVersionIndexed each)`,
      });
    });

    it('rule: the indexer host cut off the network mid-upload, then reconnected: each version is indexed once', async function () {
      this.timeout(180_000);
      const ids: string[] = [];
      const uploadSome = async (n: number, from: number) => {
        for (let i = from; i < from + n; i++) ids.push((await upload(role(i % 2 ? 'api-2' : 'api-1').url!, apiKey, scope, `cut link file ${i} about hail`, { name: `cut-${i}.txt` })).artifact.id);
      };
      const began = Date.now();
      await uploadSome(3, 0);
      // The indexer works before the cut (so what follows measures the cut, not a relay or consumer still settling).
      await until('the uploads before the cut indexed', 30_000, () => allIndexed(ids), 100);
      phase('indexer scenario: indexing before the cut', Date.now() - began);
      net.cut('indexer');
      const cutAt = Date.now();
      let cutMs: number;
      try {
        await uploadSome(6, 3);
        // A new version of an artifact uploaded while the indexer is away.
        await upload(role('api-1').url!, apiKey, scope, 'cut link file 0, second version', { name: 'cut-0.txt', artifactId: ids[0] });
        await sleep(Math.max(0, 5000 - (Date.now() - cutAt)));
      } finally {
        cutMs = Date.now() - cutAt;
        net.restore('indexer');
      }
      const restoredAt = Date.now();
      await until('every version uploaded around the cut indexed', 60_000, () => allIndexed(ids), 200).catch((e: Error) => {
        const lines = role('indexer').log().split('\n').filter((l) => /error|warn|kafkajs/i.test(l));
        throw new Error(`${e.message}; cut ${seconds(cutMs)}; the indexer's last errors: ${lines.slice(-8).join('\n')}`);
      });
      const recoverMs = Date.now() - restoredAt;
      phase('indexer scenario: cut', cutMs);
      phase('indexer scenario: every version indexed after the link came back', recoverMs);
      let versions = 0;
      for (const id of ids) {
        const { added, indexed } = await versionsIndexed(id);
        versions += added.length;
        assert.deepEqual([...indexed].sort(), [...added].sort(), `artifact ${id}: one ArtifactVersionIndexed per version, no more`);
      }
      assert.equal(versions, ids.length + 1);
      assert.equal(role('indexer').child.exitCode, null, 'the indexer process survived the cut');
      figures.push({
        failure: `indexer host's link cut (ip link set … down) for ${seconds(cutMs)} during ${versions} uploads`,
        serviceDid: 'uploads kept succeeding (indexing is scheduled, not awaited); the indexer process kept running and caught up by itself once the link was back',
        recovery: `all ${versions} versions indexed ${seconds(recoverMs)} after the link came back`,
        lostOrDoubled: `0 / 0 (one ArtifactVersionIndexed per version)`,
      });
    });

    it('rule: an API host killed in the middle of a command: a retry on the other API host with the same Idempotency-Key gets the first answer, and the log holds the command once', async function () {
      this.timeout(180_000);
      const listings = await seedListings(rt, scope);
      const description = `Filing written while its API host died ${crypto.randomUUID()}`;
      const body = filingBody(scope, listings, { description });
      const key = crypto.randomUUID();
      const created = async () =>
        (await rt.db.knex.raw(`select data->>'filingId' as id from es_events where type = 'ManagedFilingCreated' and data->'fields'->>'description' = ?`, [description])).rows.map((r: { id: string }) => r.id) as string[];
      // The projector hosts frozen: api-1 appends the command, then waits for its read model before answering,
      // which is where it dies.
      const projectors = ['projector-1', 'projector-2'].map(role);
      for (const p of projectors) p.child.kill('SIGSTOP');
      let first: Promise<unknown>;
      let filings: string[];
      try {
        first = api('api-1').post('/managed-filings', body, { 'Idempotency-Key': key }).then(
          (r) => ({ answered: r.status }),
          (e: Error) => ({ failed: e.message }),
        );
        filings = await until('the command appended by api-1', 10_000, async () => {
          const s = await created();
          return s.length ? s : undefined;
        }, 20);
        await killRole(role('api-1'));
      } finally {
        for (const p of projectors) p.child.kill('SIGCONT');
      }
      const killedAt = Date.now();
      assert.ok('failed' in ((await first) as object), `api-1 died before it answered: ${JSON.stringify(await first)}`);
      // The client retries on the other API host, with the same key and body, as long as it is told to wait.
      const retried = await until('a final answer to the retry on api-2', 90_000, async () => {
        const r = await api('api-2').post('/managed-filings', body, { 'Idempotency-Key': key });
        return r.status === 409 && r.body?.code === 'idempotency_key_in_use' ? undefined : r;
      }, 500);
      const answeredMs = Date.now() - killedAt;
      assert.equal(retried.status, 201, retried.text);
      assert.deepEqual(await created(), filings, 'the log holds the command once');
      assert.equal(retried.body.id, filings[0], 'the answer is the first write');
      // api-1 comes back (the operator restarts the host).
      await start('api-1', 'api');
      figures.push({
        failure: 'API host killed (SIGKILL) after appending a create, before answering',
        serviceDid: `the client's retry on the other API host with the same Idempotency-Key was answered with the first write (status ${retried.status})`,
        recovery: `${seconds(answeredMs)} from the kill to the retry's answer`,
        lostOrDoubled: '0 / 0 (the command once in the log)',
      });
    });
  });
}
