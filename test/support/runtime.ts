import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type http from 'node:http';
import type { Container } from 'inversify';
import { loadConfig, type Config } from '../../src/config';
import { createLogger, type Logger } from '../../src/util/logger';
import { openRuntime, type Runtime } from '../../src/runtime';
import { startServer } from '../../src/server';
import { IdentityCommands } from '../../commands/identity/identity-commands';
import type { ScopeRole } from '../../src/domain/principal';
import { freshDatabaseUrl } from './postgres';

export interface TestRuntime {
  rt: Runtime;
  baseUrl: string;
  server: http.Server;
  dataDir: string;
  close(): Promise<void>;
}

/** The real service (real Postgres, real Express, real HTTP) on a fresh database and a free port. */
export async function startTestRuntime(overrides: Partial<Config> = {}, configure?: (c: Container) => void, log?: Logger): Promise<TestRuntime> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ifrs-test-data-'));
  const config = loadConfig({}, { dataDir, databaseUrl: await freshDatabaseUrl(), logLevel: 'warn', ...overrides });
  const rt = await openRuntime(config, log ?? createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'), { configure });
  const { server, url } = await startServer(rt, { port: 0, host: '127.0.0.1', role: 'all' });
  return {
    rt,
    baseUrl: url!,
    server: server!,
    dataDir,
    close: async () => {
      server!.closeAllConnections?.();
      await new Promise<void>((r) => server!.close(() => r()));
      await rt.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface TestCaller {
  tenantId: string;
  userId: string;
  apiKey: string;
  keyId: string;
}

/** Object mother for identities: a tenant, a user and a key in one line; override what the test is about. */
export async function makeCaller(
  rt: Runtime,
  o: { tenantId?: string; datasets?: string[]; sharing?: boolean; readOnly?: boolean; permissions?: string[]; name?: string; email?: string | null } = {},
): Promise<TestCaller> {
  const id = rt.container.get(IdentityCommands);
  const meta = { actor: 'test' };
  const tenantId = o.tenantId ?? (await id.createTenant({ name: 'Test Tenant', datasets: o.datasets ?? ['naic'], sharing: o.sharing ?? false }, meta)).tenantId;
  const { userId } = await id.createUser({ tenantId, name: o.name ?? 'Test User', email: o.email === undefined ? 'test@example.com' : o.email }, meta);
  const { apiKey, keyId } = await id.createKey({ userId, readOnly: o.readOnly ?? false, permissions: o.permissions ?? ['serff:view'] }, meta);
  return { tenantId, userId, apiKey, keyId };
}

export async function makeScope(rt: Runtime, tenantId: string, grants: { userId: string; role: ScopeRole }[] = []): Promise<string> {
  const id = rt.container.get(IdentityCommands);
  const { scope } = await id.createScope({ tenantId, name: 'Test Scope' }, { actor: 'test' });
  for (const g of grants) await id.grant({ scope, userId: g.userId, role: g.role }, { actor: 'test' });
  return scope;
}

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** A thin HTTP client for tests: JSON in, JSON out, the key as a bearer token. */
export function client(baseUrl: string, apiKey?: string) {
  const call = async <T = any>(method: string, p: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResponse<T>> => {
    const h: Record<string, string> = { ...headers };
    if (apiKey && !('Authorization' in h)) h.Authorization = `Bearer ${apiKey}`;
    let payload: string | undefined;
    if (body !== undefined) {
      payload = typeof body === 'string' ? body : JSON.stringify(body);
      h['Content-Type'] ??= 'application/json';
    }
    const res = await fetch(baseUrl + p, { method, headers: h, body: payload, redirect: 'manual' });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // Not JSON: tests that care look at `text`.
    }
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  };
  return {
    get: <T = any>(p: string, headers?: Record<string, string>) => call<T>('GET', p, undefined, headers),
    post: <T = any>(p: string, body?: unknown, headers?: Record<string, string>) => call<T>('POST', p, body, headers),
    patch: <T = any>(p: string, body?: unknown, headers?: Record<string, string>) => call<T>('PATCH', p, body, headers),
    put: <T = any>(p: string, body?: unknown, headers?: Record<string, string>) => call<T>('PUT', p, body, headers),
    delete: <T = any>(p: string, headers?: Record<string, string>) => call<T>('DELETE', p, undefined, headers),
    call,
  };
}
