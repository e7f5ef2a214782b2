import { Rng } from './prng';
import { LINE_LABEL, ProductType, REVIEWER_FIRST, REVIEWER_LAST } from './vocabulary';
import type { DocContext, DocKind } from './document-types';

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
export function longDate(iso: string): string {
  const [y, m, d] = iso.split('-');
  return `${MONTHS[Number(m) - 1]} ${Number(d)}, ${y}`;
}
function pct(x: number): string {
  return `${x >= 0 ? '+' : ''}${x.toFixed(1)}%`;
}
function money(n: number): string {
  return '$' + Math.round(n).toLocaleString('en-US');
}
export function titleCase(s: string): string {
  return s.replace(/(^|[\s/-])([a-z])/g, (_m, pre: string, c: string) => pre + c.toUpperCase());
}
function cap(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

const DEFINITIONS: [string, string][] = [
  ['Bodily injury', 'bodily harm, sickness or disease, including required care, loss of services and death that results'],
  ['Property damage', 'physical injury to or destruction of tangible property, including all resulting loss of use of that property'],
  ['Occurrence', 'an accident, including continuous or repeated exposure to substantially the same general harmful conditions'],
  ['Residence premises', 'the one-family dwelling where you reside, shown as the residence premises in the Declarations'],
  ['Covered auto', 'an auto shown in the Declarations, a newly acquired auto, or a temporary substitute auto'],
  ['Computer system', 'computer hardware, software and associated input and output devices owned or leased by you'],
  ['Extortion threat', 'a threat to release, divulge, encrypt, destroy or use confidential information or to damage a computer system unless a ransom is paid'],
  ['Named storm', 'a storm system that has been named by the National Hurricane Center of the National Weather Service'],
  ['Actual cash value', 'the cost to repair or replace damaged property with material of like kind and quality, less depreciation'],
  ['Insured location', 'the residence premises and any premises used by you in connection with the residence premises'],
  ['Employee', 'a leased worker, but not a temporary worker or an independent contractor'],
  ['Wildfire', 'an uncontrolled fire in vegetation, including a fire that spreads from vegetation to structures'],
];

const COUNTIES = ['Adams', 'Jefferson', 'Franklin', 'Washington', 'Lincoln', 'Madison', 'Monroe', 'Jackson', 'Marion', 'Greene',
  'Clay', 'Union', 'Harrison', 'Polk', 'Warren', 'Hamilton', 'Marshall', 'Wayne', 'Montgomery', 'Carroll', 'Lake', 'Shelby',
  'Douglas', 'Grant', 'Lee', 'Fayette', 'Pike', 'Benton', 'Calhoun', 'Cass'];

const PERILS: Record<ProductType, string[]> = {
  homeowners: ['wind and hail', 'wildfire', 'non-weather water damage', 'theft', 'fire and lightning', 'hurricane', 'freezing'],
  dwelling_fire: ['fire and lightning', 'wind and hail', 'vandalism', 'wildfire', 'hurricane'],
  personal_auto: ['bodily injury liability', 'property damage liability', 'collision', 'comprehensive', 'uninsured motorist', 'medical payments'],
  commercial_auto: ['liability', 'collision', 'comprehensive', 'cargo', 'hired auto physical damage'],
  commercial_property: ['fire', 'wind and hail', 'water damage', 'equipment breakdown', 'named storm'],
  businessowners: ['property', 'liability', 'business income', 'data compromise'],
  workers_comp: ['indemnity', 'medical', 'occupational disease'],
  cyber: ['ransomware extortion', 'data breach', 'business interruption', 'funds transfer fraud', 'media liability'],
  umbrella: ['auto liability excess', 'premises liability excess', 'watercraft liability'],
  inland_marine: ['theft', 'transit', 'collapse', 'fire'],
};

/** A source of sentences for one section of a document. */
export interface Section {
  heading: string;
  /** Sentence makers, drawn without replacement so a section does not repeat itself. */
  templates: ((r: Rng) => string)[];
  /** Lines of a table emitted at the start of the section, if any. */
  table?: (r: Rng) => string[];
}

function termOf(ctx: DocContext, r: Rng): string {
  return r.pick(ctx.terms);
}

function rateSections(ctx: DocContext): Section[] {
  const line = LINE_LABEL[ctx.productType];
  return [
    {
      heading: 'ACTUARIAL MEMORANDUM - PURPOSE AND SUMMARY',
      templates: [
        () => `${ctx.companyName} (the "Company") submits this filing to revise rates for its ${ctx.productName} program in ${ctx.stateName}.`,
        () => `The overall indicated rate change is ${pct(ctx.indicatedChange)} and the Company has selected an overall change of ${pct(ctx.selectedChange)}, effective ${longDate(ctx.effectiveDate)} for new and renewal business.`,
        (r) => `The proposed changes affect approximately ${r.int(800, 240000).toLocaleString('en-US')} policyholders with annual written premium of ${money(r.int(2, 450) * 1e5)}.`,
        (r) => `The maximum change for any policyholder is ${pct(ctx.selectedChange + r.int(5, 25))} and the minimum is ${pct(ctx.selectedChange - r.int(5, 20))}, driven by the revised ${termOf(ctx, r)} factors.`,
        () => `This memorandum describes the data, methods and assumptions underlying the ${line} rate level indication for ${ctx.toiLabel}.`,
        () => `The selected change is below the indication to limit policyholder disruption; the remaining indication will be reviewed in the next annual review.`,
      ],
    },
    {
      heading: 'EXPERIENCE PERIOD AND LOSS RATIOS',
      table: (r) => {
        const rows = ['Accident Year   Earned Premium   Incurred Loss & LAE   Loss Ratio'];
        const y0 = Number(ctx.submissionDate.slice(0, 4)) - 6;
        for (let y = y0; y < y0 + 5; y++) {
          const ep = r.int(3, 90) * 1e6 + r.int(0, 999999);
          const lr = r.float(0.48, 0.92);
          rows.push(`${y}            ${money(ep).padEnd(15)}  ${money(ep * lr).padEnd(20)}  ${(lr * 100).toFixed(1)}%`);
        }
        return rows;
      },
      templates: [
        (r) => `Losses are developed to ultimate using ${r.pick(['paid', 'incurred', 'paid and incurred'])} loss development factors based on ${r.int(8, 15)} years of ${ctx.stateName} experience.`,
        (r) => `Catastrophe losses from ${r.pick(PERILS[ctx.productType])} were removed and replaced with a ${r.pick(['modeled', 'long-term average'])} catastrophe provision of ${(r.float(2, 18)).toFixed(1)}% of premium.`,
        (r) => `The five-year weighted loss and LAE ratio is ${r.float(55, 78).toFixed(1)}% compared with a permissible loss ratio of ${r.float(60, 72).toFixed(1)}%.`,
        (r) => `Non-modeled ${r.pick(PERILS[ctx.productType])} losses were capped at the ${r.int(90, 99)}th percentile and the excess spread across all years.`,
        (r) => `Premium was brought to current rate level using the parallelogram method, reflecting rate changes effective ${Number(ctx.submissionDate.slice(0, 4)) - r.int(2, 4)} and ${Number(ctx.submissionDate.slice(0, 4)) - 1}.`,
      ],
    },
    {
      heading: 'TREND',
      templates: [
        (r) => `An annual loss trend of ${r.float(2, 9.5).toFixed(1)}% was selected based on fast track data and the Company's own ${ctx.stateName} severity and frequency experience.`,
        (r) => `Premium trend of ${r.float(0.5, 5).toFixed(1)}% per year reflects changes in amounts of insurance and the distribution of ${termOf(ctx, r)} characteristics.`,
        (r) => `Trend is projected from the average accident date of each experience year to the average accident date of the proposed rating period, a span of ${r.float(2, 4.5).toFixed(2)} years.`,
        (r) => `Frequency has declined ${r.float(0.5, 4).toFixed(1)}% annually while severity has increased ${r.float(4, 11).toFixed(1)}% annually, driven by repair costs and social inflation.`,
      ],
    },
    {
      heading: 'TERRITORIAL RELATIVITIES AND BASE RATES',
      table: (r) => {
        const rows = ['Territory   County            Current Relativity   Proposed Relativity   Base Rate'];
        const n = r.int(5, 9);
        for (let t = 1; t <= n; t++) {
          const cur = r.float(0.7, 1.6);
          rows.push(`${String(t).padStart(2, '0')}          ${r.pick(COUNTIES).padEnd(16)}  ${cur.toFixed(3).padEnd(19)}  ${(cur * r.float(0.94, 1.12)).toFixed(3).padEnd(20)}  ${money(r.int(250, 2400))}`);
        }
        return rows;
      },
      templates: [
        (r) => `The territorial relativity for each territory was derived from a ${r.pick(['generalized linear model', 'credibility-weighted loss cost analysis', 'spatial smoothing model'])} and capped at ${r.int(10, 25)}% change.`,
        (r) => `Territory definitions are unchanged; ${r.int(2, 9)} territories move more than ${r.int(5, 10)}% as a result of updated ${r.pick(PERILS[ctx.productType])} experience.`,
        (r) => `The base rate is revised from ${money(r.int(300, 1800))} to ${money(r.int(300, 1900))} for the ${ctx.productName} base class.`,
      ],
    },
    {
      heading: 'RATING FACTOR CHANGES',
      templates: [
        (r) => `The ${termOf(ctx, r)} factor is revised from ${r.float(0.8, 1.3).toFixed(3)} to ${r.float(0.8, 1.4).toFixed(3)} for the highest risk tier.`,
        (r) => `The Company introduces a ${termOf(ctx, r)} rating variable with relativities ranging from ${r.float(0.75, 0.95).toFixed(2)} to ${r.float(1.05, 1.6).toFixed(2)}.`,
        (r) => `Indicated relativities for ${termOf(ctx, r)} were tempered by ${r.int(25, 75)}% credibility weighting with the current factors.`,
        (r) => `Off-balance of ${r.float(-2, 2).toFixed(2)}% resulting from the revised factors is included in the overall selected change.`,
      ],
    },
    {
      heading: 'EXPENSES, PROFIT AND CREDIBILITY',
      templates: [
        (r) => `Fixed expenses of ${r.float(4, 9).toFixed(1)}% and variable expenses of ${r.float(18, 28).toFixed(1)}% are based on the Company's three-year average expense ratios.`,
        (r) => `The underwriting profit and contingency provision is ${r.float(2, 6).toFixed(1)}%, unchanged from the prior filing.`,
        (r) => `Credibility was assigned using the square root rule with a full credibility standard of ${r.pick(['1,082', '1,084', '683', '5,410'])} claims.`,
        () => `The complement of credibility is the trended prior indication, adjusted for rate changes taken since.`,
        (r) => `Reinsurance costs net of expected recoveries add ${r.float(1, 8).toFixed(1)}% to the indication.`,
      ],
    },
  ];
}

function formSections(ctx: DocContext): Section[] {
  const perils = PERILS[ctx.productType];
  return [
    {
      heading: `${ctx.formPrefix} ${ctx.productName.toUpperCase()} POLICY - ${ctx.stateName.toUpperCase()}`,
      templates: [
        () => `In return for the premium and subject to all the terms of this policy, we will provide the insurance described in this policy issued by ${ctx.companyName}.`,
        () => `Throughout this policy, "you" and "your" refer to the named insured shown in the Declarations, and "we", "us" and "our" refer to the Company providing this insurance.`,
        () => `This policy applies only to loss which occurs during the policy period in the State of ${ctx.stateName}.`,
        () => `Various provisions in this policy restrict coverage; read the entire policy carefully to determine rights, duties and what is and is not covered.`,
      ],
    },
    {
      heading: 'SECTION I - DEFINITIONS',
      templates: [
        (r) => {
          const [word, meaning] = r.pick(DEFINITIONS);
          return `"${word}" means ${meaning}.`;
        },
        (r) => `"${cap(termOf(ctx, r))}" as used in this policy has the meaning given in the ${ctx.formPrefix} schedule attached to the Declarations.`,
        () => `"Policy period" means the period from the inception date to the expiration date shown in the Declarations, or any earlier cancellation date.`,
      ],
    },
    {
      heading: 'SECTION II - COVERAGES',
      templates: [
        (r) => `We cover direct physical loss caused by ${r.pick(perils)} unless the loss is excluded in Section III.`,
        (r) => `We will pay those sums that the insured becomes legally obligated to pay as damages because of ${r.pick(perils)} to which this insurance applies.`,
        (r) => `The most we will pay for loss arising from ${termOf(ctx, r)} is the limit shown in the Declarations, subject to the ${r.pick(['deductible', 'retention', 'waiting period'])} stated there.`,
        (r) => `Additional coverage applies for reasonable expenses incurred to protect covered property from further damage, up to ${money(r.int(5, 50) * 1000)}.`,
      ],
    },
    {
      heading: 'SECTION III - EXCLUSIONS',
      templates: [
        (r) => `We do not insure for loss caused directly or indirectly by ${r.pick(['earth movement', 'flood, surface water or waves', 'war, including undeclared war', 'nuclear hazard', 'intentional loss', 'governmental action', 'wear and tear, marring or deterioration', 'failure of a utility service provider'])}.`,
        (r) => `This insurance does not apply to ${r.pick(perils)} arising out of ${r.pick(['the ownership or use of any aircraft', 'business pursuits of an insured', 'any act committed with the knowledge of an insured', 'the rental of the premises to others'])}.`,
        () => `Such loss is excluded regardless of any other cause or event contributing concurrently or in any sequence to the loss.`,
        (r) => `The ${termOf(ctx, r)} provisions in this section replace those of the prior edition ${ctx.formPrefix} ${r.int(1, 12).toString().padStart(2, '0')} ${r.int(15, 24)}.`,
      ],
    },
    {
      heading: 'SECTION IV - CONDITIONS',
      templates: [
        () => `In case of a loss to covered property, you must give prompt notice to us or our agent and protect the property from further damage.`,
        (r) => `We may cancel this policy by mailing notice to you at least ${r.pick([10, 20, 30, 45, 60])} days before the date cancellation takes effect, as required by ${ctx.stateName} law.`,
        () => `If you and we fail to agree on the amount of loss, either may demand an appraisal of the loss as provided in this condition.`,
        (r) => `No action can be brought against us unless there has been full compliance with all of the terms of this policy and the action is started within ${r.int(1, 5)} years after the date of loss.`,
      ],
    },
    {
      heading: 'ENDORSEMENTS',
      templates: [
        (r) => `THIS ENDORSEMENT CHANGES THE POLICY. PLEASE READ IT CAREFULLY. ${ctx.formPrefix} ${r.int(10, 99)} - ${titleCase(termOf(ctx, r))} Endorsement.`,
        (r) => `This endorsement modifies insurance provided under the ${ctx.productName} policy and applies the ${termOf(ctx, r)} shown in the Schedule.`,
        (r) => `Schedule: ${cap(termOf(ctx, r))} - ${r.pick(['1%', '2%', '5%', '$2,500', '$10,000', '$25,000', '$250,000', '12 hours', '24 hours'])} of ${r.pick(['Coverage A', 'the policy limit', 'the aggregate limit', 'each claim'])}.`,
        () => `All other terms and conditions of the policy remain unchanged.`,
      ],
    },
  ];
}

function ruleSections(ctx: DocContext): Section[] {
  let ruleNo = 100;
  const rule = (r: Rng): string => {
    ruleNo += r.int(1, 12);
    return `Rule ${ruleNo}`;
  };
  return [
    {
      heading: `${ctx.productName.toUpperCase()} MANUAL - ${ctx.stateName.toUpperCase()} - GENERAL RULES`,
      templates: [
        (r) => `${rule(r)}. Application of Manual: this manual applies to ${LINE_LABEL[ctx.productType]} policies written by ${ctx.companyName} in ${ctx.stateName}.`,
        (r) => `${rule(r)}. Policy Term: policies are written for a term of ${r.pick(['six months', 'one year'])}; premium is computed using the rates in effect on the effective date.`,
        (r) => `${rule(r)}. Minimum Premium: the minimum annual premium is ${money(r.int(75, 750))}, fully earned at inception.`,
        (r) => `${rule(r)}. Whole Dollar Rule: premiums are rounded to the nearest whole dollar at each step of the rating algorithm.`,
      ],
    },
    {
      heading: 'UNDERWRITING ELIGIBILITY',
      templates: [
        (r) => `${rule(r)}. Eligibility: risks with ${r.pick(['more than two losses in the prior three years', 'a roof age over 20 years', 'unrepaired prior damage', 'a lapse in coverage over 30 days', 'more than three at-fault accidents', 'no multi-factor authentication on remote access'])} are ineligible for the preferred tier.`,
        (r) => `${rule(r)}. ${cap(termOf(ctx, r))}: the underwriter shall verify ${termOf(ctx, r)} information from ${r.pick(['an inspection report', 'third-party data', 'the application', 'the prior carrier'])} before binding.`,
        (r) => `Risks in ${r.pick(COUNTIES)} County and ${r.pick(COUNTIES)} County require underwriting approval when the ${termOf(ctx, r)} criteria are not met.`,
        (r) => `Binding authority is suspended within ${r.int(50, 200)} miles of a named storm once a watch or warning has been issued.`,
      ],
    },
    {
      heading: 'RATING ALGORITHM',
      templates: [
        (r) => `Premium = Base Rate x Territorial Relativity x Amount of Insurance Factor x ${cap(termOf(ctx, r))} Factor x Tier Factor + Policy Fee.`,
        (r) => `${rule(r)}. ${cap(termOf(ctx, r))}: apply the factor from Table ${r.int(1, 40)}-${String.fromCharCode(65 + r.int(0, 5))} to the base premium after the deductible adjustment.`,
        (r) => `${rule(r)}. Discounts are applied multiplicatively and the combined discount may not exceed ${r.int(25, 45)}%.`,
        (r) => `Table ${r.int(1, 40)}: ${cap(termOf(ctx, r))} - ${r.pick(['0-5 years', '6-10 years', '11-15 years', '16+ years', 'Tier 1', 'Tier 2', 'Tier 3'])} factor ${r.float(0.7, 1.5).toFixed(3)}.`,
      ],
    },
  ];
}

function correspondenceSections(ctx: DocContext, response: boolean): Section[] {
  let objection = 0;
  const reviewer = (r: Rng): string => `${r.pick(REVIEWER_FIRST)} ${r.pick(REVIEWER_LAST)}`;
  const asks = [
    `support for the selected loss trend, including the data and fitted exponential curves`,
    `an explanation of the ${ctx.terms[0]} factors and the data underlying them`,
    `a comparison of current and proposed premium by territory for a sample of policyholders`,
    `the reason the ${ctx.terms[ctx.terms.length - 1]} provision differs from the approved program`,
    `confirmation that the forms comply with the ${ctx.stateName} readability standard`,
    `the catastrophe model name, version and the modeled average annual loss by county`,
    `a redline of the form showing all changes from the currently approved edition`,
    `the number of policyholders receiving a premium increase greater than 15%`,
  ];
  const heading = response
    ? `RESPONSE TO OBJECTION LETTER - ${ctx.referenceLabel} ${ctx.reference}`
    : `${ctx.stateName.toUpperCase()} DEPARTMENT OF INSURANCE - OBJECTION LETTER - ${ctx.referenceLabel} ${ctx.reference}`;
  return [
    {
      heading,
      templates: [
        (r) => response
          ? `${ctx.companyName} appreciates the Department's review of the ${ctx.productName} filing and offers the following responses.`
          : `Filing Company: ${ctx.companyName}. Product: ${ctx.productName}. Type of Insurance: ${ctx.toiLabel}. Analyst: ${reviewer(r)}.`,
        (r) => response
          ? `Please contact the undersigned, ${reviewer(r)}, Compliance Manager, with any further questions.`
          : `The Department has reviewed the filing and requires the following information before the review can proceed.`,
        (r) => `Please respond within ${r.pick([10, 15, 30])} days; the filing may be ${response ? 'considered' : 'closed as withdrawn'} if a complete response is not received.`,
      ],
    },
    {
      heading: response ? 'RESPONSES' : 'OBJECTIONS',
      templates: [(r) => {
        objection++;
        const ask = r.pick(asks);
        return response
          ? `Response to Objection ${objection}: The Company has attached ${ask}. ${r.pick([`The ${termOf(ctx, r)} relativities were tempered to limit the impact to ${r.int(5, 15)}%.`, 'Exhibit R-' + r.int(1, 12) + ' has been revised accordingly.', 'No other changes were made to the filing.', `The revised ${ctx.formPrefix} form is attached as a replacement.`])}`
          : `Objection ${objection}: Please provide ${ask}. ${r.pick(['Cite the applicable section of the filing memorandum.', 'Amend the filing as necessary.', `Refer to ${ctx.stateName} rate standards requiring rates not be excessive, inadequate or unfairly discriminatory.`, 'An explanatory note in the General Information tab is acceptable.'])}`;
      }],
    },
  ];
}

function supportingSections(ctx: DocContext, kind: DocKind): Section[] {
  if (kind === 'cover_letter' || kind === 'certification') {
    return [{
      heading: kind === 'cover_letter' ? `FILING COVER LETTER - ${ctx.referenceLabel} ${ctx.reference}` : 'CERTIFICATIONS',
      templates: [
        () => `On behalf of ${ctx.companyName}, we submit the enclosed ${ctx.filingType} filing for the ${ctx.productName} program, ${ctx.toiLabel}, ${ctx.subToiLabel}.`,
        () => `The requested effective date is ${longDate(ctx.effectiveDate)} for new business and the first renewal on or after that date.`,
        () => `I certify that this filing complies with the applicable laws and regulations of the State of ${ctx.stateName}, including readability requirements.`,
        (r) => `I, ${r.pick(REVIEWER_FIRST)} ${r.pick(REVIEWER_LAST)}, FCAS, MAAA, am a member of the American Academy of Actuaries and meet its qualification standards to render this opinion.`,
        (r) => `The filing fee of ${money(r.int(50, 500))} has been remitted through the electronic filing system.`,
      ],
    }];
  }
  return [
    {
      heading: `EXPLANATORY MEMORANDUM - ${ctx.productName.toUpperCase()} - ${ctx.stateName.toUpperCase()}`,
      templates: [
        (r) => `The purpose of this filing is to ${r.pick(['introduce', 'revise', 'clarify', 'withdraw and replace'])} the ${termOf(ctx, r)} provisions of the ${ctx.productName} program.`,
        () => `${ctx.companyName} writes ${LINE_LABEL[ctx.productType]} in ${ctx.stateName} under ${ctx.toiLabel} (${ctx.subToiLabel}).`,
        (r) => `The changes are made in response to ${r.pick(['emerging loss experience', 'a market conduct recommendation', 'agent and policyholder feedback', 'reinsurance cost increases', 'a statutory change effective this year'])}.`,
        (r) => `Policyholders will be notified of the ${termOf(ctx, r)} change at least ${r.int(30, 60)} days before renewal.`,
      ],
    },
    {
      heading: 'SUMMARY OF CHANGES',
      templates: [
        (r) => `Page ${r.int(1, 60)}: the ${termOf(ctx, r)} wording is revised to ${r.pick(['broaden', 'restrict', 'clarify'])} coverage; the premium impact is ${pct(r.float(-3, 6))}.`,
        (r) => `Manual page ${r.int(1, 90)}: the ${termOf(ctx, r)} eligibility table is replaced.`,
        (r) => `Form ${ctx.formPrefix} ${r.int(10, 99)}: new optional endorsement; no change to base premium.`,
        () => `The overall impact of this filing is ${pct(ctx.selectedChange)} on ${ctx.state} written premium.`,
      ],
    },
  ];
}

/**
 * Combinatorial sentences for when a section's own sentences run out, so long documents keep varying
 * (and full-text search sees realistic, non-repeating prose).
 */
export function fillerFor(ctx: DocContext, kind: DocKind): (r: Rng) => string {
  const perils = PERILS[ctx.productType];
  switch (kind) {
    case 'actuarial_memorandum':
    case 'rate_exhibits':
      return (r) => `${r.pick(['Exhibit', 'Appendix', 'Schedule', 'Attachment'])} ${r.int(1, 14)}${r.pick(['', '-A', '-B', ', Sheet ' + r.int(1, 6)])} ${r.pick(['shows', 'summarizes', 'details', 'supports'])} the ${r.pick(['indicated', 'selected', 'current', 'proposed', 'capped'])} ${r.pick(['base rates', 'relativities', 'loss costs', 'expense loads', 'deductible factors', 'tier factors', 'increased limits factors'])} ${r.pick(['by territory', 'by coverage', 'by policy form', 'by amount of insurance', 'by tier', 'by accident year', 'by construction class'])}${r.pick(['', ` for ${termOf(ctx, r)}`, ` in ${ctx.stateName}`, `, excluding ${r.pick(perils)}`])}.`;
    case 'policy_form':
    case 'endorsement':
      return (r) => `${r.pick(['Paragraph', 'Item', 'Provision', 'Clause'])} ${String.fromCharCode(65 + r.int(0, 7))}.${r.int(1, 12)} ${r.pick(['is amended to read', 'is deleted and replaced by the following', 'is added', 'is revised'])}: ${r.pick(['coverage for', 'the limit of insurance for', 'the deductible applicable to', 'the exclusion of', 'the duties after loss for'])} ${r.chance(0.5) ? r.pick(perils) : termOf(ctx, r)} ${r.pick(['applies only when shown in the Declarations', 'is subject to the aggregate limit', 'does not apply to property in transit', 'applies per occurrence', 'is reduced by any other valid insurance', 'applies after the deductible is satisfied'])}.`;
    case 'rule_manual':
      return (r) => `${r.pick(['Exception', 'Note', 'Example', 'Procedure'])}: ${r.pick(['when', 'if', 'where'])} ${r.pick(['the risk is located in a coastal county', 'the applicant has prior losses', `${termOf(ctx, r)} cannot be verified`, 'the building is over 40 years old', 'the insured adds a driver mid-term', 'coverage is endorsed mid-term'])}, ${r.pick(['refer to the underwriting department', 'apply the surcharge in Table ' + r.int(1, 40), 'the factor is 1.000', 'premium is computed pro rata', 'the risk is ineligible for the preferred tier', 'obtain an inspection within 60 days'])}.`;
    case 'objection_letter':
    case 'objection_response':
      return (r) => `${r.pick(['Additionally', 'Further', 'In addition', 'Separately'])}, ${r.pick(['the Department notes', 'the reviewer notes', 'the Company notes', 'please note'])} that ${r.pick(['the rate exhibits', 'the form schedule', 'the filing memorandum', 'the actuarial support', 'the redline'])} ${r.pick(['references', 'omits', 'reflects', 'should reflect'])} the ${termOf(ctx, r)} ${r.pick(['change', 'factor', 'provision', 'wording'])} ${r.pick(['on page ' + r.int(2, 40), 'in Exhibit ' + r.int(1, 12), 'for ' + ctx.stateName + ' policyholders', 'effective ' + longDate(ctx.effectiveDate)])}.`;
    case 'explanatory_memorandum':
    case 'cover_letter':
    case 'certification':
      return (r) => `${r.pick(['The Company', ctx.companyName, 'The filer', 'The undersigned'])} ${r.pick(['confirms', 'represents', 'acknowledges', 'notes'])} that ${r.pick(['the forms are used with', 'the rates apply to', 'the rules govern', 'this submission supersedes the prior filing for'])} ${ctx.productName} ${r.pick(['policies', 'risks', 'business'])} ${r.pick([`written in ${ctx.stateName}`, `under ${ctx.toiLabel}`, `effective ${longDate(ctx.effectiveDate)}`, `with ${termOf(ctx, r)} provisions`])}.`;
    default: {
      const never: never = kind;
      throw new Error(`unknown document kind ${String(never)}`);
    }
  }
}

export function sectionsFor(ctx: DocContext, kind: DocKind): Section[] {
  switch (kind) {
    case 'actuarial_memorandum': return rateSections(ctx);
    case 'rate_exhibits': return rateSections(ctx).filter((s) => s.table).concat(rateSections(ctx).slice(4, 5));
    case 'policy_form': return formSections(ctx);
    case 'endorsement': return formSections(ctx).slice(5).concat(formSections(ctx).slice(1, 4));
    case 'rule_manual': return ruleSections(ctx);
    case 'objection_letter': return correspondenceSections(ctx, false);
    case 'objection_response': return correspondenceSections(ctx, true);
    case 'explanatory_memorandum':
    case 'cover_letter':
    case 'certification':
      return supportingSections(ctx, kind);
    default: {
      const never: never = kind;
      throw new Error(`unknown document kind ${String(never)}`);
    }
  }
}
