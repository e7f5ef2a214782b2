/**
 * The contract's data tables, copied verbatim from the interface spec ("Managed filing", "Managed filing
 * item" and "States and transitions") and parsed here, so table-driven tests check the service against
 * the spec's own text rather than against a second hand-made transcription of it.
 */

const SUB_TOI_TEXT = `
  - 01.0: 01.0001, 01.0002. 02.1: 02.1000-02.1002. 02.3: 02.3001-02.3004. 03.0: 03.0000. 04.0: 04.0000-04.0005.
  - 05.0: 05.0000-05.0007. 05.1: 05.1000-05.1007. 05.2: 05.2000-05.2007. 06.0: 06.0000-06.0004. 08.0: 08.0000.
  - 09.0: 09.0000-09.0010. 10.0: 10.0000. 11.0: 11.0000-11.0033. 11.1: 11.1000-11.1033. 11.2: 11.2000-11.2033.
  - 12.0: 12.0001, 12.0002. 16.0: 16.0000-16.0005. 17.0: 17.0000-17.0029. 17.1: 17.1000-17.1029. 17.2: 17.2000-17.2029.
  - 18.0: 18.0000-18.0002. 19.0: 19.0000-19.0004. 20.0: 20.0000-20.0004. 21.4: 21.0004. 22.0: 22.0000. 23.0: 23.0000. 24.0: 24.0000.
  - 26.0: 26.0001, 26.0002. 27.0: 27.0000. 28.1: 28.1000. 28.2: 28.2001-28.2006. 28.3: 28.3000. 30.0: 30.0000. 30.1: 30.1000.
  - 33.0: 33.0001-33.0006. 34.0: 34.0000. 35.0: 35.0000-35.0002.
`;

const TOI_TEXT =
  "- `toiCode`: `01.0`, `02.1`, `02.3`, `03.0`, `04.0`, `05.0`, `05.1`, `05.2`, `06.0`, `08.0`, `09.0`, `10.0`, `11.0`, `11.1`, `11.2`, `12.0`, `16.0`, `17.0`, `17.1`, `17.2`, `18.0`, `19.0`, `20.0`, `21.4`, `22.0`, `23.0`, `24.0`, `26.0`, `27.0`, `28.1`, `28.2`, `28.3`, `30.0`, `30.1`, `33.0`, `34.0`, `35.0`, or null.";

const FILING_TYPE_TEXT = 'One of `form`, `rate`, `rule`, `form_rate`, `form_rule`, `rate_rule`, `form_rate_rule`, `adoption`, `withdrawal`.';
const REVIEW_TYPE_TEXT = '`prior_approval`, `file_and_use`, `use_and_file`, `informational`, or null.';
const DISPOSITION_TEXT = '`pending`, `approved`, `filed`, `acknowledged`, `deemed_approved`, `disapproved`, `withdrawn`, `closed`, or null.';
const SCHEDULE_TYPE_TEXT = '`form`, `rate`, `rule`, `supporting_document`, or null.';
const OUTCOME_TEXT = '`APPROVED`, `FILED`, `ACKNOWLEDGED`, `INFORMATIONAL`, `REJECTED`, `WITHDRAWN`, `PENDING`, `UNKNOWN`.';
const FILING_TYPE_NORMALIZED_TEXT =
  '`FORM`, `RATE`, `RULE`, `RATE_RULE`, `FORM_RATE`, `FORM_RULE`, `FORM_RATE_RULE`, `ENDORSEMENT`, `LOSS_COST`, `ADVERTISING`, `CERTIFICATION`, `CONTRACT`, `CONSENT_TO_RATE`, `DEVIATIONS`, `INFORMATIONAL`, `NEW_PROGRAM`, `REPORT`, `SERVICE_CONTRACT`, `UNDERWRITING_GUIDE`, `ANNUAL_FORMS_LIST`, `MANUSCRIPT`, `POLICY_FORM`, `PREDICTIVE_MODEL`, `ORGANIZATION_ADOPTION`, `OTHER`';
const COMMENT_STATUS_TEXT = '`open`, `resolved`';

const backticked = (text: string) => [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1]).filter((v) => v !== 'toiCode');

/** `a-b` is every consecutive code from a to b (same TOI prefix, four-digit suffix). */
function expand(part: string): string[] {
  const [from, to] = part.split('-');
  if (!to) return [from];
  const [prefix, a] = from.split('.');
  const [prefixTo, b] = to.split('.');
  if (prefix !== prefixTo) throw new Error(`a range across prefixes: ${part}`);
  const out: string[] = [];
  for (let n = Number(a); n <= Number(b); n++) out.push(`${prefix}.${String(n).padStart(4, '0')}`);
  return out;
}

/** TOI → its sub-TOI codes, in the spec's order. */
export const SPEC_SUB_TOI: ReadonlyMap<string, readonly string[]> = new Map(
  [...SUB_TOI_TEXT.matchAll(/(\d\d\.\d): ([\d., -]+?)\.(?=\s|$)/g)].map((m) => [m[1], m[2].split(',').map((s) => s.trim()).flatMap(expand)]),
);
export const SPEC_TOI_CODES: readonly string[] = backticked(TOI_TEXT);
export const SPEC_FILING_TYPES = backticked(FILING_TYPE_TEXT);
export const SPEC_REVIEW_TYPES = backticked(REVIEW_TYPE_TEXT);
export const SPEC_DISPOSITIONS = backticked(DISPOSITION_TEXT);
export const SPEC_SCHEDULE_TYPES = backticked(SCHEDULE_TYPE_TEXT);
export const SPEC_NORMALIZED_OUTCOMES = backticked(OUTCOME_TEXT);
export const SPEC_FILING_TYPES_NORMALIZED = backticked(FILING_TYPE_NORMALIZED_TEXT);
export const SPEC_COMMENT_STATUSES = backticked(COMMENT_STATUS_TEXT);

/**
 * Sub-TOI codes just outside each TOI's listed codes: the neighbour below the first and above the last
 * (within the TOI's own prefix) and every gap inside, plus `<toi>000` (21.4000, 28.2000) when it is not listed.
 */
export function subToiNeighbours(toi: string): string[] {
  const codes = SPEC_SUB_TOI.get(toi)!;
  const prefix = codes[0].slice(0, 3);
  const nums = codes.map((c) => Number(c.slice(3)));
  const out = new Set<string>();
  for (let n = Math.min(...nums) - 1; n <= Math.max(...nums) + 1; n++) if (n >= 0) out.add(`${prefix}${String(n).padStart(4, '0')}`);
  out.add(`${toi}000`);
  return [...out].filter((c) => !codes.includes(c));
}
