import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import type { EventCoverage, Projector, TableNamer } from '../../projections/projector';
import type { NewEvent } from '../../src/domain/events';
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/util/logger';
import { openRuntime, type Runtime } from '../../src/runtime';
import { TOKENS } from '../../src/ports/tokens';
import { freshDatabaseUrl } from './postgres';

/**
 * A test projector of a run group that counts events per stream (a replay would show) in one table, for the
 * event types it is given; `failures` tells it to fail that many batches. Subclasses decide how a batch is
 * applied.
 */
export abstract class StreamCountingProjector {
  readonly version = 1;
  readonly tables: string[];
  readonly handles: EventCoverage<NewEvent>;
  failures = 0;
  constructor(
    readonly name: string,
    eventTypes: readonly string[],
    readonly runGroup: string,
  ) {
    this.tables = [`${name.replace(/-/g, '_')}_counts`];
    this.handles = Object.fromEntries(eventTypes.map((t) => [t, 'applied' as const]));
  }

  async createSchema(trx: Knex.Transaction, t: TableNamer): Promise<void> {
    await trx.raw(`create table ${t(this.tables[0])} (stream_id text primary key, n bigint not null)`);
  }
}

/** A runtime on a fresh database with these projectors besides the service's own. */
export async function runtimeWithProjectors(projectors: Projector[], dirPrefix: string): Promise<Runtime> {
  const url = await freshDatabaseUrl();
  return openRuntime(loadConfig({}, { databaseUrl: url, dataDir: fs.mkdtempSync(path.join(os.tmpdir(), dirPrefix)) }), createLogger('silent'), {
    configure: (c) => {
      for (const p of projectors) c.bind(TOKENS.Projector).toConstantValue(p);
    },
  });
}
