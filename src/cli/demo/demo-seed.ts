import fs from 'node:fs';
import path from 'node:path';
import type { Runtime } from '../../runtime';
import { TOKENS } from '../../ports/tokens';
import type { Principal } from '../../domain/principal';
import { CommandHandler } from '../../../commands/command-handler';
import { IdentityCommands } from '../../../commands/identity/identity-commands';
import { tenantDecider } from '../../../commands/identity/tenant';
import { scopeDecider } from '../../../commands/identity/scope';
import { userDecider } from '../../../commands/identity/user';
import { runImport } from '../import/import-cli';
import { startProgress } from '../progress';
import type { SearchIndex } from '../../ports/search-index';
import { buildSearchQuery } from '../../../queries/search/search-query';
import { DEFAULT_FILINGS, DEFAULT_SEED, generateDemo } from '../../../infra/demo/generate';

import { seedWorkingFilings } from './demo-working-filings';
import { demoIds, say } from './demo-ids';

const OPERATOR = { actor: 'operator:demo-seed' };
export const DEMO_PERMISSIONS = ['serff:view'];

export interface SeedOptions {
  filings?: number;
  seed?: number;
  /** PDF originals (default true); false writes every document's text into the JSONL instead. */
  pdf?: boolean;
  /** Progress lines on stderr (a bar on a TTY). */
  progress?: boolean;
  /** Base URL for the printed examples. */
  baseUrl?: string;
}

export interface SeedResult {
  tenantId: string;
  scope: string;
  userId: string;
  keyId: string;
  apiKey: string;
  filings: number;
  imported: number;
  failed: number;
  workingFilings: string[];
  seconds: number;
  baseUrl: string;
  examples: string[];
}


/** Where the generated JSONL and PDFs live: inside the data directory, regenerated only when the options change. */
function demoDir(rt: Runtime): string {
  return path.join(rt.config.dataDir, 'demo');
}

async function generateOnce(rt: Runtime, o: { filings: number; seed: number; pdf: boolean; scope: string; progress?: boolean }): Promise<string> {
  const outDir = demoDir(rt);
  const marker = path.join(outDir, 'generated.json');
  const want = JSON.stringify({ filings: o.filings, seed: o.seed, pdf: o.pdf, scope: o.scope, format: 1 });
  const jsonl = path.join(outDir, 'demo.jsonl');
  if (fs.existsSync(marker) && fs.readFileSync(marker, 'utf8') === want && fs.existsSync(jsonl)) {
    say(o.progress, `reusing the generated data set in ${outDir}`);
    return jsonl;
  }
  fs.rmSync(marker, { force: true });
  say(o.progress, `generating ${o.filings} filings${o.pdf ? ' with PDF originals' : ''} into ${outDir}`);
  let last = 0;
  const bar = o.progress ? startProgress('generate', 'filings', o.filings) : null;
  try {
    await generateDemo({
      filings: o.filings,
      seed: o.seed,
      pdf: o.pdf,
      scope: o.scope,
      outDir,
      onProgress: (done, total) => {
        if (bar) return bar.update(done, total);
        const now = Date.now();
        if (o.progress && (now - last > 2000 || done === total)) {
          last = now;
          say(true, `generated ${done}/${total} filings`);
        }
      },
    });
  } finally {
    bar?.stop();
  }
  fs.writeFileSync(marker, want);
  return jsonl;
}

/** Creates what does not exist yet (tenant, scope, user, grant); a second run appends nothing here. */
async function ensureIdentity(rt: Runtime, ids: ReturnType<typeof demoIds>): Promise<void> {
  const handler = rt.container.get(CommandHandler);
  const identity = rt.container.get(IdentityCommands);
  if (!(await handler.load(tenantDecider, `tenant-${ids.tenantId}`)).state.exists) {
    await identity.createTenant({ tenantId: ids.tenantId, name: 'Demo Insurance Research', datasets: ['naic'], sharing: false }, OPERATOR);
  }
  if (!(await handler.load(scopeDecider, `scope-${ids.scopeId}`)).state.exists) {
    await identity.createScope({ tenantId: ids.tenantId, scopeId: ids.scopeId, name: 'Demo filings desk' }, OPERATOR);
  }
  if (!(await handler.load(userDecider, `user-${ids.userId}`)).state.tenantId) {
    await identity.createUser({ tenantId: ids.tenantId, userId: ids.userId, name: 'Dana Demo', email: 'dana.demo@example.com' }, OPERATOR);
  }
  // GrantRole decides nothing when the role is already held.
  await identity.grant({ scope: ids.scope, userId: ids.userId, role: 'manager' }, OPERATOR);
}

