import Table from 'cli-table3';

type Row = Record<string, unknown>;

const isRow = (v: unknown): v is Row => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A cell: text as it is, anything structured as compact JSON. */
function cell(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v) && v.every((x) => typeof x !== 'object' || x === null)) return v.join(', ');
  return JSON.stringify(v);
}

function rowsTable(name: string, rows: Row[]): string {
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const table = new Table({ head: columns, style: { head: [], border: [] } });
  for (const r of rows) table.push(columns.map((c) => cell(r[c])));
  return `${name} (${rows.length})\n${table.toString()}`;
}

/**
 * A command's result for a person at a terminal: its plain fields as one two-column table, and every list of
 * records as a table of its own (the same content as the JSON, which pipes and `--json` get).
 */
export function renderTables(result: unknown): string {
  if (!isRow(result)) return Array.isArray(result) && result.every(isRow) ? rowsTable('result', result) : cell(result);
  const parts: string[] = [];
  const fields = new Table({ style: { head: [], border: [] } });
  for (const [k, v] of Object.entries(result)) {
    if (Array.isArray(v) && v.length > 0 && v.every(isRow)) continue;
    fields.push({ [k]: cell(v) });
  }
  if (fields.length) parts.push(fields.toString());
  for (const [k, v] of Object.entries(result)) if (Array.isArray(v) && v.length > 0 && v.every(isRow)) parts.push(rowsTable(k, v));
  return parts.join('\n');
}
