import crypto from 'node:crypto';
import type { CatalogFilingFields } from '../../../src/domain/events/catalog';
import type { IndexedFiling } from '../../../src/ports/search-index';

/**
 * A small deterministic corpus of catalog filings whose documents carry distinctive insurance
 * content, for the relevance set. Shared by every SearchIndex adapter (see the contract suite), so
 * Postgres FTS and Elasticsearch are held to the same labelled queries.
 */
export interface CorpusDocument {
  name: string;
  pages: string[];
}

export interface CorpusFiling {
  key: string;
  filing: CatalogFilingFields;
  documents: CorpusDocument[];
}

/** Stable UUIDs from keys (name-based, so reruns and adapters agree). */
export function corpusId(key: string): string {
  const h = crypto.createHash('sha256').update(`relevance:${key}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

interface Topic {
  key: string;
  state: string;
  company: string;
  product: string;
  toi: [string, string, string];
  type: string;
  source?: 'serff' | 'florida_irfs';
  date: string;
  body: string[];
  exhibit?: string;
}

// [typeOfInsurance label, toiCode, subToiCode]
const HO: [string, string, string] = ['Homeowners', '04.0', '04.0000'];
const AUTO: [string, string, string] = ['Personal Auto', '19.0', '19.0001'];
const CYBER: [string, string, string] = ['Cyber Liability', '17.0', '17.0025'];
const CA: [string, string, string] = ['Commercial Auto', '20.0', '20.0000'];
const WC: [string, string, string] = ['Workers Compensation', '16.0', '16.0004'];
const OL: [string, string, string] = ['Other Liability', '17.0', '17.0000'];
const DF: [string, string, string] = ['Dwelling Fire', '01.0', '01.0000'];
const IM: [string, string, string] = ['Inland Marine', '09.0', '09.0000'];
const CMP: [string, string, string] = ['Commercial Multi-Peril', '05.0', '05.0000'];
const MM: [string, string, string] = ['Medical Malpractice', '11.0', '11.0000'];

const TOPICS: Topic[] = [
  { key: 'ca-wildfire-surcharge', state: 'CA', company: 'Golden State Mutual Insurance Company', product: 'Homeowners Elite', toi: HO, type: 'RATE_RULE', date: '2024-04-11',
    body: ['Rule 301 Wildfire Surcharge. A wildfire surcharge applies to dwellings located in high and very high fire hazard severity zones as scored by the wildfire risk model.', 'The wildfire surcharge factor ranges from 1.05 to 1.45 by wildfire risk score band. Structures meeting Safer from Wildfires standards receive a mitigation credit.'] },
  { key: 'co-defensible-space', state: 'CO', company: 'Rocky Mountain Fire and Casualty', product: 'Dwelling Fire Select', toi: DF, type: 'RULE', date: '2023-09-02',
    body: ['Wildfire mitigation credit. Insureds who maintain defensible space of 100 feet around the dwelling, with ember-resistant vents and Class A roofing, qualify for a defensible space credit of 8 percent.', 'The wildland-urban interface inspection confirms defensible space annually.'] },
  { key: 'tx-roof-age-schedule', state: 'TX', company: 'Lone Star Casualty Company', product: 'Texas Homeowners', toi: HO, type: 'FORM_RULE', date: '2024-01-18',
    body: ['Roof Surface Payment Schedule. Losses to the roof surface caused by windstorm or hail are paid according to the roof age schedule.', 'Roof age 0 to 10 years: 100 percent of replacement cost; 11 to 15 years: 70 percent; 16 to 20 years: 50 percent; over 20 years: 30 percent. The roof age schedule applies to all roof materials.'] },
  { key: 'ok-roof-acv', state: 'OK', company: 'Prairie Farmers Insurance Exchange', product: 'Homeowners Advantage', toi: HO, type: 'FORM', date: '2023-03-15',
    body: ['Actual Cash Value Roof Surfacing Endorsement. Windstorm and hail losses to roof surfacing are settled at actual cash value, with depreciation for age and condition.', 'Cosmetic damage to metal roof surfacing from hail is excluded.'] },
  { key: 'fl-hurricane-deductible', state: 'FL', company: 'Sunshine Coastal Insurance Company', product: 'HO-3 Florida', toi: HO, type: 'RATE', date: '2024-06-03',
    body: ['Hurricane deductible options. The policyholder may select a hurricane deductible of 2 percent, 5 percent or 10 percent of Coverage A. The hurricane deductible applies once per calendar year.', 'Hurricane deductible credits: 5 percent option receives a credit of 7.5 percent on the hurricane premium; 10 percent option receives 14 percent.'] },
  { key: 'sc-named-storm-deductible', state: 'SC', company: 'Palmetto Shore Insurance', product: 'Coastal Homeowners', toi: HO, type: 'RULE', date: '2022-08-22',
    body: ['Named storm deductible. For dwellings within the coastal territories, a named storm deductible of 3 percent applies to losses from a storm named by the National Hurricane Center.', 'Beach and seacoast territories 1 through 4 use the named storm deductible.'] },
  { key: 'ny-telematics-app', state: 'NY', company: 'Empire Auto Insurance Company', product: 'DriveSmart', toi: AUTO, type: 'RATE_RULE', date: '2024-02-27',
    body: ['Usage-based insurance program. Drivers enroll through a smartphone app that records hard braking, rapid acceleration, phone handling and late-night driving.', 'A participation discount of 10 percent applies at enrollment; the renewal telematics discount ranges up to 30 percent based on the driving score.'] },
  { key: 'oh-telematics-mileage', state: 'OH', company: 'Buckeye Mutual Auto', product: 'PayPerMile', toi: AUTO, type: 'RATE', date: '2023-11-09',
    body: ['Mileage-based pricing. A plug-in device in the vehicle diagnostic port reports miles driven; the premium combines a base rate with a per-mile rate.', 'The per-mile rate is capped at 250 miles per day.'] },
  { key: 'cyber-ransomware-sublimit', state: 'IL', company: 'Midwest Specialty Insurance', product: 'CyberShield Commercial', toi: CYBER, type: 'FORM_RATE', date: '2024-05-20',
    body: ['Ransomware and cyber extortion. Coverage for ransomware payments and extortion expenses is subject to a ransomware sublimit of 250,000 and a 50 percent coinsurance.', 'Ransomware sublimit options of 500,000 and 1,000,000 are available with evidence of multi-factor authentication and offline backups.'] },
  { key: 'cyber-social-engineering', state: 'NJ', company: 'Garden State Indemnity', product: 'Cyber Select', toi: CYBER, type: 'FORM', date: '2023-07-14',
    body: ['Social Engineering Fraud Endorsement. Covers loss of funds from fraudulent instruction received by e-mail impersonating a vendor or executive, including funds transfer fraud.', 'Verification of payment change requests by call-back is a condition of coverage.'] },
  { key: 'objection-letter-indication', state: 'WA', company: 'Cascade Insurance Company', product: 'Personal Auto Washington', toi: AUTO, type: 'RATE', date: '2024-03-05',
    body: ['Objection letter from the Office of the Insurance Commissioner. The Department objects to the indicated rate change: the company has not supported the credibility standard or the complement of credibility.', 'Please provide loss development triangles and explain the selected trend factors within 30 days of this objection.'] },
  { key: 'pa-auto-rate-increase', state: 'PA', company: 'Keystone Auto Insurance', product: 'Private Passenger Auto', toi: AUTO, type: 'RATE', date: '2024-07-01',
    body: ['Actuarial memorandum. The indicated rate change for private passenger auto is +12.4 percent; the company selects an overall rate change of +8.9 percent.', 'Bodily injury and collision coverages drive the indication; loss trend of 7 percent per year.'] },
  { key: 'mi-pip-choice', state: 'MI', company: 'Great Lakes Auto Insurance', product: 'Michigan Auto', toi: AUTO, type: 'FORM_RATE', date: '2020-07-02',
    body: ['Personal injury protection choice levels. Under the no-fault reform, insureds choose unlimited PIP medical, 500,000, 250,000, 50,000 for Medicaid enrollees, or an opt-out with qualified health coverage.', 'PIP medical fee schedule savings are reflected in the rates.'] },
  { key: 'wc-loss-cost-adoption', state: 'GA', company: 'Peach State Workers Comp Fund', product: 'Workers Compensation', toi: WC, type: 'LOSS_COST', date: '2024-03-01',
    body: ['Adoption of NCCI loss costs. The company adopts the approved advisory loss costs effective March 1 with a loss cost multiplier of 1.35.', 'Expense constant of 200 and minimum premium rules follow the NCCI Basic Manual.'] },
  { key: 'private-flood', state: 'LA', company: 'Bayou Private Flood', product: 'Private Flood Plus', toi: HO, type: 'NEW_PROGRAM', date: '2023-05-30',
    body: ['Private flood insurance program. Rates use the lowest floor elevation from an elevation certificate, distance to coast and flood zone.', 'The private flood policy meets the mandatory purchase requirements as an alternative to the National Flood Insurance Program.'] },
  { key: 'ca-earthquake', state: 'CA', company: 'Pacific Quake Insurance', product: 'Residential Earthquake', toi: HO, type: 'RATE_RULE', date: '2022-10-10',
    body: ['Earthquake coverage rates vary by soil type, distance to fault and construction. Masonry veneer is excluded unless the masonry veneer coverage option is purchased.', 'Earthquake deductibles of 10, 15 and 20 percent are offered; retrofitted homes receive a seismic retrofit discount.'] },
  { key: 'water-backup', state: 'MN', company: 'North Star Mutual', product: 'Homeowners Plus', toi: HO, type: 'FORM', date: '2023-12-12',
    body: ['Water back-up and sump discharge or overflow endorsement. Covers direct physical loss caused by water which backs up through sewers or drains, subject to a sublimit of 10,000.', 'Higher water back-up limits of 25,000 are available.'] },
  { key: 'dog-liability-exclusion', state: 'OH', company: 'Heartland Home Insurance', product: 'Homeowners Standard', toi: HO, type: 'FORM', date: '2021-04-19',
    body: ['Animal liability exclusion. Personal liability does not apply to bodily injury caused by any dog with a prior bite history or by the listed breeds.', 'A canine liability buy-back endorsement restores coverage up to 100,000.'] },
  { key: 'ev-battery', state: 'WA', company: 'Evergreen Auto Mutual', product: 'Auto Plus', toi: AUTO, type: 'FORM', date: '2024-08-15',
    body: ['Electric vehicle endorsement. Covers the high-voltage battery of an electric vehicle at replacement cost, charging equipment at home, and roadside towing to the nearest charging station.', 'Battery degradation is not covered.'] },
  { key: 'rideshare-gap', state: 'AZ', company: 'Desert Auto Insurance', product: 'Rideshare Driver', toi: AUTO, type: 'FORM', date: '2022-02-14',
    body: ['Transportation network company endorsement. Covers the period when a driver is logged into the TNC app waiting for a ride request, the gap not covered by the TNC policy.', 'Coverage ends when a passenger is accepted.'] },
  { key: 'trucking-radius', state: 'IN', company: 'Crossroads Commercial Insurance', product: 'Trucking Program', toi: CA, type: 'RATE_RULE', date: '2023-10-01',
    body: ['Commercial auto radius of operation rating. Local radius up to 50 miles, intermediate 51 to 200 miles, long haul over 200 miles.', 'Fleet experience rating applies to fleets of five or more power units.'] },
  { key: 'bop-restaurant', state: 'NC', company: 'Carolina Business Insurance', product: 'Restaurant BOP', toi: CMP, type: 'FORM', date: '2022-06-06',
    body: ['Businessowners policy for restaurants. Food spoilage coverage for perishable stock from power outage or refrigeration breakdown, with a 10,000 limit.', 'Liquor liability is available by endorsement.'] },
  { key: 'personal-umbrella', state: 'VA', company: 'Old Dominion Insurance', product: 'Personal Umbrella', toi: OL, type: 'FORM_RATE', date: '2023-01-23',
    body: ['Personal umbrella policy with excess uninsured and underinsured motorist coverage following form to the underlying auto policy.', 'Required underlying limits are 250,000 per person and 500,000 per accident.'] },
  { key: 'pet-wellness', state: 'TX', company: 'Companion Pet Insurance', product: 'Pet Health', toi: IM, type: 'NEW_PROGRAM', date: '2024-09-09',
    body: ['Pet insurance for dogs and cats covering accidents and illness with a wellness rider for vaccinations, dental cleaning and routine exams.', 'Pre-existing conditions are excluded; waiting period of 14 days for illness.'] },
  { key: 'credit-insurance-score', state: 'OR', company: 'Willamette Mutual', product: 'Auto and Home', toi: AUTO, type: 'RULE', date: '2021-11-30',
    body: ['Use of credit-based insurance scores. An adverse action notice is sent when the insurance score increases the premium.', 'Extraordinary life circumstances such as catastrophic illness or death of a spouse allow an exception to the credit-based insurance score.'] },
  { key: 'predictive-model-glm', state: 'MO', company: 'Show Me Insurance Company', product: 'Homeowners Predictive', toi: HO, type: 'PREDICTIVE_MODEL', date: '2024-02-02',
    body: ['Predictive model documentation. A generalized linear model with a Tweedie distribution and log link estimates pure premium; territory relativities are smoothed spatially.', 'Model validation uses lift charts and a Gini coefficient on holdout data.'] },
  { key: 'al-fortified-roof', state: 'AL', company: 'Gulf Coast Home Insurance', product: 'Alabama Homeowners', toi: HO, type: 'RATE_RULE', date: '2023-04-04',
    body: ['Wind mitigation discounts for IBHS FORTIFIED Roof, FORTIFIED Silver and FORTIFIED Gold designations.', 'A FORTIFIED Roof designation reduces the wind premium by up to 35 percent.'] },
  { key: 'condo-loss-assessment', state: 'IL', company: 'Lakeshore Condo Insurance', product: 'Unit Owners HO-6', toi: HO, type: 'FORM', date: '2022-12-01',
    body: ['Unit-owners form HO-6. Loss assessment coverage pays the insured share of an assessment by the condominium association for a covered loss to common property.', 'Loss assessment limits up to 50,000 are available.'] },
  { key: 'manufactured-home', state: 'GA', company: 'Southern Manufactured Housing Insurance', product: 'Mobile Home Owners', toi: HO, type: 'RATE', date: '2021-08-08',
    body: ['Manufactured home rating. A tie-down discount applies when the mobile home is anchored with tie-downs meeting state installation standards.', 'Skirting and park location factors apply.'] },
  { key: 'farm-equipment-breakdown', state: 'IA', company: 'Heartland Farm Mutual', product: 'Farmowners', toi: CMP, type: 'FORM', date: '2023-02-17',
    body: ['Farm equipment breakdown endorsement covering mechanical and electrical breakdown of irrigation pumps, grain dryers and milking equipment.', 'Spoilage of milk following breakdown is included.'] },
  { key: 'medmal-tail', state: 'PA', company: 'Keystone Physicians Mutual', product: 'Physicians Professional Liability', toi: MM, type: 'FORM_RATE', date: '2022-05-05',
    body: ['Claims-made professional liability with an extended reporting period endorsement (tail coverage) available on retirement, death or disability at no charge.', 'Prior acts coverage (nose) is available for physicians changing carriers.'] },
  { key: 'epli-wage-hour', state: 'CA', company: 'Sierra Management Liability', product: 'Employment Practices Liability', toi: OL, type: 'FORM', date: '2024-01-09',
    body: ['Employment practices liability with a wage and hour defense costs sublimit of 100,000 for claims under the Fair Labor Standards Act and state wage laws.', 'Third-party discrimination coverage is included.'] },
  { key: 'boat-haul-out', state: 'FL', company: 'Sunshine Marine Insurance', product: 'Yacht and Boat', toi: IM, type: 'FORM', date: '2023-06-21',
    body: ['Watercraft policy with hurricane haul-out reimbursement of 50 percent of the cost to haul the boat out of the water when a hurricane warning is issued.', 'Named windstorm deductible of 5 percent applies to boats in the water.'] },
  { key: 'identity-theft', state: 'NV', company: 'Silver State Insurance', product: 'Identity Recovery', toi: HO, type: 'FORM', date: '2022-09-13',
    body: ['Identity theft expense coverage reimburses lost wages, attorney fees and notary costs to restore identity records after an identity fraud.', 'A case manager assists with identity restoration.'] },
  { key: 'home-sharing', state: 'TN', company: 'Volunteer Home Insurance', product: 'Homeowners Choice', toi: HO, type: 'FORM', date: '2024-10-02',
    body: ['Home-sharing host activities endorsement for short-term rental of the residence premises through an online platform, up to 180 nights per year.', 'Theft by guests is covered up to 5,000.'] },
  { key: 'solar-panels', state: 'AZ', company: 'Sonoran Home Insurance', product: 'Homeowners Solar', toi: HO, type: 'FORM', date: '2023-08-28',
    body: ['Solar panel coverage for roof-mounted and ground-mounted photovoltaic systems, including inverters and batteries, at replacement cost.', 'Loss of net-metering income is covered up to 1,000.'] },
  { key: 'do-side-a', state: 'DE', company: 'First State Executive Risk', product: 'Directors and Officers', toi: OL, type: 'FORM', date: '2021-03-03',
    body: ['Directors and officers liability with Side A difference-in-conditions coverage for non-indemnifiable loss when the company is insolvent.', 'Side B and Side C entity coverage apply above the retention.'] },
  { key: 'serff-auto-rate', state: 'TX', company: 'Lone Star Casualty Company', product: 'Texas Auto', toi: AUTO, type: 'RATE', source: 'serff', date: '2024-04-30',
    body: ['Texas private passenger auto rate revision with base rate changes by coverage and revised driver class plan.', 'Accident forgiveness is added for drivers claim-free for five years.'] },
];

const GENERIC_LINES = ['Homeowners', 'Personal Auto', 'Commercial Property', 'General Liability', 'Dwelling Fire', 'Inland Marine', 'Workers Compensation', 'Commercial Auto'];
const STATES = ['TX', 'FL', 'CA', 'NY', 'GA', 'OH', 'PA', 'IL', 'NC', 'AZ'];

/** Filings with generic manual content: the haystack that shares the vocabulary of the topics. */
function distractor(i: number): Topic {
  const line = GENERIC_LINES[i % GENERIC_LINES.length];
  const state = STATES[i % STATES.length];
  return {
    key: `generic-${i}`,
    state,
    company: `${['Atlas', 'Summit', 'Harbor', 'Pioneer', 'Liberty Bell', 'Granite'][i % 6]} ${['Insurance Company', 'Mutual', 'Casualty', 'Indemnity'][i % 4]}`,
    product: `${line} Manual`,
    toi: [line, `${String(10 + (i % 9)).padStart(2, '0')}.0`, `${String(10 + (i % 9)).padStart(2, '0')}.0000`],
    type: ['RATE', 'RULE', 'FORM', 'RATE_RULE'][i % 4],
    date: `20${19 + (i % 6)}-${String(1 + (i % 12)).padStart(2, '0')}-15`,
    body: [
      `${line} manual rules: base rates by territory, minimum premium, policy fee and cancellation rules. Deductible options and rate tables are shown in the exhibits.`,
      `The overall rate level change is ${(i % 7) + 1}.${i % 10} percent. Coverage forms are revised for editorial consistency; no change in coverage is intended. Roof, wind and hail definitions are unchanged.`,
    ],
    exhibit: `Exhibit ${i}: rate pages for ${line.toLowerCase()} with territory factors, amount of insurance relativities and protection class factors.`,
  };
}

function toFiling(t: Topic, n: number): CorpusFiling {
  const source = t.source ?? 'florida_irfs';
  const filing: CatalogFilingFields = {
    id: corpusId(t.key),
    source,
    sourceReference: source === 'serff' ? `LSCC-${String(134000000 + n)}` : `${t.date.slice(2, 4)}-${String(100000 + n * 37).slice(0, 6)}`,
    state: t.state,
    companyName: t.company,
    naicCompanyCodes: [String(10000 + ((n * 7919) % 89999)).padStart(5, '0')],
    naicGroupCode: String(100 + n),
    carrierIds: [`carrier_${10000 + n}`],
    groupId: `carrier_group_${100 + n}`,
    productName: t.product,
    typeOfInsurance: t.toi[0],
    subTypeOfInsurance: t.toi[0],
    toiCode: t.toi[1],
    subToiCode: t.toi[2],
    filingType: t.type.replace(/_/g, '/'),
    sourceStatus: 'Approved',
    submissionDate: t.date,
    dispositionDate: t.date,
    businessType: 'Property & Casualty',
    normalizedOutcome: 'APPROVED',
    filingTypeNormalized: t.type,
    stateStatusChangedDate: t.date,
    description: `${t.product} filing`,
  };
  const cover = `Re: ${t.product} filing on behalf of ${t.company}. Please find enclosed the filing for review. We respectfully request approval effective upon filing. Sincerely, Compliance Department`;
  const documents: CorpusDocument[] = [
    { name: 'Cover Letter.pdf', pages: [cover] },
    { name: `${t.product} ${t.type === 'FORM' ? 'Endorsement' : 'Rule and Rate Pages'}.pdf`, pages: t.body },
  ];
  if (t.exhibit) documents.push({ name: 'Rate Exhibit.pdf', pages: [t.exhibit] });
  return { key: t.key, filing, documents };
}

/** ~85 filings: every topic plus 48 generic ones. Deterministic. */
export function buildRelevanceCorpus(): CorpusFiling[] {
  const topics = [...TOPICS, ...Array.from({ length: 48 }, (_, i) => distractor(i))];
  return topics.map((t, n) => toFiling(t, n + 1));
}

/** The corpus as the SearchIndex port takes it (file ids derived from filing and document name). */
export function toIndexedFilings(corpus: CorpusFiling[]): IndexedFiling[] {
  return corpus.map((c) => ({
    filing: c.filing,
    version: 1,
    documents: c.documents.map((d) => ({
      fileId: corpusId(`${c.key}/${d.name}`),
      name: d.name,
      versionId: null,
      textRevision: crypto.createHash('sha256').update(d.pages.join('\f')).digest('hex').slice(0, 16),
      pages: d.pages.map((text, i) => ({ page: i + 1, text })),
    })),
  }));
}