/** Searches the examples try, best first: the first that finds passages in this data set is printed. */
const SEARCH_CANDIDATES: { query: string; intent: string }[] = [
  { query: 'wildfire surcharge roof age', intent: 'how homeowners filings justify wildfire surcharges and roof age rating' },
  { query: 'hurricane deductible', intent: 'compare hurricane deductible options filed by carriers' },
  { query: 'telematics discount', intent: 'usage-based auto programs and how their discounts are filed' },
  { query: 'ransomware sublimit', intent: 'cyber programs that cap ransomware losses with a sublimit' },
  { query: 'rate change', intent: 'recent rate revisions and their selected overall changes' },
];

export interface ExampleTargets {
  state: string;
  filingTypeNormalized: string;
  search: { query: string; intent: string };
  fileId: string | null;
}

/** Picks, from the imported data, a filter, a search and a file that give non-empty answers (the same on every run). */
async function exampleTargets(rt: Runtime): Promise<ExampleTargets> {
  const k = rt.db.knex;
  const top = await k('catalog_filings')
    .select('state', 'filing_type_normalized')
    .count<{ state: string; filing_type_normalized: string; n: string }[]>('* as n')
    .groupBy('state', 'filing_type_normalized')
    .orderBy([{ column: 'n', order: 'desc' }, { column: 'state' }, { column: 'filing_type_normalized' }])
    .limit(1);
  // A real PDF original whose text the import extracted (the first in file-id order).
  const file = await k('files_entries')
    .whereNotNull('text')
    .whereNotNull('content_sha256')
    .where({ mime_type: 'application/pdf', restricted: false })
    .orderBy('file_id')
    .first<{ file_id: string } | undefined>('file_id');
  const index = rt.container.get<SearchIndex>(TOKENS.SearchIndex);
  let search = SEARCH_CANDIDATES[SEARCH_CANDIDATES.length - 1]!;
  for (const c of SEARCH_CANDIDATES) {
    const q = buildSearchQuery({ ...c, includePassages: true, limit: 3 }, { canViewSerff: true }, { offset: 0 });
    const page = await index.search(q);
    if (!page.hits.length) continue;
    const p = await index.passages(q, page.hits.flatMap((h) => h.matches.map((m) => ({ filingId: h.filing.id, fileId: m.fileId }))), 1);
    if ([...p.values()].some((x) => x.length)) {
      search = c;
      break;
    }
  }
  return { state: top[0]?.state ?? 'TX', filingTypeNormalized: top[0]?.filing_type_normalized ?? 'RATE', search, fileId: file?.file_id ?? null };
}

export function examples(baseUrl: string, apiKey: string, t: ExampleTargets): string[] {
  const h = `-H "Authorization: Bearer ${apiKey}"`;
  const search = JSON.stringify({ ...t.search, includePassages: true, limit: 3 });
  return [
    `curl -s ${h} "${baseUrl}/insurance/filings?state=${t.state}&filingTypeNormalized=${t.filingTypeNormalized}&sort=-submissionDate&limit=5"`,
    `curl -s ${h} -H "Content-Type: application/json" -X POST "${baseUrl}/insurance/filings/search" -d '${search}'`,
    `curl -s ${h} "${baseUrl}/files/${t.fileId ?? '<fileId>'}/text?maxBytes=2000"`,
  ];
}

/**
 * `ifrs demo seed`: the demo tenant, scope, user (manager), a new API key, the generated catalog (with PDF
 * originals) and scope records imported through the real importer, and a few working filings with items and
 * comment threads. Safe to repeat on the same data: identities are reused, an unchanged re-import appends
 * nothing, working filings are created once; only the key is new (a secret is shown once).
 */
