import assert from 'node:assert/strict';
import { Container, type ServiceIdentifier } from 'inversify';
import pino from 'pino';
import { loadConfig } from '../../src/config';
import { createContainer } from '../../src/container';
import type { Database } from '../../infra/postgres/database';
import { TOKENS } from '../../src/ports/tokens';
import { CommandHandler } from '../../commands/command-handler';
import { ProjectionEngine } from '../../projections/engine';
import { BatchedAppender } from '../../infra/eventstore/batched-appender';
import { IdentityCommands } from '../../commands/identity/identity-commands';
import { ManagedFilingCommands } from '../../commands/managed-filings/managed-filing-commands';
import { UploadCommands } from '../../commands/artifacts/upload-commands';
import { FilingAccessService } from '../../src/read-models/working-filings/filing-access';
import { ReferenceLookups } from '../../src/read-models/working-filings/reference-lookups';
import { Authenticator } from '../../queries/identity/authenticator';
import { CursorService } from '../../src/http/cursors';
import { SignedUrls } from '../../src/http/signed-urls';

/*
 * The composition root, without I/O: binding only records what is bound (adapters are built lazily, and
 * nothing here is resolved), so a fake database handle is enough.
 */
const MULTI = new Set<ServiceIdentifier>([TOKENS.Projector, TOKENS.RouteModule, TOKENS.RecordImporter, TOKENS.BusWorker]);
const CLASSES = [CommandHandler, ProjectionEngine, BatchedAppender, IdentityCommands, ManagedFilingCommands, UploadCommands, FilingAccessService, ReferenceLookups, Authenticator, CursorService, SignedUrls];

interface Record {
  binds: Map<ServiceIdentifier, number>;
  /** rebind, rebindSync, unbind, unbindSync, isBound: calls that make a binding depend on what came before. */
  orderDependent: string[];
}

function compose(env: NodeJS.ProcessEnv): Record {
  const record: Record = { binds: new Map(), orderDependent: [] };
  const proto = Container.prototype as unknown as { [k: string]: (...args: unknown[]) => unknown };
  const saved = new Map<string, (...args: unknown[]) => unknown>();
  for (const name of ['bind', 'rebind', 'rebindSync', 'unbind', 'unbindSync', 'isBound']) {
    const original = proto[name]!;
    saved.set(name, original);
    proto[name] = function (this: unknown, ...args: unknown[]) {
      if (name === 'bind') record.binds.set(args[0] as ServiceIdentifier, (record.binds.get(args[0] as ServiceIdentifier) ?? 0) + 1);
      else record.orderDependent.push(`${name}(${String((args[0] as { name?: string }).name ?? args[0])})`);
      return original.apply(this, args);
    };
  }
  try {
    const db = { knex: {}, readKnex: {} } as unknown as Database;
    createContainer(loadConfig(env, {}, { dataDir: '/nonexistent/ifrs-composition-test' }), db, Buffer.alloc(32), pino({ level: 'silent' }));
  } finally {
    for (const [name, original] of saved) proto[name] = original;
  }
  return record;
}

const label = (id: ServiceIdentifier) => (typeof id === 'function' ? id.name : String(id));

describe('the composition root (src/container.ts and the features)', () => {
  for (const [setup, env] of [
    ['embedded defaults', {}],
    ['every optional adapter configured', { ELASTICSEARCH_URL: 'http://127.0.0.1:9', KAFKA_BROKERS: '127.0.0.1:9', ESDB_URL: 'esdb://127.0.0.1:9?tls=false', S3_BUCKET: 'ifrs-test', S3_ENDPOINT: 'http://127.0.0.1:9' }],
  ] as const) {
    it(`rule: every identifier of the registry is bound, each single service exactly once, decided up front (${setup})`, () => {
      const { binds, orderDependent } = compose(env);
      assert.deepEqual(orderDependent, [], 'no rebinding and no isBound checks while composing');
      for (const [key, id] of Object.entries(TOKENS)) {
        const n = binds.get(id) ?? 0;
        if (MULTI.has(id)) assert.ok(n >= 1, `TOKENS.${key} (multi-bound) has bindings`);
        else assert.equal(n, 1, `TOKENS.${key} is bound once`);
      }
      for (const cls of CLASSES) assert.equal(binds.get(cls), 1, `${cls.name} is bound once`);
      const known = new Set<ServiceIdentifier>([...Object.values(TOKENS), ...CLASSES]);
      assert.deepEqual([...binds.keys()].filter((id) => !known.has(id)).map(label), [], 'nothing is bound outside the registry and the service classes');
    });
  }
});
