import type { BenchScenario } from '../types';
import { benchDatabase, tmpDir } from '../support/postgres';
import { BIN, benchRounds, load, loadRotating, medianRun, roundsNote, rssMb, startServerProcess } from '../support/load';
import { seedCommandsWorkspace, seedItemPatches } from '../support/working-filings-seed';
import { createLogger } from '../../src/util/logger';
import fs from 'node:fs';

/**
 * CPU milliseconds a process has used so far (Linux /proc, user + system), NaN elsewhere. Per command it
 * compares runs on a shared machine better than throughput, which follows whatever else is running.
 */
function cpuMs(pid: number): number {
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(f[11]) + Number(f[12])) * 10;
  } catch {
    return NaN;
  }
}

/** POST /managed-filings and item PATCH at 16 connections, including the read-your-writes wait. */
export const scenario: BenchScenario = {
  name: 'working-filings-commands',
  async run(ctx) {
    const seconds = ctx.quick ? 3 : 10;
    const rounds = benchRounds(ctx.quick);
    const connections = 16;
    const url = await benchDatabase();
    const dataDir = tmpDir('ifrs-bench-wf-');
    const { apiKey, scope, createBody: body } = await seedCommandsWorkspace(url, dataDir, createLogger('warn'));
    const serve = await startServerProcess(BIN, ['serve', '--port', '0', '--data-dir', dataDir], { DATABASE_URL: url, LOG_LEVEL: 'warn' });
    const headers = { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' };
    const pid = serve.child.pid!;
    await load(`${serve.url}/managed-filings`, { connections, seconds: 1, headers, method: 'POST', body });
    const createCpu0 = cpuMs(pid);
    const create = await medianRun(rounds, () => load(`${serve.url}/managed-filings`, { connections, seconds, headers, method: 'POST', body }));
    const createCpu = (cpuMs(pid) - createCpu0) / create.totalRequests;
    ctx.log(`POST /managed-filings: ${Math.round(create.rps)}/s p99 ${create.p99} ms (non-2xx ${create.non2xx}), API CPU ${createCpu.toFixed(2)} ms per command`);

    const patches = await seedItemPatches(serve.url, apiKey, scope, body);
    const patchCpu0 = cpuMs(pid);
    const patch = await medianRun(rounds, () => loadRotating(serve.url, patches, { connections, seconds, headers, method: 'PATCH' }));
    const patchCpu = (cpuMs(pid) - patchCpu0) / patch.totalRequests;
    ctx.log(`PATCH item: ${Math.round(patch.rps)}/s p99 ${patch.p99} ms (non-2xx ${patch.non2xx}), API CPU ${patchCpu.toFixed(2)} ms per command; ${patch.generator}, ${Math.round(patch.generatorCpuUs)} us of its CPU per command`);
    // The same load with the in-process generator, to compare with result files from before wrk.
    const patchAutocannon = await loadRotating(serve.url, patches, { connections, seconds, headers, method: 'PATCH', generator: 'autocannon' });
    ctx.log(`PATCH item, ${patchAutocannon.generator}: ${Math.round(patchAutocannon.rps)}/s, ${Math.round(patchAutocannon.generatorCpuUs)} us of its CPU per command`);
    const rss = rssMb(serve.child.pid!);
    await serve.stop();
    return [
      { scenario: this.name, metric: 'POST /managed-filings, 16 connections', value: create.rps, unit: 'commands/s', goal: '>= 1500', note: [`non-2xx ${create.non2xx}; ${create.generator}`, roundsNote(create, 'commands/s')].filter(Boolean).join('; ') },
      { scenario: this.name, metric: 'POST /managed-filings p99', value: create.p99, unit: 'ms', goal: '<= 50', note: rounds > 1 ? 'of the median run' : undefined },
      { scenario: this.name, metric: 'PATCH item (16 filings), 16 connections', value: patch.rps, unit: 'commands/s', goal: '>= 1500', note: [`non-2xx ${patch.non2xx}; ${patch.generator}, ${Math.round(patch.generatorCpuUs)} us of its CPU per command`, roundsNote(patch, 'commands/s')].filter(Boolean).join('; ') },
      { scenario: this.name, metric: 'PATCH item p99', value: patch.p99, unit: 'ms', goal: '<= 50', note: rounds > 1 ? `${patch.generator}, of the median run` : patch.generator },
      { scenario: this.name, metric: 'API process CPU per POST', value: createCpu, unit: 'ms' },
      { scenario: this.name, metric: 'API process CPU per PATCH', value: patchCpu, unit: 'ms' },
      { scenario: this.name, metric: 'API process RSS after load', value: rss, unit: 'MB' },
      { scenario: this.name, metric: 'PATCH item, autocannon cross-check', value: patchAutocannon.rps, unit: 'commands/s', note: `${patchAutocannon.generator}, ${Math.round(patchAutocannon.generatorCpuUs)} us of its CPU per command on the cores the API uses; p99 ${patchAutocannon.p99} ms, non-2xx ${patchAutocannon.non2xx}` },
    ];
  },
};
