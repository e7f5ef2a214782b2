/**
 * The contract's type-of-insurance table (interface spec, "Managed filing"): every TOI code and the
 * sub-TOI codes that belong to it. `a-b` ranges are expanded to every consecutive code, keeping the
 * four-digit suffix; note 21.4 owns only 21.0004 (the contract's own table, not a typo we fix).
 */
const TABLE: Record<string, string> = {
  '01.0': '01.0001,01.0002',
  '02.1': '02.1000-02.1002',
  '02.3': '02.3001-02.3004',
  '03.0': '03.0000',
  '04.0': '04.0000-04.0005',
  '05.0': '05.0000-05.0007',
  '05.1': '05.1000-05.1007',
  '05.2': '05.2000-05.2007',
  '06.0': '06.0000-06.0004',
  '08.0': '08.0000',
  '09.0': '09.0000-09.0010',
  '10.0': '10.0000',
  '11.0': '11.0000-11.0033',
  '11.1': '11.1000-11.1033',
  '11.2': '11.2000-11.2033',
  '12.0': '12.0001,12.0002',
  '16.0': '16.0000-16.0005',
  '17.0': '17.0000-17.0029',
  '17.1': '17.1000-17.1029',
  '17.2': '17.2000-17.2029',
  '18.0': '18.0000-18.0002',
  '19.0': '19.0000-19.0004',
  '20.0': '20.0000-20.0004',
  '21.4': '21.0004',
  '22.0': '22.0000',
  '23.0': '23.0000',
  '24.0': '24.0000',
  '26.0': '26.0001,26.0002',
  '27.0': '27.0000',
  '28.1': '28.1000',
  '28.2': '28.2001-28.2006',
  '28.3': '28.3000',
  '30.0': '30.0000',
  '30.1': '30.1000',
  '33.0': '33.0001-33.0006',
  '34.0': '34.0000',
  '35.0': '35.0000-35.0002',
};

function expand(part: string): string[] {
  const [from, to] = part.split('-');
  if (!to) return [from];
  const [prefix, a] = from.split('.');
  const b = to.split('.')[1];
  const out: string[] = [];
  for (let n = Number(a); n <= Number(b); n++) out.push(`${prefix}.${String(n).padStart(4, '0')}`);
  return out;
}

export const SUB_TOI_CODES: ReadonlyMap<string, readonly string[]> = new Map(
  Object.entries(TABLE).map(([toi, spec]) => [toi, spec.split(',').flatMap(expand)]),
);

export const TOI_CODES: readonly string[] = [...SUB_TOI_CODES.keys()];

export function subToiCodesOf(toiCode: string): readonly string[] {
  return SUB_TOI_CODES.get(toiCode) ?? [];
}

/** A sub-TOI belongs to a TOI only through the table; a null sub-TOI fits any (or no) TOI. */
export function subToiFits(toiCode: string | null, subToiCode: string | null): boolean {
  if (subToiCode === null) return true;
  if (toiCode === null) return false;
  return subToiCodesOf(toiCode).includes(subToiCode);
}
