import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { Runtime } from '../../runtime';
import { TOKENS } from '../../ports/tokens';
import type { Principal } from '../../domain/principal';
import { CommandHandler } from '../../../commands/command-handler';
import { IdentityCommands } from '../../../commands/identity/identity-commands';
import { tenantDecider } from '../../../commands/identity/tenant';
import { scopeDecider } from '../../../commands/identity/scope';
import { userDecider } from '../../../commands/identity/user';
import { ManagedFilingCommands } from '../../../commands/managed-filings/managed-filing-commands';
import type { FilingType } from '../../domain/filing-fields';
import { SIGNED_UPLOAD_PREFIX, UploadCommands } from '../../../commands/artifacts/upload-commands';
import { runImport } from '../import/import-cli';
import { startProgress } from '../progress';
import type { SearchIndex } from '../../ports/search-index';
import { buildSearchQuery } from '../../../queries/search/search-query';
import { DEFAULT_FILINGS, DEFAULT_SEED, demoRecords, generateDemo } from '../../../infra/demo/generate';
import { renderPdf } from '../../../infra/demo/pdf';
import { uuidFor } from '../../../infra/demo/prng';

const OPERATOR = { actor: 'operator:demo-seed' };
export const DEMO_PERMISSIONS = ['serff:view'];

/** The fixed identities of the demo data set: derived from the seed, so a second seed reuses them. */
export function demoIds(seed = DEFAULT_SEED) {
  const scopeId = uuidFor(seed, 'demo', 'scope');
  return { tenantId: uuidFor(seed, 'demo', 'tenant'), scopeId, scope: `mc:${scopeId}`, userId: uuidFor(seed, 'demo', 'user') };
}

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

const say = (on: boolean | undefined, msg: string) => {
  if (on) process.stderr.write(`demo: ${msg}\n`);
};

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

/** The scope listings of the data set (companies, jurisdictions, products), without generating any filing. */
function scopeListings(seed: number, scope: string) {
  const out = { companies: [] as { id: string; name: string }[], jurisdictions: [] as { id: string; code: string; name: string }[], products: [] as { id: string; name: string }[] };
  for (const r of demoRecords({ filings: 0, seed, scope, pdf: false }) as Iterable<Record<string, string>>) {
    if (r.type === 'scope_company') out.companies.push({ id: r.id!, name: r.name! });
    else if (r.type === 'scope_jurisdiction') out.jurisdictions.push({ id: r.id!, code: r.code!, name: r.name! });
    else if (r.type === 'scope_product') out.products.push({ id: r.id!, name: r.name! });
  }
  return out;
}

/**
 * Uploads through the real upload path: signed token, the bytes to the signed address (the API's own: its
 * handler; object storage's: a PUT to the storage host, as a client would), completion.
 */
async function upload(uploads: UploadCommands, p: Principal, scope: string, name: string, mimeType: string, bytes: Buffer): Promise<string> {
  // The seed calls the upload handler itself and reads only the address's path and query: the host is a placeholder.
  const begun = await uploads.begin(p, { scope, name, mimeType, size: bytes.length }, 'http://localhost');
  const url = new URL(begun.uploadUrl);
  if (url.pathname.startsWith(SIGNED_UPLOAD_PREFIX)) {
    await uploads.receive(begun.uploadToken, Object.fromEntries(url.searchParams), String(bytes.length), Readable.from([bytes]));
  } else {
    const put = await fetch(url, { method: 'PUT', body: bytes });
    if (!put.ok) throw new Error(`demo upload of ${name}: the storage host answered ${put.status} ${await put.text()}`);
  }
  const [done] = await uploads.complete(p, [{ uploadToken: begun.uploadToken }], null);
  if (!done?.success) throw new Error(`demo upload of ${name} failed: ${done && !done.success ? done.error.message : 'no result'}`);
  return (done.artifact as { id: string }).id;
}

interface WorkingFilingPlan {
  filingType: FilingType;
  company: number;
  jurisdiction: number;
  product: number;
  description: string;
  files: { name: string; schedule: 'form' | 'rate' | 'rule' | 'supporting_document'; title: string; pages: string[] }[];
  comments: { body: string; reply?: string; resolve?: boolean }[];
}

