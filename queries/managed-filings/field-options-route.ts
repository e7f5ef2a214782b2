import { invalidRequest } from '../../src/domain/errors';
import { defineRoute, type RouteModule } from '../../src/http/route';
import { qScalar } from '../../src/http/validation';
import { z } from '../../src/http/zod';
import { DISPOSITIONS, FILING_TYPES, REVIEW_TYPES, SCHEDULE_TYPES } from '../../commands/managed-filings/filing-fields';
import { SUB_TOI_CODES, TOI_CODES } from '../../src/domain/toi-codes';

const FIELDS = ['filingType', 'reviewType', 'toiCode', 'subToiCode', 'disposition', 'scheduleType'] as const;
const Query = z.strictObject({
  field: qScalar(z.enum(FIELDS)),
  dependsOn: qScalar(z.string().min(1).max(20))
    .optional()
    .openapi({ description: 'A toiCode; required with field=subToiCode and refused with any other field (400).', example: '04.0' }),
});
const Options = z
  .object({ field: z.string(), dependsOn: z.string().nullable(), options: z.array(z.object({ value: z.string(), label: z.string() })) })
  .openapi('FieldOptions');

const label = (v: string) => v.charAt(0).toUpperCase() + v.slice(1).replace(/_/g, ' ');

/**
 * GET /insurance/managed-filings/field-options?field=...&dependsOn=...: the allowed values of the
 * create form's enumerations. subToiCode needs dependsOn (a toiCode) and lists that TOI's codes.
 */
export class FieldOptionsRoute implements RouteModule {
  routes() {
    return [
      defineRoute({
        method: 'get',
        paths: ['/insurance/managed-filings/field-options'],
        operationId: 'getManagedFilingFieldOptions',
        summary: 'Allowed values of a working-filing field',
        description: 'Fields: filingType, reviewType, toiCode, subToiCode (dependsOn = a toiCode, required), disposition, scheduleType. Response {field, dependsOn, options: [{value, label}]}.',
        tags: ['working filings'],
        query: Query,
        responses: { 200: { description: 'The options', schema: Options } },
        handler: async ({ query }) => {
          let values: readonly string[];
          if (query.field === 'subToiCode') {
            if (!query.dependsOn) throw invalidRequest('field=subToiCode needs dependsOn=<toiCode>.', [{ location: 'query', path: ['dependsOn'], code: 'required', message: '"dependsOn" is required.' }]);
            if (!SUB_TOI_CODES.has(query.dependsOn)) throw invalidRequest(`Unknown toiCode ${query.dependsOn}.`, [{ location: 'query', path: ['dependsOn'], code: 'invalid_value', message: 'Not a toiCode.' }]);
            values = SUB_TOI_CODES.get(query.dependsOn)!;
          } else {
            if (query.dependsOn !== undefined) throw invalidRequest(`field=${query.field} has no dependency.`, [{ location: 'query', path: ['dependsOn'], code: 'invalid_value', message: 'Only subToiCode depends on a value.' }]);
            values = { filingType: FILING_TYPES, reviewType: REVIEW_TYPES, toiCode: TOI_CODES, disposition: DISPOSITIONS, scheduleType: SCHEDULE_TYPES }[query.field];
          }
          const coded = query.field === 'toiCode' || query.field === 'subToiCode';
          return { body: { field: query.field, dependsOn: query.dependsOn ?? null, options: values.map((v) => ({ value: v, label: coded ? v : label(v) })) } };
        },
      }),
    ];
  }
}
