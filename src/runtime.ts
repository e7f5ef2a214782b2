import type { Container } from 'inversify';
import type { Config } from './config';
import { createContainer } from './container';
import type { Logger } from './util/logger';
import { openDatabase, type Database } from '../infra/postgres/database';
import { loadSecret } from '../infra/postgres/secrets';
import { ProjectionEngine } from '../projections/engine';
import type { EventStore } from './ports/event-store';
import { TOKENS } from './ports/tokens';
import type { Bus, BusRelay } from './ports/bus';
import type { DirectTransfers } from './ports/direct-transfers';

export interface Runtime {
  config: Config;
  log: Logger;
  db: Database;
  container: Container;
  engine: ProjectionEngine;
  store: EventStore;
  close(): Promise<void>;
}

/** Opens the database (embedded or external), migrates, wires the container and prepares read models. */
export interface RuntimeOptions {
  poolMax?: number;
  /** Extra bindings before anything is resolved (tests add projectors or routes here). */
  configure?: (c: Container) => void;
}

export async function openRuntime(config: Config, log: Logger, opts: RuntimeOptions = {}): Promise<Runtime> {
  const db = await openDatabase({
    dataDir: config.dataDir,
    databaseUrl: config.databaseUrl,
    log,
    poolMax: opts.poolMax,
    requestStatementTimeoutMs: config.statementTimeoutMs,
    bounds: { workMem: config.dbWorkMem, maxUses: config.dbPoolMaxUses, maxLifetimeSeconds: config.dbPoolMaxLifetimeSeconds, idleTimeoutMs: config.dbPoolIdleTimeoutMs },
  });
  try {
    const secret = await loadSecret(db.knex, config.secret);
    const container = createContainer(config, db, secret, log);
    opts.configure?.(container);
    const engine = container.get(ProjectionEngine);
    const store = container.get<EventStore>(TOKENS.EventStore);
    await engine.ensureSchemas();
    const direct = container.get<DirectTransfers | null>(TOKENS.DirectTransfers);
    await direct?.ensureReady();
    let closed = false;
    return {
      config,
      log,
      db,
      container,
      engine,
      store,
      close: async () => {
        if (closed) return;
        closed = true;
        await engine.stop();
        await container.get<BusRelay>(TOKENS.BusRelay).stop();
        await container.get<Bus>(TOKENS.Bus).close();
        await store.close();
        await container.get(TOKENS.Elasticsearch)?.close();
        await direct?.close();
        await db.close();
      },
    };
  } catch (e) {
    await db.close();
    throw e;
  }
}
