// Profiling aid (not a scenario): `node -r tsx/cjs bench/profile-serve.ts serve --port N --data-dir DIR`
// runs `ifrs serve` in this process. The first SIGUSR2 starts a profile, the second writes it to
// PROFILE_OUT (default /tmp/ifrs-serve) and prints a summary on stderr; so the warm-up and the set-up stay
// out of it. PROFILE selects what is recorded:
//   alloc      every allocation, sampled (what the young generation fills with, per call site)
//   survivors  allocations that outlived a scavenge (promoted or pretenured: what makes scavenges long)
//   cpu        a CPU profile (.cpuprofile, open in Chrome DevTools)
import fs from 'node:fs';
import inspector from 'node:inspector';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface SamplingNode {
  callFrame: CallFrame;
  selfSize: number;
  children: SamplingNode[];
}

const mode = process.env.PROFILE ?? 'alloc';
const out = process.env.PROFILE_OUT ?? '/tmp/ifrs-serve';
const session = new inspector.Session();
session.connect();
const post = <T>(method: string, params?: object) =>
  new Promise<T>((resolve, reject) => session.post(method, params ?? {}, (err, res) => (err ? reject(err) : resolve(res as T))));

const where = (f: CallFrame) => `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\/(node_modules|wt-[^/]+)\//, '$1/')}:${f.lineNumber + 1}`;

/** Bytes per allocating frame, and per the nearest frame of our own code above it (what to change). */
function summarize(root: SamplingNode): string {
  const self = new Map<string, number>();
  const ours = new Map<string, number>();
  let total = 0;
  const walk = (n: SamplingNode, stack: CallFrame[]) => {
    const s = [...stack, n.callFrame];
    if (n.selfSize) {
      total += n.selfSize;
      const k = where(n.callFrame);
      self.set(k, (self.get(k) ?? 0) + n.selfSize);
      const own = [...s].reverse().find((f) => f.url.includes('/wt-') && !f.url.includes('node_modules'));
      const chain = s.slice(-4).map((f) => f.functionName || '(anon)').join(' < ');
      const ok = own ? `${where(own)} [${chain}]` : `(no own frame) [${chain}]`;
      ours.set(ok, (ours.get(ok) ?? 0) + n.selfSize);
    }
    for (const c of n.children) walk(c, s);
  };
  walk(root, []);
  const top = (m: Map<string, number>) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 30)
      .map(([k, v]) => `${(v / 1024).toFixed(0).padStart(8)} KB ${((v / total) * 100).toFixed(1).padStart(5)}%  ${k}`)
      .join('\n');
  return `total sampled ${(total / 1024 / 1024).toFixed(1)} MB\n-- by allocating frame\n${top(self)}\n-- by stack tail\n${top(ours)}\n`;
}

let running = false;
process.on('SIGUSR2', () => {
  void (async () => {
    if (!running) {
      running = true;
      if (mode === 'cpu') {
        await post('Profiler.enable');
        await post('Profiler.start');
      } else {
        await post('HeapProfiler.enable');
        await post('HeapProfiler.startSampling', {
          samplingInterval: 4096,
          includeObjectsCollectedByMajorGC: true,
          includeObjectsCollectedByMinorGC: mode === 'alloc',
        });
      }
      process.stderr.write(`profile ${mode} started\n`);
      return;
    }
    running = false;
    if (mode === 'cpu') {
      const { profile } = await post<{ profile: object }>('Profiler.stop');
      fs.writeFileSync(`${out}.cpuprofile`, JSON.stringify(profile));
      process.stderr.write(`wrote ${out}.cpuprofile\n`);
    } else {
      const { profile } = await post<{ profile: { head: SamplingNode } }>('HeapProfiler.stopSampling');
      fs.writeFileSync(`${out}.heapprofile`, JSON.stringify(profile));
      fs.writeFileSync(`${out}.${mode}.txt`, summarize(profile.head));
      process.stderr.write(`wrote ${out}.heapprofile and ${out}.${mode}.txt\n`);
    }
  })();
});

require('../src/cli/main.ts')
  .main([process.argv[0], 'ifrs', ...process.argv.slice(2)])
  .catch((e: Error) => {
    process.stderr.write(`ifrs: ${e.message}\n`);
    process.exit(1);
  });
