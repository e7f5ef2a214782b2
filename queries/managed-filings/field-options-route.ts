import { defineRoute, type RouteModule } from '../../src/http/route';
import { qScalar } from '../../src/http/validation';
import { z } from '../../src/http/zod';
import { DISPOSITIONS, FILING_TYPES, REVIEW_TYPES, SCHEDULE_TYPES } from '../../src/domain/filing-fields';
import { SUB_TOI_CODES, TOI_CODES } from '../../src/domain/toi-codes';

const FIELDS = ['filingType', 'reviewType', 'toiCode', 'subToiCode', 'disposition', 'scheduleType'] as const;
const Query = z.strictObject({
  field: qScalar(z.enum(FIELDS)),
  // An enum, not a cross-parameter rule: every combination the document allows is served, so the
  // document states the whole rule (a generated client or test cannot build a refused pair).
  dependsOn: qScalar(z.enum(TOI_CODES as [string, ...string[]]))
    .optional()
    .openapi({ description: 'A toiCode: narrows the options to those valid with it. With field=subToiCode, that TOI\'s sub-TOI codes (without it: every sub-TOI code); the other fields do not depend on the TOI, so their options are the same with or without it.', example: '04.0' }),
});
const Options = z
  .object({ field: z.string(), dependsOn: z.string().nullable(), options: z.array(z.object({ value: z.string(), label: z.string() })) })
  .openapi('FieldOptions');

const label = (v: string) => v.charAt(0).toUpperCase() + v.slice(1).replace(/_/g, ' ');

/**
 * GET /insurance/managed-filings/field-options?field=...&dependsOn=...: the allowed values of the
 * create form's enumerations. dependsOn (a toiCode) narrows subToiCode to that TOI's codes.
 */
export class FieldOptionsRoute implements RouteModule {
  routes() {
    return [
      defineRoute({
        method: 'get',
        paths: ['/insurance/managed-filings/field-options'],
        operationId: 'getManagedFilingFieldOptions',
        summary: 'Allowed values of a working-filing field',
        description: 'Fields: filingType, reviewType, toiCode, subToiCode, disposition, scheduleType. `dependsOn` (a toiCode) narrows subToiCode to that TOI\'s codes; the other fields do not depend on it. Response {field, dependsOn, options: [{value, label}]}.',
        tags: ['working filings'],
        query: Query,
        responses: { 200: { description: 'The options', schema: Options } },
        handler: async ({ query }) => {
          let values: readonly string[];
          if (query.field === 'subToiCode') {
            values = query.dependsOn ? SUB_TOI_CODES.get(query.dependsOn)! : [...SUB_TOI_CODES.values()].flat();
          } else {
            values = { filingType: FILING_TYPES, reviewType: REVIEW_TYPES, toiCode: TOI_CODES, disposition: DISPOSITIONS, scheduleType: SCHEDULE_TYPES }[query.field];
          }
          const coded = query.field === 'toiCode' || query.field === 'subToiCode';
          return { body: { field: query.field, dependsOn: query.dependsOn ?? null, options: values.map((v) => ({ value: v, label: coded ? v : label(v) })) } };
        },
      }),
    ];
  }
}
