import { Readable } from 'node:stream';
import type { Runtime } from '../../runtime';
import type { Principal } from '../../domain/principal';
import { ManagedFilingCommands } from '../../../commands/managed-filings/managed-filing-commands';
import type { FilingType } from '../../domain/filing-fields';
import { SIGNED_UPLOAD_PREFIX, UploadCommands } from '../../../commands/artifacts/upload-commands';
import { demoRecords } from '../../../infra/demo/generate';
import { renderPdf } from '../../../infra/demo/pdf';

import { demoIds, say } from './demo-ids';

/** The scope listings of the data set (companies, jurisdictions, products), without generating any filing. */
export function scopeListings(seed: number, scope: string) {
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
export async function upload(uploads: UploadCommands, p: Principal, scope: string, name: string, mimeType: string, bytes: Buffer): Promise<string> {
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
export async function seedWorkingFilings(rt: Runtime, ids: ReturnType<typeof demoIds>, p: Principal, seed: number, progress?: boolean): Promise<string[]> {
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