function plans(l: ReturnType<typeof scopeListings>): WorkingFilingPlan[] {
  const c = (i: number) => l.companies[i % l.companies.length]!;
  const j = (i: number) => l.jurisdictions[i % l.jurisdictions.length]!;
  const pr = (i: number) => l.products[i % l.products.length]!;
  return [
    {
      filingType: 'rate',
      company: 0,
      jurisdiction: 0,
      product: 0,
      description: `2027 rate revision for ${pr(0).name} in ${j(0).name} (${c(0).name}): +4.2% overall, territory factors refreshed.`,
      files: [
        {
          name: 'actuarial-memorandum.pdf',
          schedule: 'rate',
          title: `Actuarial Memorandum — ${pr(0).name}`,
          pages: [
            `Actuarial Memorandum\n${c(0).name}\n${pr(0).name}, ${j(0).name}\n\nThe indicated overall rate change is +6.1%; the selected change is +4.2%, capped by territory at +9.0%.`,
            `Loss development\nIncurred losses were developed to ultimate with a five-year weighted average of age-to-age factors. Trend: 3.5% annual severity, 0.5% annual frequency.`,
          ],
        },
        { name: 'rate-exhibits.txt', schedule: 'rate', title: '', pages: [`Rate exhibits\nTerritory 1: 1.000 -> 1.045\nTerritory 2: 0.930 -> 0.962\nTerritory 3: 1.120 -> 1.185\nBase rate: $412 -> $429`] },
      ],
      comments: [
        { body: 'The territory 3 factor moves +5.8%; do we have the supporting loss ratios for the memo?', reply: 'Added them to exhibit 2 of the actuarial memorandum.', resolve: true },
        { body: 'Reviewer may ask for the trend selection rationale; draft a paragraph before submission.' },
      ],
    },
    {
      filingType: 'form',
      company: 1,
      jurisdiction: 1,
      product: 1,
      description: `New cyber incident response endorsement for ${pr(1).name} in ${j(1).name} (${c(1).name}).`,
      files: [
        {
          name: 'endorsement-cyber-incident-response.pdf',
          schedule: 'form',
          title: 'Cyber Incident Response Endorsement',
          pages: [
            `CYBER INCIDENT RESPONSE ENDORSEMENT\nThis endorsement modifies insurance provided under the policy.\nWe will pay breach response costs, including forensic investigation, notification and credit monitoring, up to the sublimit shown in the schedule.`,
          ],
        },
      ],
      comments: [{ body: 'Compare the notification cost wording with the form we filed last year before we submit.' }],
    },
    {
      filingType: 'rule',
      company: 2,
      jurisdiction: 2,
      product: 2,
      description: `Underwriting rule update (eligibility and minimum premium) for ${pr(2).name} in ${j(2).name}.`,
      files: [{ name: 'rule-manual-changes.txt', schedule: 'rule', title: '', pages: ['Rule manual changes\nRule 4. Eligibility: risks with more than two losses in three years are referred to underwriting.\nRule 7. Minimum premium: $250 per policy.'] }],
      comments: [],
    },
  ];
}

/** The working filings (mode managed), created through the real command services, once per scope. */
async function seedWorkingFilings(rt: Runtime, ids: ReturnType<typeof demoIds>, p: Principal, seed: number, progress?: boolean): Promise<string[]> {
  const existing = await rt.db.knex('managed_filings').where({ scope_id: ids.scopeId, filing_mode: 'managed' }).orderBy('created_at').select<{ id: string }[]>('id');
  if (existing.length) {
    say(progress, `working filings already present (${existing.length}), not created again`);
    return existing.map((r) => r.id);
  }
  say(progress, 'creating working filings, uploads and comments through the command services');
  const filings = rt.container.get(ManagedFilingCommands);
  const uploads = rt.container.get(UploadCommands);
  const listings = scopeListings(seed, ids.scope);
  const created: string[] = [];
  for (const plan of plans(listings)) {
    const f = (await filings.create(
      p,
      {
        scope: ids.scope,
        companyId: listings.companies[plan.company]!.id,
        jurisdictionId: listings.jurisdictions[plan.jurisdiction]!.id,
        primaryProductId: listings.products[plan.product]!.id,
        filingType: plan.filingType,
        description: plan.description,
        disposition: 'pending',
      },
      null,
    )) as { id: string };
    created.push(f.id);
    let seq = 1;
    for (const file of plan.files) {
      const pdf = file.name.endsWith('.pdf');
      const bytes = pdf ? await renderPdf(file.title, file.pages) : Buffer.from(file.pages.join('\n\n') + '\n', 'utf8');
      const artifactId = await upload(uploads, p, ids.scope, file.name, pdf ? 'application/pdf' : 'text/plain', bytes);
      await filings.addItem(p, f.id, { artifactId, scheduleType: file.schedule, scheduleSeqNo: seq++, context: `Demo ${file.schedule} document` }, null);
    }
    for (const c of plan.comments) {
      const first = (await filings.postComment(p, f.id, { body: c.body }, null)) as { id: string };
      if (c.reply) await filings.postComment(p, f.id, { body: c.reply, parentCommentId: first.id }, null);
      if (c.resolve) await filings.setThreadStatus(p, f.id, first.id, 'resolved', null);
    }
  }
  return created;
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
