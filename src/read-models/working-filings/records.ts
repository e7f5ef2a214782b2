import { type FilingFields, type FilingMode, displayNameOf } from '../../domain/filing-fields';
import type { ManagedFilingState } from '../../domain/managed-filing-state';
import type { CommentState, ItemState, ThreadStatus } from '../../domain/events/managed-filings';
import type { Permissions } from './filing-access';

/** The contract's record shapes, built from read-model rows (queries) or decided state (write answers). */

const iso = (v: Date | string | null): string | null => (v === null ? null : new Date(v).toISOString());

interface FilingCore {
  id: string;
  scope: string;
  filingMode: FilingMode;
  fields: FilingFields;
  createdAt: string;
  updatedAt: string;
}

export function fieldsFromRow(r: Record<string, any>): FilingFields {
  return {
    companyId: r.company_id,
    jurisdictionId: r.jurisdiction_id,
    primaryProductId: r.primary_product_id,
    additionalProductIds: typeof r.additional_product_ids === 'string' ? JSON.parse(r.additional_product_ids) : r.additional_product_ids,
    predecessorFilingId: r.predecessor_filing_id,
    projectId: r.project_id,
    filingType: r.filing_type,
    description: r.description,
    serffTrackingNumber: r.serff_tracking_number,
    stateTrackingNumber: r.state_tracking_number,
    companyTrackingNumber: r.company_tracking_number,
    reviewType: r.review_type,
    toiCode: r.toi_code,
    subToiCode: r.sub_toi_code,
    disposition: r.disposition,
    dispositionDate: r.disposition_date,
    effectiveFromNew: r.effective_from_new,
    effectiveFromRenewal: r.effective_from_renewal,
  };
}

function coreFromRow(r: Record<string, any>): FilingCore {
  return { id: r.id, scope: r.scope, filingMode: r.filing_mode, fields: fieldsFromRow(r), createdAt: iso(r.created_at)!, updatedAt: iso(r.updated_at)! };
}

/** List responses: the base fields of the contract's table only. */
function base(c: FilingCore) {
  const f = c.fields;
  return {
    id: c.id,
    scope: c.scope,
    displayName: displayNameOf(c.id, f),
    filingMode: c.filingMode,
    companyId: f.companyId,
    jurisdictionId: f.jurisdictionId,
    primaryProductId: f.primaryProductId,
    filingType: f.filingType,
    description: f.description,
    serffTrackingNumber: f.serffTrackingNumber,
    stateTrackingNumber: f.stateTrackingNumber,
    companyTrackingNumber: f.companyTrackingNumber,
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
  };
}

function full(c: FilingCore, permissions: Permissions) {
  const f = c.fields;
  return {
    ...base(c),
    additionalProductIds: f.additionalProductIds,
    predecessorFilingId: f.predecessorFilingId,
    projectId: f.projectId,
    reviewType: f.reviewType,
    toiCode: f.toiCode,
    subToiCode: f.subToiCode,
    disposition: f.disposition,
    dispositionDate: f.dispositionDate,
    effectiveFromNew: f.effectiveFromNew,
    effectiveFromRenewal: f.effectiveFromRenewal,
    permissions,
  };
}

export const baseFilingFromRow = (r: Record<string, any>) => base(coreFromRow(r));
export const fullFilingFromRow = (r: Record<string, any>, p: Permissions) => full(coreFromRow(r), p);
export const fullFilingFromState = (s: ManagedFilingState, p: Permissions) =>
  full({ id: s.id!, scope: s.scope!, filingMode: s.filingMode, fields: s.fields!, createdAt: s.createdAt!, updatedAt: s.updatedAt! }, p);

export function itemFromState(i: ItemState) {
  return {
    id: i.id,
    filingId: i.filingId,
    artifactId: i.artifactId,
    artifactVersionId: i.artifactVersionId,
    scheduleType: i.scheduleType,
    scheduleSeqNo: i.scheduleSeqNo,
    context: i.context,
    attachments: i.attachments,
    createdAt: i.createdAt,
    updatedAt: i.updatedAt,
  };
}

export function itemFromRow(r: Record<string, any>) {
  return itemFromState({
    id: r.id,
    filingId: r.filing_id,
    artifactId: r.artifact_id,
    artifactVersionId: r.artifact_version_id,
    scheduleType: r.schedule_type,
    scheduleSeqNo: r.schedule_seq_no,
    context: r.context,
    attachments: typeof r.attachments === 'string' ? JSON.parse(r.attachments) : r.attachments,
    createdAt: iso(r.created_at)!,
    updatedAt: iso(r.updated_at)!,
  });
}

export function commentFromState(filingId: string, c: CommentState, status: ThreadStatus) {
  return {
    id: c.id,
    threadId: c.threadId,
    parentCommentId: c.parentCommentId,
    commentType: c.commentType,
    actor: c.actor,
    body: c.body,
    data: c.data,
    deleted: c.deleted,
    editedAt: c.editedAt,
    createdAt: c.createdAt,
    status,
    anchor: { type: 'whole_resource' as const },
    target: { type: 'record' as const, recordType: 'filings' as const, recordId: filingId, field: null },
  };
}

export function commentFromRow(r: Record<string, any>) {
  return commentFromState(
    r.filing_id,
    {
      id: r.id,
      threadId: r.thread_id,
      parentCommentId: r.parent_comment_id,
      commentType: r.comment_type,
      actor: r.actor,
      body: r.body,
      data: typeof r.data === 'string' ? JSON.parse(r.data) : r.data,
      deleted: r.deleted,
      editedAt: iso(r.edited_at),
      createdAt: iso(r.created_at)!,
    },
    r.status,
  );
}
