/*
 * The endpoint table of docs/ARCHITECTURE.md, generated from the code so that it cannot go stale unseen.
 * `npm run docs:endpoints` rewrites the two tables between the `endpoints` and `read-models` markers: the route and
 * handler columns and the read-model table come from the route modules and projectors the real container binds; the
 * "reads" and "projectors" cells of each row are written by hand and kept (a new route gets `TODO`).
 * test/docs/architecture.unit.test.ts fails while the file differs from what this would write, while a cell says
 * TODO, or when a row names a projector or table that does not exist.
 */
import 'reflect-metadata';
import fs from 'node:fs';
import path from 'node:path';
import knex from 'knex';
import { loadConfig } from '../src/config';
import { createContainer } from '../src/container';
import { operationIdOf } from '../src/http/openapi';
import type { RouteModule } from '../src/http/route';
import { TOKENS } from '../src/ports/tokens';
import { createLogger } from '../src/util/logger';
import type { Database } from '../infra/postgres/database';

const ROOT = path.resolve(__dirname, '..');
export const ARCHITECTURE_FILE = path.join(ROOT, 'docs/ARCHITECTURE.md');
const SOURCE_DIRS = ['src', 'commands', 'projections', 'queries', 'infra'];

export interface Endpoint {
  /** `GET /insurance/filings, /filings`: one route definition, every path form it serves. */
  route: string;
  operationIds: string[];
  /** The file that defines the route module. */
  handler: string;
}
export interface ReadModel {
  projector: string;
  file: string;
  tables: string[];
}
export interface HandCells {
  reads: string;
  projectors: string;
}

/** Every `export class X` of the service's sources, by class name. */
function classFiles(): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const rel = path.posix.join(dir, e.name);
      if (e.isDirectory()) walk(rel);
      else if (e.name.endsWith('.ts')) for (const m of fs.readFileSync(path.join(ROOT, rel), 'utf8').matchAll(/^export class (\w+)/gm)) out.set(m[1], rel);
    }
  };
  for (const d of SOURCE_DIRS) walk(d);
  return out;
}

/** The route modules and projectors the service binds, from its real container over an unconnected knex. */
export function codeInventory(): { endpoints: Endpoint[]; readModels: ReadModel[] } {
  const pool = knex({ client: 'pg' });
  const db: Database = { knex: pool, readKnex: pool, connectionString: '', embedded: true, close: async () => {} };
  const container = createContainer(loadConfig({}, {}), db, Buffer.alloc(32), createLogger('silent'));
  const files = classFiles();
  const fileOf = (o: object) => files.get(o.constructor.name) ?? `(${o.constructor.name})`;
  const endpoints = container.getAll<RouteModule>(TOKENS.RouteModule).flatMap((m) =>
    m.routes().map((r) => ({
      route: `${r.method.toUpperCase()} ${r.paths.join(', ')}`,
      operationIds: r.paths.map((_, i) => operationIdOf(r, i)),
      handler: fileOf(m),
    })),
  );
  const readModels = container
    .getAll<{ name: string; tables: readonly string[] }>(TOKENS.Projector)
    .map((p) => ({ projector: p.name, file: fileOf(p), tables: [...p.tables] }));
  return { endpoints, readModels };
}

const ENDPOINTS = ['<!-- endpoints -->', '<!-- /endpoints -->'] as const;
const READ_MODELS = ['<!-- read-models -->', '<!-- /read-models -->'] as const;
const ENDPOINT_HEAD = '| route | operationIds | handler | reads | projectors |\n|---|---|---|---|---|';
const READ_MODEL_HEAD = '| projector | file | tables |\n|---|---|---|';

function between(md: string, [open, close]: readonly [string, string]): { start: number; end: number } {
  const start = md.indexOf(open);
  const end = md.indexOf(close);
  if (start < 0 || end < start) throw new Error(`docs/ARCHITECTURE.md: no ${open} ... ${close} part`);
  return { start: start + open.length, end };
}

const cells = (row: string) => row.replace(/^\|/, '').replace(/\|$/, '').split('|').map((c) => c.trim().replace(/^`|`$/g, ''));

/** The endpoint rows of the file: operationIds (the key) and the hand-written cells. */
export function parseEndpointTable(md: string): { operationIds: string[]; route: string; handler: string; hand: HandCells }[] {
  const { start, end } = between(md, ENDPOINTS);
  return md
    .slice(start, end)
    .split('\n')
    .filter((l) => l.startsWith('| ') && !l.startsWith('| route ') && !l.startsWith('|---'))
    .map((l) => {
      const [route, ids, handler, reads, projectors] = cells(l);
      return { route, operationIds: ids.split(',').map((s) => s.trim()), handler, hand: { reads, projectors } };
    });
}

const code = (s: string) => `\`${s}\``;

/** The file with both tables as the code gives them, each endpoint row keeping its hand-written cells. */
export function renderArchitecture(md: string, inv = codeInventory()): string {
  const hand = new Map(parseEndpointTable(md).map((r) => [r.operationIds[0], r.hand]));
  const rows = inv.endpoints.map((e) => {
    const h = hand.get(e.operationIds[0]) ?? { reads: 'TODO', projectors: 'TODO' };
    return `| ${code(e.route)} | ${e.operationIds.join(', ')} | ${code(e.handler)} | ${h.reads} | ${h.projectors} |`;
  });
  const models = inv.readModels.map((m) => `| ${code(m.projector)} | ${code(m.file)} | ${m.tables.join(', ')} |`);
  let out = md;
  for (const [marks, body] of [
    [READ_MODELS, `${READ_MODEL_HEAD}\n${models.join('\n')}`],
    [ENDPOINTS, `${ENDPOINT_HEAD}\n${rows.join('\n')}`],
  ] as const) {
    const { start, end } = between(out, marks);
    out = `${out.slice(0, start)}\n${body}\n${out.slice(end)}`;
  }
  return out;
}

if (require.main === module) {
  fs.writeFileSync(ARCHITECTURE_FILE, renderArchitecture(fs.readFileSync(ARCHITECTURE_FILE, 'utf8')));
}
