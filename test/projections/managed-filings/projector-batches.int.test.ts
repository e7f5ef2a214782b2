import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import type { ScriptedProjector } from '../../../projections/engine';
import { eventTypesOf } from '../../../projections/projector';
import { runScript } from '../../../infra/postgres/sql-script';
import { ManagedFilingsProjector } from '../../../projections/managed-filings/managed-filings-projector';
import { ManagedFilingItemsProjector } from '../../../projections/managed-filings/items-projector';
import { ManagedFilingCommentsProjector } from '../../../projections/managed-filings/comments-projector';
import { ManagedFilingHistoryProjector } from '../../../projections/managed-filings/history-projector';
import type { RecordedEvent } from '../../../src/domain/events';
import { ProjectorBench, inStreams } from '../../support/projector-batches';

const F1 = crypto.randomUUID();
const F2 = crypto.randomUUID();
const SCOPE_ID = '0b7e3c1e-8a2f-4c55-9d1e-2f4a6b8c0d11';
const OTHER_SCOPE_ID = '0b7e3c1e-8a2f-4c55-9d1e-2f4a6b8c0d22';
const ART = '6a1d2f00-1111-4c55-9d1e-2f4a6b8c0d11';
const ART2 = '6a1d2f00-2222-4c55-9d1e-2f4a6b8c0d11';
const I1 = crypto.randomUUID();
const I2 = crypto.randomUUID();
const C1 = crypto.randomUUID();
const C2 = crypto.randomUUID();
const C3 = crypto.randomUUID();
const S1 = crypto.randomUUID();
/** Quotes, backslashes, `$1` and a semicolon: a literal written into a multi-statement query must keep them as they are. */
const AWKWARD = `O'Brien's \\ "rates"; $1 -- not a comment \\' end`;

const fields = (companyId: string) => ({
  companyId,
  jurisdictionId: crypto.randomUUID(),
  primaryProductId: crypto.randomUUID(),
  additionalProductIds: [crypto.randomUUID()],
  predecessorFilingId: null,
  projectId: null,
  filingType: 'rate',
  description: AWKWARD,
  serffTrackingNumber: 'ABCD-123',
  stateTrackingNumber: null,
  companyTrackingNumber: null,
  reviewType: null,
  toiCode: '04.0',
  subToiCode: null,
  disposition: null,
  dispositionDate: null,
  effectiveFromNew: '2026-01-01',
  effectiveFromRenewal: null,
});
const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString();
const comment = (id: string, threadId: string, parent: string | null, body: string, minute: number, type = 'message', data = {}) => ({
  id,
  threadId,
  parentCommentId: parent,
  commentType: type,
  actor: 'u-1',
  body,
  data,
  deleted: false,
  editedAt: null,
  createdAt: at(minute),
});