export async function seedDemo(rt: Runtime, opts: SeedOptions = {}): Promise<SeedResult> {
  const started = Date.now();
  const seed = opts.seed ?? DEFAULT_SEED;
  const filings = opts.filings ?? DEFAULT_FILINGS;
  const ids = demoIds(seed);
  await ensureIdentity(rt, ids);
  // A new key on every run (a secret is shown once); issued before the import, while the read side is idle.
  const identity = rt.container.get(IdentityCommands);
  const key = await identity.createKey({ userId: ids.userId, readOnly: false, permissions: DEMO_PERMISSIONS }, OPERATOR);
  const jsonl = await generateOnce(rt, { filings, seed, pdf: opts.pdf ?? true, scope: ids.scope, progress: opts.progress });
  say(opts.progress, `importing ${jsonl}${opts.pdf === false ? '' : ' (PDF text extraction included)'} and waiting for the read models`);
  const imported = await runImport(rt, jsonl, { wait: true, progress: !!opts.progress && !!process.stderr.isTTY });
  if (imported.failed) say(true, `${imported.failed} records failed: ${JSON.stringify(imported.errors.slice(0, 3))}`);

  const principal: Principal = {
    keyId: key.keyId,
    userId: ids.userId,
    tenantId: ids.tenantId,
    name: 'Dana Demo',
    email: 'dana.demo@example.com',
    readOnly: false,
    permissions: DEMO_PERMISSIONS,
    tenant: { datasets: ['naic'], sharing: false },
  };
  const workingFilings = await seedWorkingFilings(rt, ids, principal, seed, opts.progress);
  const baseUrl = opts.baseUrl ?? `http://${rt.config.host}:${rt.config.port}/api/v2`;
  const target = await exampleTargets(rt);
  return {
    tenantId: ids.tenantId,
    scope: ids.scope,
    userId: ids.userId,
    keyId: key.keyId,
    apiKey: key.apiKey,
    filings,
    imported: imported.imported,
    failed: imported.failed,
    workingFilings,
    seconds: Math.round((Date.now() - started) / 100) / 10,
    baseUrl,
    examples: examples(baseUrl, key.apiKey, target),
  };
}

/** Whether the database holds any tenant yet (`serve --demo` seeds only then). */
export async function hasAnyTenant(rt: Runtime): Promise<boolean> {
  return Boolean(await rt.db.knex('identity_tenants').first('id'));
}

export interface ServeDemo {
  /** The lines `serve --demo` prints after "listening on ...": the key and the examples against the real address. */
  banner(url: string): Promise<string>;
}

/**
 * `ifrs serve --demo`: seeds when the database has no tenant yet; on a data set seeded before, issues a new
 * key for the demo user; on a data directory with other tenants only, does nothing (null).
 * IFRS_DEMO_FILINGS sets the size of the first seed (default 2,000).
 */
export async function prepareServeDemo(rt: Runtime, env: NodeJS.ProcessEnv = process.env): Promise<ServeDemo | null> {
  let key: { keyId: string; apiKey: string };
  let how: string;
  if (!(await hasAnyTenant(rt))) {
    const filings = env.IFRS_DEMO_FILINGS ? Number(env.IFRS_DEMO_FILINGS) : DEFAULT_FILINGS;
    if (!Number.isInteger(filings) || filings < 0) throw new Error(`IFRS_DEMO_FILINGS must be a non-negative integer, got ${env.IFRS_DEMO_FILINGS}`);
    say(true, `empty data directory: seeding the demo data set (${filings} filings; about a minute for the default size)`);
    const r = await seedDemo(rt, { filings, progress: true });
    say(true, `seeded in ${r.seconds} s: ${r.imported} records imported, ${r.failed} failed`);
    key = r;
    how = `demo data set seeded (${r.filings} catalog filings, ${r.workingFilings.length} working filings in ${r.scope})`;
  } else {
    const ids = demoIds();
    if (!(await rt.db.knex('identity_users').where({ id: ids.userId }).first('id'))) {
      say(true, 'the data directory already has tenants but no demo user: --demo seeds nothing (run `ifrs demo seed` to add the demo data set)');
      return null;
    }
    key = await rt.container.get(IdentityCommands).createKey({ userId: ids.userId, readOnly: false, permissions: DEMO_PERMISSIONS }, OPERATOR);
    how = 'demo data set already present; a new key was issued (keys are shown once)';
  }
  const targets = await exampleTargets(rt);
  return {
    banner: async (url) =>
      [``, `${how}`, `demo API key: ${key.apiKey}`, `try:`, ...examples(url, key.apiKey, targets).map((e) => `  ${e}`), ``].join('\n') + '\n',
  };
}
