import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type client from 'prom-client';
import { createApp } from './http/app';
import type { RouteModule, RouteSpec } from './http/route';
import type { Runtime } from './runtime';
import { TOKENS } from './tokens';
import type { Authenticator } from '../queries/identity/authenticator';
import { DECISIONS } from './decisions';
import { BACKGROUND_WORKER, type BackgroundWorker } from './background-workers';

export type Role = 'all' | 'api' | 'projector' | 'indexer';

export function collectRoutes(rt: Runtime): RouteSpec[] {
  return rt.container.getAll<RouteModule>(TOKENS.RouteModule).flatMap((m) => m.routes());
}

export function buildApp(rt: Runtime) {
  const auth = rt.container.get<Authenticator>(TOKENS.Authenticator);
  const metrics = rt.container.get<client.Registry>(TOKENS.Metrics);
  return createApp({
    routes: collectRoutes(rt),
    authenticate: (k) => auth.authenticate(k),
    log: rt.log,
    metrics,
    decisions: DECISIONS,
    health: {
      ready: async () => {
        await rt.db.knex.raw('select 1');
        const s = await rt.engine.status();
        const lagging = s.projections.filter((p) => p.lag > rt.config.readyMaxLag);
        return { ok: lagging.length === 0, details: { projections: s.projections, head: s.head } };
      },
    },
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** One server per embedded data directory: a second one refuses instead of sharing the files. */
export function acquireServeLock(dataDir: string): () => void {
  fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, 'serve.lock');
  for (let i = 0; i < 2; i++) {
    try {
      fs.writeFileSync(file, String(process.pid), { flag: 'wx' });
      return () => {
        try {
          if (fs.readFileSync(file, 'utf8') === String(process.pid)) fs.rmSync(file);
        } catch {
          /* already gone */
        }
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const pid = Number(fs.readFileSync(file, 'utf8'));
      if (pid && alive(pid)) throw new Error(`another ifrs serve (pid ${pid}) is already running on the data directory ${dataDir}; stop it first or use another --data-dir`);
      fs.rmSync(file, { force: true });
    }
  }
  throw new Error(`could not take the serve lock in ${dataDir}`);
}

export async function startServer(rt: Runtime, opts: { port: number; host: string; role: Role }): Promise<{ server: http.Server | null; url: string | null }> {
  if (opts.role === 'all' || opts.role === 'projector') await rt.engine.start();
  if (rt.container.isBound(BACKGROUND_WORKER)) {
    for (const w of rt.container.getAll<BackgroundWorker>(BACKGROUND_WORKER)) if (w.roles.includes(opts.role)) await w.start();
  }
  if (opts.role !== 'all' && opts.role !== 'api') return { server: null, url: null };
  const app = buildApp(rt);
  const server = http.createServer(app);
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const addr = server.address() as import('node:net').AddressInfo;
  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  return { server, url: `http://${host}:${addr.port}/api/v2` };
}
