import assert from 'node:assert/strict';
import { filterProblems, filterSchemaVariants } from '../../../queries/search/search-filters';

type Schema = { type?: string; const?: string; enum?: string[]; pattern?: string; maxLength?: number; minItems?: number; items?: Schema; format?: string };
type Variant = { properties: { field: Schema; operator: Schema; value: Schema }; required: string[] };

/** A value the schema accepts, built from the schema alone. */
function sample(s: Schema): unknown {
  if (s.type === 'array') return Array.from({ length: s.minItems ?? 1 }, () => sample(s.items!));
  if (s.format === 'date') return '2025-01-02';
  if (s.enum) return s.enum[0];
  if (s.pattern === '^[A-Za-z]{2}$') return 'TX';
  if (s.pattern === '^\\d{5}$') return '12345';
  if (s.pattern) return '04.0';
  return 'x'.repeat(s.maxLength ?? 1);
}

describe('search filters: the documented union matches what the service accepts', () => {
  const variants = filterSchemaVariants() as unknown as Variant[];
  const operatorsOf = (v: Variant) => (v.properties.operator.const ? [v.properties.operator.const] : v.properties.operator.enum!);

  it('rule: every documented field/operator/value shape is accepted, and value is required', () => {
    for (const v of variants) {
      assert.deepEqual(v.required, ['field', 'operator', 'value']);
      for (const operator of operatorsOf(v)) {
        const f = { field: v.properties.field.const!, operator, value: sample(v.properties.value) };
        assert.deepEqual(filterProblems(f), [], JSON.stringify(f));
        assert.notDeepEqual(filterProblems({ ...f, value: undefined }), [], `${f.field} ${operator} without value`);
      }
    }
  });

  it('rule: an operator a field does not document is refused, and a string one past maxLength is refused', () => {
    for (const v of variants) {
      const field = v.properties.field.const!;
      const documented = new Set(variants.filter((x) => x.properties.field.const === field).flatMap(operatorsOf));
      for (const op of ['eq', 'in', 'contains', 'containsAny', 'notContainsAny', 'gte', 'lte', 'between'].filter((o) => !documented.has(o))) {
        assert.notDeepEqual(filterProblems({ field, operator: op, value: 'x' }), [], `${field} ${op}`);
      }
      const one = v.properties.value.type === 'array' ? v.properties.value.items! : v.properties.value;
      if (one.maxLength && !one.pattern && v.properties.value.type === 'string') {
        const op = operatorsOf(v)[0];
        assert.notDeepEqual(filterProblems({ field, operator: op, value: 'x'.repeat(one.maxLength + 1) }), [], `${field} over maxLength`);
      }
    }
  });
});
