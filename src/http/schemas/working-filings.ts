import { z } from '../zod';
import { DISPOSITIONS, FILING_TYPES, REVIEW_TYPES, SCHEDULE_TYPES } from '../../domain/filing-fields';
import { TOI_CODES, SUB_TOI_CODES } from '../../domain/toi-codes';
import { SCOPE_PATTERN } from '../../read-models/working-filings/filing-access';

/** zod schemas of the working-filing resources: they validate requests and produce the OpenAPI document. */

export const Uuid = z
  .string()
  .regex(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/, 'Must be a UUID.')
  .transform((s) => s.toLowerCase())
  .openapi({ type: 'string', format: 'uuid' });

/** A UUID or null (clears the field); the document says both, as the service accepts both. */
export const NullableUuid = Uuid.nullable().openapi({ type: ['string', 'null'], format: 'uuid' });

export const ScopeString = z
  .string()
  .regex(SCOPE_PATTERN, 'Must be mc: followed by a letter or digit, then letters, digits and hyphens, up to 128 characters.')
  .openapi({ example: 'mc:4b0e8f3a-1c2d-4e5f-8a9b-0c1d2e3f4a5b' });

const DateString = z.iso.date('Must be a date (YYYY-MM-DD).');
const ALL_SUB_TOI = [...SUB_TOI_CODES.values()].flat();

export const FilingTypeSchema = z.enum(FILING_TYPES);
export const ReviewTypeSchema = z.enum(REVIEW_TYPES);
export const DispositionSchema = z.enum(DISPOSITIONS);
export const ToiCodeSchema = z.enum(TOI_CODES as [string, ...string[]]);
export const SubToiCodeSchema = z.enum(ALL_SUB_TOI as [string, ...string[]]);
export const ScheduleTypeSchema = z.enum(SCHEDULE_TYPES);

const tracking = z.string().min(1).max(256);

/** Every editable filing field; create makes five of them required, PATCH none. */
const filingFieldShape = {
  companyId: Uuid,
  jurisdictionId: Uuid,
  primaryProductId: Uuid,
  additionalProductIds: z.array(Uuid).max(100),
  predecessorFilingId: NullableUuid,
  projectId: NullableUuid,
  filingType: FilingTypeSchema,
  description: z.string().min(1).max(20000).nullable(),
  serffTrackingNumber: tracking.nullable(),
  stateTrackingNumber: tracking.nullable(),
  companyTrackingNumber: tracking.nullable(),
  reviewType: ReviewTypeSchema.nullable(),
  toiCode: ToiCodeSchema.nullable(),
  subToiCode: SubToiCodeSchema.nullable(),
  disposition: DispositionSchema.nullable(),
  dispositionDate: DateString.nullable(),
  effectiveFromNew: DateString.nullable(),
  effectiveFromRenewal: DateString.nullable(),
};

/** The subToiCode values allowed with each toiCode, as JSON Schema branches (both fields given). */
const TOI_PAIRS = TOI_CODES.map((toi) => ({
  properties: { toiCode: { const: toi }, subToiCode: { enum: [...SUB_TOI_CODES.get(toi)!, null] } },
  required: ['toiCode', 'subToiCode'],
}));

export const CreateFilingBody = z
  .strictObject({
    scope: ScopeString,
    ...filingFieldShape,
    additionalProductIds: filingFieldShape.additionalProductIds.optional(),
    predecessorFilingId: filingFieldShape.predecessorFilingId.optional(),
    projectId: filingFieldShape.projectId.optional(),
    description: filingFieldShape.description.optional(),
    serffTrackingNumber: filingFieldShape.serffTrackingNumber.optional(),
    stateTrackingNumber: filingFieldShape.stateTrackingNumber.optional(),
    companyTrackingNumber: filingFieldShape.companyTrackingNumber.optional(),
    reviewType: filingFieldShape.reviewType.optional(),
    toiCode: filingFieldShape.toiCode.optional(),
    subToiCode: filingFieldShape.subToiCode.optional(),
    disposition: filingFieldShape.disposition.optional(),
    dispositionDate: filingFieldShape.dispositionDate.optional(),
    effectiveFromNew: filingFieldShape.effectiveFromNew.optional(),
    effectiveFromRenewal: filingFieldShape.effectiveFromRenewal.optional(),
  })
  .openapi('CreateManagedFiling', {
    description: 'Required: scope, companyId, jurisdictionId, primaryProductId, filingType. subToiCode must belong to toiCode (see field-options) and needs one.',
    // The pair rule, stated: a subToiCode (absent or null needs nothing) comes with its toiCode.
    anyOf: [...TOI_PAIRS, { not: { required: ['subToiCode'] } }, { properties: { subToiCode: { const: null } } }] as never,
  });

export const PatchFilingBody = z.strictObject(filingFieldShape).partial().openapi('PatchManagedFiling', {
  description: 'Every field optional; scope and filingMode cannot change. subToiCode is checked against the resulting filing including unchanged fields: given together, toiCode and subToiCode must match (stated); given alone, either must match the other\'s stored value.',
  anyOf: [...TOI_PAIRS, { not: { required: ['toiCode'] } }, { not: { required: ['subToiCode'] } }, { properties: { subToiCode: { const: null } } }] as never,
});

