import type { BenchScenario } from '../types';
import { benchDatabase, tmpDir } from '../support/postgres';
import { BIN, SERVE_LOG_LEVEL, load, rssMb, startServerProcess, type LoadResult } from '../support/load';
import { pacedLoadInProcess } from '../support/paced-load';
import { h2loadInstalled, h2loadPaced } from '../support/h2load';
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/util/logger';
import { openRuntime } from '../../src/runtime';
import { IdentityCommands } from '../../commands/identity/identity-commands';
import path from 'node:path';

/** GET /users/me with authentication against raw node:http and Express hello-world baselines, measured in the same run. */
export const scenario: BenchScenario = {
  name: 'http-users-me',
  async run(ctx) {
    const seconds = ctx.quick ? 3 : 10;
    const connections = 16;
    const url = await benchDatabase();
    const dataDir = tmpDir('ifrs-bench-data-');
    const rt = await openRuntime(loadConfig({}, { databaseUrl: url, dataDir }), createLogger('warn'));
    const id = rt.container.get(IdentityCommands);
    const { tenantId } = await id.createTenant({ name: 'Bench', datasets: ['naic'], sharing: false }, { actor: 'bench' });
    const { userId } = await id.createUser({ tenantId, name: 'Bench User', email: 'bench@example.com' }, { actor: 'bench' });
    const { apiKey } = await id.createKey({ userId, readOnly: false, permissions: [] }, { actor: 'bench' });
    await rt.close();

    const results: Record<string, LoadResult> = {};
    for (const [name, script, target] of [
      ['node:http hello', path.join(__dirname, '../servers/hello-node.ts'), ''],
      ['express hello', path.join(__dirname, '../servers/hello-express.ts'), ''],
    ] as const) {
      const s = await startServerProcess(script);
      await load(s.url + target, { connections, seconds: 1 });
      results[name] = await load(s.url + target, { connections, seconds });
      await s.stop();
      ctx.log(`${name}: ${Math.round(results[name].rps)} req/s`);
    }
    const serve = await startServerProcess(BIN, ['serve', '--port', '0', '--data-dir', dataDir], { DATABASE_URL: url, LOG_LEVEL: SERVE_LOG_LEVEL });
    const headers = { Authorization: `Bearer ${apiKey}` };
    await load(`${serve.url}/users/me`, { connections, seconds: 1, headers });
    const me = await load(`${serve.url}/users/me`, { connections, seconds, headers });
    // The same run with the in-process generator, to compare with result files from before wrk.
    const meAutocannon = await load(`${serve.url}/users/me`, { connections, seconds, headers, generator: 'autocannon' });
    const rss = rssMb(serve.child.pid!);
    // p99 at a load the service should sustain comfortably: half of the Express baseline's saturation.
    const rate = Math.round(results['express hello'].rps / 2);
    // Requests spread evenly over each second (see pacedLoad); autocannon's rate limit sends in bursts.
    const paced = await pacedLoadInProcess(`${serve.url}/users/me`, { connections, seconds, headers, rate, warmupSeconds: 1 });
    // A native cross-check of the server's own time, when nghttp2-client is installed (see bench/README.md).
    const native = h2loadInstalled() ? await h2loadPaced(`${serve.url}/users/me`, { connections, seconds, headers, rate, warmupSeconds: 1 }) : null;
    const bursts = await load(`${serve.url}/users/me`, { connections, seconds, headers, rate });
    await serve.stop();
    ctx.log(`users/me: ${Math.round(me.rps)} req/s, p99 ${me.p99} ms (${me.generator}, ${Math.round(me.generatorCpuUs)} us of its CPU/request; ${meAutocannon.generator}: ${Math.round(meAutocannon.rps)} req/s, ${Math.round(meAutocannon.generatorCpuUs)} us/request); at ${rate} req/s p99 ${paced.p99} ms (autocannon's per-second bursts: ${bursts.p99} ms)`);
    const ex = results['express hello'].rps;
    const raw = results['node:http hello'].rps;
    return [
      { scenario: this.name, metric: 'node:http hello-world', value: raw, unit: 'req/s', note: `p99 ${results['node:http hello'].p99} ms, ${connections} connections, ${results['node:http hello'].generator}` },
      { scenario: this.name, metric: 'express hello-world', value: ex, unit: 'req/s', note: `p99 ${results['express hello'].p99} ms; ${Math.round((ex / raw) * 100)}% of node:http; ${results['express hello'].generator}` },
      { scenario: this.name, metric: 'GET /users/me (auth) at saturation', value: me.rps, unit: 'req/s', note: `errors ${me.errors}, non-2xx ${me.non2xx}; ${me.generator}, ${Math.round(me.generatorCpuUs)} us of its CPU per request` },
      {
        scenario: this.name,
        metric: 'GET /users/me (auth) at saturation, autocannon cross-check',
        value: meAutocannon.rps,
        unit: 'req/s',
        note: `${meAutocannon.generator}, ${Math.round(meAutocannon.generatorCpuUs)} us of its CPU per request on the cores the API uses; p99 ${meAutocannon.p99} ms, errors ${meAutocannon.errors}, non-2xx ${meAutocannon.non2xx}`,
      },
      { scenario: this.name, metric: '/users/me vs express hello-world', value: (me.rps / ex) * 100, unit: '%', goal: '>= 70' },
      { scenario: this.name, metric: '/users/me vs node:http hello-world', value: (me.rps / raw) * 100, unit: '%' },
      { scenario: this.name, metric: 'GET /users/me p99 at saturation', value: me.p99, unit: 'ms', note: me.generator },
      {
        scenario: this.name,
        metric: `GET /users/me p99 at ${rate} req/s`,
        value: paced.p99,
        unit: 'ms',
        goal: '< 10',
        note: `evenly paced from a separate node process after 1 s of warm-up, p50 ${paced.p50} ms, errors ${paced.errors}, non-2xx ${paced.non2xx}; the generator's own lateness (p99 ${paced.lateP99} ms) not counted`,
      },
      native
        ? {
            scenario: this.name,
            metric: `GET /users/me p99 at ${rate} req/s, h2load`,
            value: native.p99,
            unit: 'ms',
            note: `nghttp2's h2load, native; from each write, so blind to requests held back by a slow answer; p50 ${native.p50} ms, ${Math.round(native.rps)} req/s, errors ${native.errors}, non-2xx ${native.non2xx}`,
          }
        : { scenario: this.name, metric: `GET /users/me p99 at ${rate} req/s, h2load`, value: NaN, unit: 'ms', note: 'h2load not installed (apt-get install -y nghttp2-client): no native cross-check' },
      { scenario: this.name, metric: `GET /users/me p99 at ${rate} req/s in autocannon's 1 s bursts`, value: bursts.p99, unit: 'ms', note: 'each connection sends back to back until its share of the second is used' },
      { scenario: this.name, metric: 'API process RSS after load', value: rss, unit: 'MB' },
    ];
  },
};
