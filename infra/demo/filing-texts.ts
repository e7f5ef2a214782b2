import type { DocContext, DocKind } from './documents';
import { titleCase } from './documents';
import type { Rng } from './prng';
import { LINE_LABEL } from './vocabulary';

export const DAY_MS = 86400000;

export function isoDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The filing's description, as a filer would write it for its filing type. */
export function describe(r: Rng, ctx: DocContext, filingType: string): string {
  const line = LINE_LABEL[ctx.productType];
  const term = ctx.terms[0]!;
  switch (filingType) {
    case 'Rate':
      return `${line} rate revision for the ${ctx.productName} program in ${ctx.stateName}: overall indicated change ${ctx.indicatedChange}%, selected ${ctx.selectedChange}%, including revised ${term} factors.`;
    case 'Rate/Rule':
      return `Rate and rule revision for ${ctx.productName}: selected overall change ${ctx.selectedChange}%; updates ${term} and ${ctx.terms[1]} rules effective ${ctx.effectiveDate}.`;
    case 'Form/Rate':
      return `New and revised forms with accompanying rates for ${ctx.productName}, introducing ${term} coverage; overall impact ${ctx.selectedChange}%.`;
    case 'Form':
      return `${r.pick(['Revised', 'New', 'Amended'])} ${line} policy forms and endorsements for ${ctx.productName} addressing ${term}.`;
    case 'Rule':
      return `Underwriting and manual rule changes for ${ctx.productName} in ${ctx.stateName}, including ${term} eligibility.`;
    case 'Advertisement':
      return `Advertising material for ${ctx.productName}: ${r.pick(['brochure', 'direct mail piece', 'web page', 'agent flyer'])} describing ${term}.`;
    case 'New Program':
      return `Introduction of the ${ctx.productName} ${line} program in ${ctx.stateName} with forms, rates and rules; features ${term} and ${ctx.terms[1]}.`;
    default:
      throw new Error(`unknown filing type ${filingType}`);
  }
}

export function fileName(r: Rng, ctx: DocContext, kind: DocKind): string {
  const edition = `${String(r.int(1, 12)).padStart(2, '0')} ${ctx.effectiveDate.slice(2, 4)}`;
  switch (kind) {
    case 'actuarial_memorandum': return 'Actuarial Memorandum.pdf';
    case 'rate_exhibits': return `Rate Exhibits - ${ctx.state}.pdf`;
    case 'policy_form': return `${ctx.formPrefix} ${r.int(1, 9).toString().padStart(2, '0')} ${edition} ${ctx.productName} Policy.pdf`;
    case 'endorsement': return `${ctx.formPrefix} ${r.int(10, 99)} ${edition} ${titleCase(ctx.terms[0]!).replace(/\//g, '-')} Endorsement.pdf`;
    case 'rule_manual': return `${ctx.productName} Manual Pages - ${ctx.state}.pdf`;
    case 'objection_letter': return `Objection Letter ${isoDay(Date.parse(ctx.submissionDate) + 20 * DAY_MS)}.pdf`;
    case 'objection_response': return `Response to Objection Letter ${isoDay(Date.parse(ctx.submissionDate) + 35 * DAY_MS)}.pdf`;
    case 'explanatory_memorandum': return 'Explanatory Memorandum.pdf';
    case 'cover_letter': return 'Filing Cover Letter.pdf';
    case 'certification': return 'Certifications.pdf';
    default: {
      const never: never = kind;
      throw new Error(`unknown document kind ${String(never)}`);
    }
  }
}
