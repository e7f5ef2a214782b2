import fs from 'node:fs';
import path from 'node:path';

/** Fields of /proc/<pid>/stat from field 3 on (stat(5)), or null when the process is gone. */
function statFields(pid: number): string[] | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** User and system CPU of a process in seconds, from /proc (Linux): utime and stime, fields 14 and 15. */
export function cpuSeconds(pid: number): { user: number; sys: number } {
  const f = statFields(pid);
  return f ? { user: Number(f[11]) / 100, sys: Number(f[12]) / 100 } : { user: 0, sys: 0 };
}

/**
 * CPU of the Postgres server of a data directory: the postmaster, its live children (backends and
 * background workers) and, through the postmaster's cutime/cstime, the children it has reaped (a pooled
 * connection closed during a run would otherwise take its share along and make a difference negative).
 */
export function postgresCpuSeconds(dataDir: string): number {
  let postmaster: number;
  try {
    postmaster = Number(fs.readFileSync(path.join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return 0;
  }
  return postmasterCpuSeconds(postmaster);
}

/** As postgresCpuSeconds, for the postmaster with that pid. */
export function postmasterCpuSeconds(postmaster: number): number {
  let total = 0;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const f = statFields(Number(entry));
    // f[1] is the parent pid (field 4).
    if (f && (Number(entry) === postmaster || Number(f[1]) === postmaster)) total += (Number(f[11]) + Number(f[12])) / 100;
    // f[13], f[14]: cutime and cstime, the CPU of reaped children.
    if (f && Number(entry) === postmaster) total += (Number(f[13]) + Number(f[14])) / 100;
  }
  return total;
}

/** CPU ticks of the postmaster's children by kind (walwriter, autovacuum, a backend's state...), from /proc. */
export function postgresCpuByKind(root: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const f = statFields(Number(entry));
    if (!f || Number(f[1]) !== root) continue;
    try {
      const cmd = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
      // Backends show "postgres: user db [local] STATE": keep the role, not the state of the moment.
      const kind = /\[local\]|\d+\.\d+\.\d+\.\d+/.test(cmd) ? 'backends' : cmd.replace(/^postgres: /, '');
      out.set(kind, (out.get(kind) ?? 0) + Number(f[11]) + Number(f[12]));
    } catch {
      // Gone meanwhile.
    }
  }
  return out;
}

/**
 * CPU seconds (user + system) of this process's children that have exited and been waited for: cutime
 * and cstime of /proc/self/stat. A native load generator's own CPU is what it grows by over its run.
 */
export function reapedChildrenCpuSeconds(): number {
  const f = statFields(process.pid);
  return f ? (Number(f[13]) + Number(f[14])) / 100 : NaN;
}

/** User + system CPU of a process, in milliseconds (cpuSeconds). */
export function cpuMsOf(pid: number): number {
  const c = cpuSeconds(pid);
  return (c.user + c.sys) * 1000;
}

/** User + system CPU of this node process so far, in milliseconds. */
export function ownCpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}
