/*
 * Writes the served OpenAPI document to clients/openapi.json without a database: the route modules are
 * resolved from the real container over an unconnected knex (nothing is queried while routes are defined),
 * so the SDKs are generated from exactly what `GET /api/v2/openapi.json` serves.
 */
import 'reflect-metadata';
import fs from 'node:fs';
import path from 'node:path';
import knex from 'knex';
import { loadConfig } from '../src/config';
import { createContainer } from '../src/container';
import { DECISIONS } from '../src/decisions';
import { buildOpenApi } from '../src/http/openapi';
import type { RouteModule } from '../src/http/route';
import { createLogger } from '../src/util/logger';
import { TOKENS } from '../src/ports/tokens';
import type { Database } from '../infra/postgres/database';

export function servedDocument(): object {
  const config = loadConfig({}, {});
  const pool = knex({ client: 'pg' });
  const db: Database = { knex: pool, readKnex: pool, connectionString: '', embedded: true, close: async () => {} };
  const container = createContainer(config, db, Buffer.alloc(32), createLogger('silent'));
  const routes = container.getAll<RouteModule>(TOKENS.RouteModule).flatMap((m) => m.routes());
  return buildOpenApi(routes, DECISIONS);
}

if (require.main === module) {
  const out = path.join(__dirname, 'openapi.json');
  fs.writeFileSync(out, `${JSON.stringify(servedDocument(), null, 2)}\n`);
  process.stdout.write(`wrote ${path.relative(process.cwd(), out)}\n`);
}
