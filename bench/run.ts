// `npm run bench [-- --quick] [scenario ...]`: runs the scenarios, prints a table, saves bench/results/.
import { execSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BenchRow, BenchScenario } from './types';
import { machineGaugeMs } from './support/machine-gauge';

function machine() {
  const cpus = os.cpus();
  let commit = 'unknown';
  try {
    commit = execSync('git rev-parse --short HEAD', { cwd: __dirname }).toString().trim();
  } catch {
    /* not a checkout */
  }
  return { cpu: cpus[0]?.model ?? 'unknown', cores: cpus.length, memoryGiB: Math.round(os.totalmem() / 2 ** 30), node: process.version, platform: `${os.platform()} ${os.release()}`, commit, date: new Date().toISOString() };
}

/** ">= 4000", "<= 20", "< 300": true when met, null when no goal. */
export function goalMet(row: BenchRow): boolean | null {
  const m = row.goal ? /^\s*(>=|<=|>|<)\s*([\d.]+)/.exec(row.goal) : null;
  if (!m) return null;
  const g = Number(m[2]);
  return m[1] === '>=' ? row.value >= g : m[1] === '<=' ? row.value <= g : m[1] === '>' ? row.value > g : row.value < g;
}

function fmt(v: number): string {
  return Math.abs(v) >= 100 ? Math.round(v).toLocaleString('en-US') : String(Math.round(v * 100) / 100);
}

function table(rows: BenchRow[]): string {
  const head = ['scenario', 'metric', 'value', 'unit', 'goal', 'met', 'note'];
  const body = rows.map((r) => {
    const met = goalMet(r);
    return [r.scenario, r.metric, fmt(r.value), r.unit, r.goal ?? '', met === null ? '' : met ? 'yes' : 'NO', r.note ?? ''];
  });
  return [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...body.map((c) => `| ${c.join(' | ')} |`)].join('\n');
}

/** A scenario file run by itself (runStandalone) in a child node with `flags`: its rows come back as JSON on stdout. */
function runInChild(file: string, flags: readonly string[], quick: boolean, log: (m: string) => void): Promise<BenchRow[]> {
  return new Promise((resolve, reject) => {
    log(`(in a child node with ${flags.join(' ')})`);
    const child = spawn(process.execPath, [...flags, '-r', 'tsx/cjs', file, ...(quick ? ['--quick'] : [])], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let pending = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => {
      const lines = (pending + d).split('\n');
      pending = lines.pop()!;
      for (const l of lines) log(l);
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (pending) log(pending);
      if (code !== 0) return reject(new Error(`the scenario's child node exited with ${code}`));
      try {
        resolve(JSON.parse(out) as BenchRow[]);
      } catch (e) {
        reject(new Error(`the scenario's child node printed no rows: ${(e as Error).message}`));
      }
    });
  });
}

async function main() {
  const args = process.argv.slice(2);
  const quick = args.includes('--quick');
  const wanted = args.filter((a) => !a.startsWith('--'));
  const dir = path.join(__dirname, 'scenarios');
  const scenarios: (BenchScenario & { file: string })[] = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.ts'))
    .sort()
    .map((f) => ({ ...(require(path.join(dir, f)) as { scenario: BenchScenario }).scenario, file: path.join(dir, f) }))
    .filter((s) => !wanted.length || wanted.includes(s.name));
  const facts = machine();
  process.stderr.write(`bench on ${facts.cpu} x${facts.cores}, ${facts.memoryGiB} GiB, node ${facts.node}, commit ${facts.commit}${quick ? ' (quick)' : ''}\n`);
  const rows: BenchRow[] = [];
  for (const s of scenarios) {
    process.stderr.write(`== ${s.name}\n`);
    const gaugeBefore = machineGaugeMs();
    const started = Date.now();
    try {
      const log = (m: string) => process.stderr.write(`  ${m}\n`);
      const flags = (s.nodeFlags ?? []).filter((f) => !process.execArgv.includes(f));
      rows.push(...(flags.length ? await runInChild(s.file, flags, quick, log) : await s.run({ quick, log })));
    } catch (e) {
      rows.push({ scenario: s.name, metric: 'error', value: 0, unit: '', note: String((e as Error).message ?? e).slice(0, 200) });
    }
    process.stderr.write(`   ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
    const gaugeAfter = machineGaugeMs();
    rows.push({
      scenario: s.name,
      metric: 'machine gauge before / after (fixed workload, lower is faster)',
      value: Math.max(gaugeBefore, gaugeAfter),
      unit: 'ms',
      note: `${Math.round(gaugeBefore)} / ${Math.round(gaugeAfter)} ms (bench/support/machine-gauge.ts); runs compare only where their gauges agree`,
    });
  }
  const md = `# Benchmark results\n\n${Object.entries(facts).map(([k, v]) => `- ${k}: ${v}`).join('\n')}${quick ? '\n- mode: quick (small data; not comparable with full runs)' : ''}\n\n${table(rows)}\n`;
  process.stdout.write(`\n${md}\n`);
  const out = path.join(__dirname, 'results');
  fs.mkdirSync(out, { recursive: true });
  const stamp = `${facts.date.slice(0, 19).replace(/[:T]/g, '-')}-${facts.commit}${quick ? '-quick' : ''}`;
  fs.writeFileSync(path.join(out, `${stamp}.json`), JSON.stringify({ machine: facts, quick, rows }, null, 2));
  fs.writeFileSync(path.join(out, `${stamp}.md`), md);
  fs.writeFileSync(path.join(out, quick ? 'latest-quick.md' : 'latest.md'), md);
  process.stderr.write(`saved bench/results/${stamp}.{json,md}\n`);
}

main().then(
  () => process.exit(0),
  (e) => {
    process.stderr.write(`${e?.stack ?? e}\n`);
    process.exit(1);
  },
);
