import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import client, { Gauge, collectDefaultMetrics } from 'prom-client';
import { answerEdgesAsJson } from './http/client-errors';
import { createApp } from './http/app';
import { createAppServer } from './http/app-server';
import { RequestLimits } from './http/request-limits';
import type { RouteModule, RouteSpec } from './http/route';
import type { Runtime } from './runtime';
import { TOKENS } from './ports/tokens';
import { Authenticator } from '../queries/identity/authenticator';
import { DECISIONS } from './decisions';
import { Readiness } from './readiness';
import type { BusRelay } from './ports/bus';
import type { EventStore } from './ports/event-store';
import { processAlive as alive } from './util/process';
import { ensureDir } from './util/ensure-dir';

/**
 * What a process runs: `api` HTTP only; `projector` the projection engine and the bus relay (Kafka
 * only; one relay is active, the others stand by); `relay` the relay alone; `indexer` the bus workers
 * (a consumer group: scale out freely); `all` everything (the embedded default).
 */
export type Role = 'all' | 'api' | 'projector' | 'relay' | 'indexer';
export const ROLES: readonly Role[] = ['all', 'api', 'projector', 'relay', 'indexer'];

export function collectRoutes(rt: Runtime): RouteSpec[] {
  return rt.container.getAll<RouteModule>(TOKENS.RouteModule).flatMap((m) => m.routes());
}

/** Projection positions and lag as gauges, read from the checkpoints at scrape time. */
function registerProjectionMetrics(rt: Runtime, registry: client.Registry): void {
  if (registry.getSingleMetric('ifrs_projection_position')) return;
  const position = new Gauge({ name: 'ifrs_projection_position', help: 'Global log position a projection has reached', labelNames: ['projection'], registers: [registry] });
  const lag = new Gauge({
    name: 'ifrs_projection_lag',
    help: 'Events between the log head and the projection checkpoint',
    labelNames: ['projection'],
    registers: [registry],
    async collect() {
      const s = await rt.engine.status();
      for (const p of s.projections) {
        position.set({ projection: p.name }, p.position);
        this.set({ projection: p.name }, p.lag);
      }
    },
  });
  void lag;
  new Gauge({
    name: 'ifrs_event_log_head',
    help: 'Newest global log position visible to subscribers',
    registers: [registry],
    async collect() {
      this.set(Number((await rt.store.head()).prepare));
    },
  });
}

/** `readiness` is taken at the process's start (Readiness.atStart); without one, at the app's first readiness check. */
export function buildApp(rt: Runtime, readiness?: Readiness) {
  const auth = rt.container.get(Authenticator);
  const metrics = rt.container.get<client.Registry>(TOKENS.Metrics);
  registerProjectionMetrics(rt, metrics);
  collectDefaultMetrics({ register: metrics });
  return createApp({
    routes: collectRoutes(rt),
    authenticate: (k) => auth.authenticate(k),
    log: rt.log,
    metrics,
    decisions: DECISIONS,
    idempotency: rt.container.get(TOKENS.IdempotencyStore),
    limits: new RequestLimits(rt.config.requestLimits),
    corsOrigins: rt.config.corsOrigins,
    readStream: (streamId) => rt.container.get<EventStore>(TOKENS.EventStore).readStream(streamId),
    health: {
      ready: async () => (readiness ??= await Readiness.atStart(rt)).check(),
    },
  });
}


/**
 * One process per role on an embedded data directory: the roles may run as separate processes on it (they
 * share its Postgres, which the last of them stops), but a second process of a role one already runs refuses
 * (a second `all` or `api` would be a second server on the same files). `all` holds every role.
 */
export function acquireServeLock(dataDir: string, role: Role = 'all'): () => void {
  const roles = role === 'all' ? ROLES.filter((r) => r !== 'all') : [role];
  const releases: (() => void)[] = [];
  try {
    for (const r of roles) releases.push(acquireRoleLock(dataDir, r));
  } catch (e) {
    releases.forEach((release) => release());
    throw e;
  }
  return () => releases.forEach((release) => release());
}

function acquireRoleLock(dataDir: string, role: Role): () => void {
  ensureDir(dataDir);
  const file = path.join(dataDir, `serve-${role}.lock`);
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
      if (pid && alive(pid)) throw new Error(`another ifrs serve (pid ${pid}) is already running on the data directory ${dataDir} with the ${role} role; stop it first or use another --data-dir`);
      fs.rmSync(file, { force: true });
    }
  }
  throw new Error(`could not take the serve lock in ${dataDir}`);
}

/** Starts every bound bus worker on the runtime's bus; the bus stops them when the runtime closes. */
async function startBusWorkers(rt: Runtime): Promise<void> {
  const workers = rt.container.getAll(TOKENS.BusWorker, { optional: true });
  if (!workers.length) return;
  const bus = rt.container.get(TOKENS.Bus);
  for (const w of workers) {
    await w.start(bus);
    rt.log.info({ worker: w.name }, 'bus worker started');
  }
}

export async function startServer(rt: Runtime, opts: { port: number; host: string; role: Role }): Promise<{ server: http.Server | null; url: string | null }> {
  if (opts.role === 'all' || opts.role === 'projector') await rt.engine.start();
  if (opts.role === 'api') rt.engine.helpOtherRunners(false);
  if (opts.role === 'all' || opts.role === 'projector' || opts.role === 'relay') await rt.container.get<BusRelay>(TOKENS.BusRelay).start();
  if (opts.role === 'all' || opts.role === 'indexer') await startBusWorkers(rt);
  if (opts.role !== 'all' && opts.role !== 'api') return { server: null, url: null };
  const app = buildApp(rt, await Readiness.atStart(rt));
  const c = rt.config;
  // Node refuses a headers timeout longer than the request timeout: the request's bound covers its headers.
  const headersTimeout = c.httpRequestTimeoutMs > 0 ? Math.min(c.httpHeadersTimeoutMs, c.httpRequestTimeoutMs) : c.httpHeadersTimeoutMs;
  const server = createAppServer(app, {
    maxHeaderSize: c.httpMaxHeaderBytes,
    headersTimeout,
    requestTimeout: c.httpRequestTimeoutMs,
    // How often Node looks for requests over those timeouts (its default, 30 s, would let one run 30 s late).
    connectionsCheckingInterval: headersTimeout > 0 ? Math.min(1000, Math.max(50, Math.floor(headersTimeout / 4))) : 1000,
  });
  server.keepAliveTimeout = 65_000;
  // Node keeps only the first 2,000 headers and drops the rest unseen, so a second Authorization after them
  // escaped the duplicate check; the header byte limit bounds them instead.
  server.maxHeadersCount = 0;
  answerEdgesAsJson(server, { maxHeaderBytes: c.httpMaxHeaderBytes, bodyIdleTimeoutMs: c.httpBodyIdleTimeoutMs });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const addr = server.address() as import('node:net').AddressInfo;
  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  return { server, url: `http://${host}:${addr.port}/api/v2` };
}