export const Permissions = z.object({ read: z.boolean(), edit: z.boolean(), manageAccess: z.boolean() }).openapi('ManagedFilingPermissions');

// Response schemas only describe (they validate nothing at run time): the formats and values the
// contract promises, so the document tells clients, and the OpenAPI response test checks, the same.
const UuidOut = z.string().openapi({ format: 'uuid' });
const DateOut = z.string().openapi({ format: 'date' });
const TimestampOut = z.string().openapi({ format: 'date-time' });

const baseShape = {
  id: UuidOut,
  // The contract's resource format: `mc:` then a lowercase 36-character UUID.
  scope: z.string().openapi({ pattern: '^mc:[0-9a-f-]{36}$' }),
  displayName: z.string(),
  filingMode: z.enum(['managed', 'reference']).nullable(),
  companyId: UuidOut,
  jurisdictionId: UuidOut,
  primaryProductId: UuidOut,
  filingType: FilingTypeSchema,
  description: z.string().nullable(),
  serffTrackingNumber: z.string().nullable(),
  stateTrackingNumber: z.string().nullable(),
  companyTrackingNumber: z.string().nullable(),
  createdAt: TimestampOut,
  updatedAt: TimestampOut,
};

export const ManagedFilingBase = z.object(baseShape).openapi('ManagedFilingBase');
export const ManagedFilingFull = z
  .object({
    ...baseShape,
    additionalProductIds: z.array(UuidOut),
    predecessorFilingId: UuidOut.nullable(),
    projectId: UuidOut.nullable(),
    reviewType: ReviewTypeSchema.nullable(),
    toiCode: ToiCodeSchema.nullable(),
    subToiCode: SubToiCodeSchema.nullable(),
    disposition: DispositionSchema.nullable(),
    dispositionDate: DateOut.nullable(),
    effectiveFromNew: DateOut.nullable(),
    effectiveFromRenewal: DateOut.nullable(),
    permissions: Permissions,
  })
  .openapi('ManagedFiling');

export const FilingIdParams = z.strictObject({ filingId: z.string() });
export const ItemParams = z.strictObject({ filingId: z.string(), itemId: z.string() });
export const CommentParams = z.strictObject({ filingId: z.string(), commentId: z.string() });

const AttachmentInput = z.strictObject({ artifactId: Uuid, artifactName: z.string().min(1).max(1024).optional() });
const itemInputShape = {
  artifactId: Uuid,
  scheduleType: ScheduleTypeSchema.nullable(),
  scheduleSeqNo: z.number().int().min(1).max(2147483647).nullable(),
  context: z.string().min(1).max(20000),
  attachments: z.array(AttachmentInput).max(100),
};
export const AddItemBody = z
  .strictObject({ ...itemInputShape })
  .partial()
  .required({ artifactId: true })
  .openapi('AddManagedFilingItem', { description: 'Extension. scheduleType and scheduleSeqNo are given together or not at all.' });
export const PatchItemBody = z.strictObject(itemInputShape).partial().openapi('PatchManagedFilingItem', {
  description:
    'All fields optional, last write wins. Both schedule fields null unassigns; the resulting item must have both or neither schedule field set (400 otherwise). Attachment names and versions are resolved from the artifacts (the sent artifactName is ignored).',
});

export const Attachment = z
  .object({ artifactId: UuidOut, artifactVersionId: z.string(), artifactName: z.string(), artifactVersionNumber: z.number().int().min(1) })
  .openapi('ManagedFilingItemAttachment');
export const Item = z
  .object({
    id: UuidOut,
    filingId: UuidOut,
    artifactId: UuidOut,
    artifactVersionId: z.string(),
    scheduleType: ScheduleTypeSchema.nullable(),
    scheduleSeqNo: z.number().int().min(1).max(2147483647).nullable(),
    context: z.string().nullable(),
    attachments: z.array(Attachment),
    createdAt: TimestampOut,
    updatedAt: TimestampOut,
  })
  .openapi('ManagedFilingItem', {
    description:
      "Related working files follow current content: artifactVersionId and each attachment's version and name are the artifact's current ones whenever the item is served (no submission, which would pin them, is recorded). The filing's events keep the version each write saw.",
  });

export const Comment = z
  .object({
    id: z.string(),
    threadId: z.string(),
    parentCommentId: z.string().nullable(),
    commentType: z.enum(['message', 'status_change']),
    actor: z.string(),
    body: z.string(),
    data: z.record(z.string(), z.unknown()),
    deleted: z.boolean(),
    editedAt: TimestampOut.nullable(),
    createdAt: TimestampOut,
    status: z.enum(['open', 'resolved']),
    anchor: z.object({ type: z.literal('whole_resource') }),
    target: z.object({ type: z.literal('record'), recordType: z.literal('filings'), recordId: UuidOut, field: z.string().nullable() }),
  })
  .openapi('FilingComment');
