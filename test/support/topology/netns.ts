import { execFileSync, spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import crypto from 'node:crypto';

/**
 * Hosts for the topology test: one Linux network namespace per host, each with one veth link into a
 * bridge in the test's own namespace. The bridge's /24 is a private range that exists only on this
 * bridge (the hosts have no default route), so every packet goes to a test host or stays on loopback.
 * The test process itself is the operator's machine on the bridge (`.1`).
 */

/** Why the topology cannot be built here, or null when it can (root, and `ip netns` works). */
export function netnsUnavailable(): string | null {
  if (process.platform !== 'linux') return `not Linux (${process.platform})`;
  if (process.getuid?.() !== 0) return 'not running as root (network namespaces need CAP_SYS_ADMIN)';
  const probe = `ifrs-probe-${process.pid}`;
  try {
    execFileSync('ip', ['netns', 'add', probe], { stdio: 'pipe' });
    execFileSync('ip', ['netns', 'del', probe], { stdio: 'pipe' });
  } catch (e) {
    return `\`ip netns add\` failed: ${String((e as { stderr?: Buffer }).stderr ?? (e as Error).message).trim()}`;
  }
  return null;
}

function ip(...args: string[]): string {
  return execFileSync('ip', args, { stdio: ['ignore', 'pipe', 'pipe'] }).toString();
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
};

function killAll(pids: number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* exited meanwhile */
    }
  }
}

function namespacePids(ns: string): number[] {
  try {
    return ip('netns', 'pids', ns).split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** Namespaces and bridges of earlier runs whose test process is gone (killed before its clean-up), with what still runs in them. */
function sweepDeadRuns(): void {
  for (const line of ip('netns', 'list').split('\n')) {
    const m = /^(ifrs-(\d+)-\S+)/.exec(line);
    if (!m || alive(Number(m[2]))) continue;
    killAll(namespacePids(m[1]));
    try {
      ip('netns', 'del', m[1]);
    } catch {
      /* another run swept it */
    }
  }
  for (const line of ip('-o', 'link', 'show', 'type', 'bridge').split('\n')) {
    const m = /^\d+: (ifbr(\d+)):/.exec(line);
    if (!m || alive(Number(m[2]))) continue;
    try {
      ip('link', 'del', m[1]);
    } catch {
      /* another run swept it */
    }
  }
}

export interface Host {
  name: string;
  /** The namespace's name (`ip netns exec <ns> ...`). */
  ns: string;
  address: string;
  /** The bridge side of the host's link: setting it down cuts the host off the network. */
  link: string;
}

export class Network {
  readonly hosts = new Map<string, Host>();
  readonly gateway: string;
  private readonly bridge: string;
  private readonly children = new Set<ChildProcess>();
  private destroyed = false;
  private readonly onExit = () => this.destroySync();

  private constructor(
    private readonly tag: string,
    private readonly prefix: string,
  ) {
    this.bridge = `ifbr${tag}`;
    this.gateway = `${prefix}.1`;
  }

  /** A bridge on a free 10.231.x.0/24 and one namespace per host name, addresses .11, .12, ... in order. */
  static create(hostNames: string[]): Network {
    sweepDeadRuns();
    // Names carry the owning pid, so a run killed before its clean-up is swept by the next one.
    const tag = String(process.pid);
    const routes = ip('-4', 'route', 'show');
    let third = crypto.randomInt(0, 256);
    for (let i = 0; i < 256 && routes.includes(`10.231.${third}.`); i++) third = (third + 1) % 256;
    const net = new Network(tag, `10.231.${third}`);
    process.on('exit', net.onExit);
    try {
      ip('link', 'add', net.bridge, 'type', 'bridge');
      ip('addr', 'add', `${net.gateway}/24`, 'dev', net.bridge);
      ip('link', 'set', net.bridge, 'up');
      hostNames.forEach((name, i) => net.addHost(name, i));
    } catch (e) {
      net.destroySync();
      throw e;
    }
    return net;
  }

  private addHost(name: string, i: number): void {
    const host: Host = { name, ns: `ifrs-${this.tag}-${name}`, address: `${this.prefix}.${11 + i}`, link: `ifv${this.tag}x${i}` };
    ip('netns', 'add', host.ns);
    this.hosts.set(name, host);
    ip('link', 'add', host.link, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', host.ns);
    ip('link', 'set', host.link, 'master', this.bridge, 'up');
    ip('-n', host.ns, 'addr', 'add', `${host.address}/24`, 'dev', 'eth0');
    ip('-n', host.ns, 'link', 'set', 'eth0', 'up');
    ip('-n', host.ns, 'link', 'set', 'lo', 'up');
  }

  host(name: string): Host {
    const h = this.hosts.get(name);
    if (!h) throw new Error(`no host ${name}`);
    return h;
  }

  /** Runs a command on a host (in its namespace); the network kills it when destroyed. */
  spawn(hostName: string, command: string, args: string[], opts: SpawnOptions = {}): ChildProcess {
    // `ip netns exec` execs the command itself after entering the namespace: the child's pid is the command's.
    const child = spawn('ip', ['netns', 'exec', this.host(hostName).ns, command, ...args], { stdio: ['ignore', 'pipe', 'pipe'], ...opts });
    this.children.add(child);
    child.once('exit', () => this.children.delete(child));
    return child;
  }

  /** Cuts the host's cable (the bridge side of its link): its packets go nowhere, its own interface stays up. */
  cut(hostName: string): void {
    ip('link', 'set', this.host(hostName).link, 'down');
  }

  restore(hostName: string): void {
    ip('link', 'set', this.host(hostName).link, 'up');
  }

  /** Kills what it started, deletes the namespaces (their links go with them) and the bridge. Idempotent. */
  destroySync(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    process.off('exit', this.onExit);
    for (const c of this.children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    for (const h of this.hosts.values()) {
      // Whatever still runs in the namespace (a grandchild) is killed by pid before the namespace goes.
      killAll(namespacePids(h.ns));
      try {
        ip('netns', 'del', h.ns);
      } catch {
        /* gone already */
      }
    }
    try {
      ip('link', 'del', this.bridge);
    } catch {
      /* never created */
    }
  }
}
