import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { Network } from './netns';

const BIN = path.join(__dirname, '../../../bin/ifrs.js');

/** One `ifrs serve --role <role>` on one host of the topology. */
export interface RoleProcess {
  host: string;
  role: string;
  child: ChildProcess;
  /** The API's base URL on the host's address (api role only). */
  url: string | null;
  exited: Promise<void>;
  log(): string;
}

/** Starts the role on the host and resolves once it is serving ("listening on" / "running as <role>"). */
export function startRole(net: Network, hostName: string, role: 'api' | 'projector' | 'indexer' | 'relay', env: NodeJS.ProcessEnv, port = 8080): Promise<RoleProcess> {
  const address = net.host(hostName).address;
  const child = net.spawn(hostName, process.execPath, [BIN, 'serve', '--role', role, '--host', address, '--port', String(port)], { env: { ...process.env, ...env } });
  let out = '';
  const keep = (d: Buffer) => (out = (out + d).slice(-200_000));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${role} on ${hostName} did not start in time: ${out.slice(-2000)}`));
    }, 120_000);
    const ready = () => {
      const m = /listening on (http:\/\/[^\s"]+)/.exec(out);
      if (role === 'api' ? !m : !out.includes(`"msg":"running as ${role}"`)) return;
      clearTimeout(timer);
      child.stdout!.off('data', ready);
      child.stderr!.off('data', ready);
      resolve({ host: hostName, role, child, url: m ? m[1] : null, exited, log: () => out });
    };
    child.stdout!.on('data', ready);
    child.stderr!.on('data', ready);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${role} on ${hostName} exited (${code ?? signal}) before it was serving: ${out.slice(-2000)}`));
    });
  });
}

export async function killRole(p: RoleProcess, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return;
  p.child.kill(signal);
  await p.exited;
}

/** SIGTERM (the role's own orderly stop), SIGKILL after 15 s. */
export async function stopRole(p: RoleProcess): Promise<void> {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return;
  if (p.child.signalCode === null) p.child.kill('SIGCONT');
  p.child.kill('SIGTERM');
  const done = await Promise.race([p.exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 15_000))]);
  if (!done) await killRole(p);
}