/** Every event type of a managed filing stream, interleaved over two filings, with changes of one row in a row. */
function filingEvents(): RecordedEvent[] {
  const f1 = `managedFiling-${F1}`;
  const f2 = `managedFiling-${F2}`;
  const created = (filingId: string, minute: number) => ({
    type: 'ManagedFilingCreated',
    data: { filingId, scope: `mc:${SCOPE_ID}`, scopeId: SCOPE_ID, tenantId: 't-1', filingMode: 'managed', fields: fields(crypto.randomUUID()), createdAt: at(minute), createdBy: 'u-1' },
  });
  const item = (id: string, filingId: string, minute: number) => ({
    type: 'ManagedFilingItemAdded',
    data: { filingId, item: { id, filingId, artifactId: ART, artifactVersionId: 'v1', scheduleType: 'rate', scheduleSeqNo: 1, context: null, attachments: [], createdAt: at(minute), updatedAt: at(minute) } },
  });
  return inStreams([
    { stream: f1, ...created(F1, 1) },
    { stream: f2, ...created(F2, 2) },
    { stream: f1, type: 'ManagedFilingUpdated', data: { filingId: F1, changes: { description: null, additionalProductIds: [], toiCode: '05.0' }, updatedAt: at(3) } },
    { stream: f1, ...item(I1, F1, 4) },
    { stream: f1, type: 'ManagedFilingItemChanged', data: { filingId: F1, itemId: I1, changes: { context: AWKWARD }, updatedAt: at(5) } },
    { stream: f2, ...item(I2, F2, 6) },
    { stream: f1, type: 'ManagedFilingItemChanged', data: { filingId: F1, itemId: I1, changes: { scheduleType: null, scheduleSeqNo: null }, updatedAt: at(7) } },
    {
      stream: f1,
      type: 'ManagedFilingItemChanged',
      data: { filingId: F1, itemId: I1, changes: { artifactId: ART2, artifactVersionId: 'v2', attachments: [{ artifactId: ART, artifactVersionId: 'v1', artifactName: AWKWARD, artifactVersionNumber: 1 }] }, updatedAt: at(8) },
    },
    { stream: f1, type: 'ManagedFilingShared', data: { filingId: F1, scope: `mc:${OTHER_SCOPE_ID}`, scopeId: OTHER_SCOPE_ID, tenantId: 't-2', sharedAt: at(9) } },
    { stream: f1, type: 'FilingCommentPosted', data: { filingId: F1, comment: comment(C1, C1, null, AWKWARD, 10) } },
    { stream: f1, type: 'FilingCommentPosted', data: { filingId: F1, comment: comment(C2, C1, C1, 'a reply', 11) } },
    { stream: f1, type: 'FilingCommentEdited', data: { filingId: F1, commentId: C2, body: `${AWKWARD} (edited)`, editedAt: at(12) } },
    { stream: f1, type: 'FilingThreadResolved', data: { filingId: F1, threadId: C1, comment: comment(S1, C1, C1, '', 13, 'status_change', { status: 'resolved' }) } },
    { stream: f2, type: 'FilingCommentPosted', data: { filingId: F2, comment: comment(C3, C3, null, 'second filing', 14) } },
    { stream: f1, type: 'FilingCommentDeleted', data: { filingId: F1, commentId: C2, deletedAt: at(15), actor: 'u-1' } },
    { stream: f1, type: 'FilingThreadReopened', data: { filingId: F1, threadId: C1, comment: comment(crypto.randomUUID(), C1, C1, '', 16, 'status_change', { status: 'open' }) } },
    { stream: f2, type: 'ManagedFilingUpdated', data: { filingId: F2, changes: { filingMode: 'reference', description: AWKWARD }, updatedAt: at(17) } },
  ]);
}

describe('managed filing projectors: batches', function () {
  this.timeout(120_000);
  let bench: ProjectorBench;
  before(async () => (bench = await ProjectorBench.open()));
  after(async () => bench.close());

  const projectors: ScriptedProjector[] = [new ManagedFilingsProjector(), new ManagedFilingItemsProjector(), new ManagedFilingCommentsProjector(), new ManagedFilingHistoryProjector()];

  for (const p of projectors) {
    it(`rule: ${p.name}: one event per batch, one batch, uneven batches and a replay leave the same tables`, async () => {
      const events = filingEvents().filter((e) => eventTypesOf(p).includes(e.type));
      await bench.assertBatchEquivalence(p, events);
    });

    it(`rule: ${p.name}: its statements sent as one multi-statement query (values written in) leave what apply leaves`, async () => {
      const events = filingEvents().filter((e) => eventTypesOf(p).includes(e.type));
      const key = crypto.randomBytes(3).toString('hex');
      const applied = await bench.tables(p, `ap${key}`);
      await bench.apply(p, applied, events, [2, 1, 3]);
      const scripted = await bench.tables(p, `sc${key}`);
      for (let i = 0, k = 0; i < events.length; k++) {
        const n = [2, 1, 3][k % 3];
        await runScript(bench.knex, p.batchStatements(events.slice(i, i + n), scripted));
        i += n;
      }
      assert.deepEqual(await bench.dump(p, scripted), await bench.dump(p, applied));
    });
  }

  it('rule: the read models keep awkward text exactly (quotes, backslashes, $1) through the multi-statement query', async () => {
    const p: ScriptedProjector = new ManagedFilingItemsProjector();
    const t = await bench.tables(p, `aw${crypto.randomBytes(3).toString('hex')}`);
    const events = filingEvents().filter((e) => eventTypesOf(p).includes(e.type));
    await runScript(bench.knex, p.batchStatements(events, t));
    const row = (await bench.knex(t('managed_filing_items')).where({ id: I1 }).first()) as { context: string; attachments: { artifactName: string }[]; schedule_type: string | null };
    assert.equal(row.context, AWKWARD);
    assert.equal(row.attachments[0].artifactName, AWKWARD);
    assert.equal(row.schedule_type, null);
  });
});
