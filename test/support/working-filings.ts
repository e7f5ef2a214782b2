import crypto from 'node:crypto';
import type { RecordImporter } from '../../commands/import/record-importer';
import type { Runtime } from '../../src/runtime';
import { TOKENS } from '../../src/ports/tokens';
import { client } from './runtime';

/** Runs one import record through the bound importer for its type, as `ifrs import` does. */
export async function importRecord(rt: Runtime, record: Record<string, unknown>) {
  const importer = rt.container.getAll<RecordImporter>(TOKENS.RecordImporter).find((i) => i.types.includes(String(record.type)));
  if (!importer) throw new Error(`no importer for ${String(record.type)}`);
  return importer.import(record, { baseDir: '.', metadata: { actor: 'test-import' }, line: 1 });
}

export interface Listings {
  companyId: string;
  jurisdictionId: string;
  productId: string;
  product2Id: string;
}

/** A company, a jurisdiction and two products in the scope's listings. */
export async function seedListings(rt: Runtime, scope: string): Promise<Listings> {
  const l = { companyId: crypto.randomUUID(), jurisdictionId: crypto.randomUUID(), productId: crypto.randomUUID(), product2Id: crypto.randomUUID() };
  await importRecord(rt, { type: 'scope_company', scope, id: l.companyId, name: 'Acme Insurance Co', naicCompanyCode: '12345' });
  await importRecord(rt, { type: 'scope_jurisdiction', scope, id: l.jurisdictionId, code: 'TX', name: 'Texas' });
  await importRecord(rt, { type: 'scope_product', scope, id: l.productId, name: 'Cyber Shield' });
  await importRecord(rt, { type: 'scope_product', scope, id: l.product2Id, name: 'Cyber Shield Plus' });
  await rt.engine.catchUp();
  return l;
}

export function filingBody(scope: string, l: Listings, extra: Record<string, unknown> = {}) {
  return { scope, companyId: l.companyId, jurisdictionId: l.jurisdictionId, primaryProductId: l.productId, filingType: 'form', ...extra };
}

/** The whole upload flow over HTTP: token, signed PUT without the key, completion. Returns the completion result. */
export async function upload(baseUrl: string, apiKey: string, scope: string, content = 'hello working file', o: { name?: string; mimeType?: string; artifactId?: string } = {}) {
  const api = client(baseUrl, apiKey);
  const bytes = Buffer.from(content);
  const begin = await api.post('/files/uploads', { scope, name: o.name ?? 'notes.txt', mimeType: o.mimeType ?? 'text/plain', size: bytes.length, ...(o.artifactId ? { artifactId: o.artifactId } : {}) });
  if (begin.status !== 201) throw new Error(`begin upload: ${begin.status} ${begin.text}`);
  const put = await fetch(begin.body.uploadUrl, { method: 'PUT', body: bytes, headers: { 'Content-Type': 'application/octet-stream' } });
  if (put.status !== 200) throw new Error(`PUT: ${put.status} ${await put.text()}`);
  const done = await api.post('/files/uploads/complete', { confirmations: [{ uploadToken: begin.body.uploadToken }] });
  if (done.status !== 200 || !done.body.results[0].success) throw new Error(`complete: ${done.status} ${done.text}`);
  return { token: begin.body.uploadToken as string, artifact: done.body.results[0].artifact };
}
