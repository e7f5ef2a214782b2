/**
 * Vocabulary of the demo data set: the spec's TOI / sub-TOI table and word banks.
 *
 * TOI and sub-TOI codes are exactly the spec's allowed values (interface-spec.md, "Managed filing",
 * allowed values). Names come from reference/filing-facts.md where it gives them; the others are
 * generic labels chosen here ("unconfirmed" in filing-facts is kept as the plain line name, and
 * sub-TOIs without a known name read "<TOI name> Sub-TOI <code>").
 */

type SubToiSpec = [from: string, to: string] | string[];

// Copied from the spec; `a-b` ranges are written as [a, b] and expanded below.
const TOI_SPEC: [code: string, name: string, subs: SubToiSpec, known?: Record<string, string>][] = [
  ['01.0', 'Property', ['01.0001', '01.0002'], {
    '01.0001': 'Commercial Property (Fire and Allied Lines)',
    '01.0002': 'Personal Property (Fire and Allied Lines)',
  }],
  ['02.1', 'Crop', ['02.1000', '02.1002'], {
    '02.1000': 'Crop-Hail Sub-TOI Combinations',
    '02.1001': 'Crop-Hail Non-Federally Reinsured Only',
    '02.1002': 'Crop-Hail Federally Reinsured Only',
  }],
  ['02.3', 'Farm Lines', ['02.3001', '02.3004']],
  ['03.0', 'Personal Farmowners', ['03.0000']],
  ['04.0', 'Homeowners', ['04.0000', '04.0005'], {
    '04.0000': 'Homeowners Sub-TOI Combinations',
    '04.0001': 'Condominium Homeowners',
    '04.0002': 'Mobile Homeowners',
    '04.0003': 'Owner Occupied Homeowners',
    '04.0004': 'Tenant Homeowners',
    '04.0005': 'Other Homeowners',
  }],
  ['05.0', 'Commercial Multi-Peril', ['05.0000', '05.0007']],
  ['05.1', 'Commercial Multi-Peril Non-Liability', ['05.1000', '05.1007']],
  ['05.2', 'Commercial Multi-Peril Liability', ['05.2000', '05.2007']],
  ['06.0', 'Mortgage Guaranty', ['06.0000', '06.0004']],
  ['08.0', 'Ocean Marine', ['08.0000']],
  ['09.0', 'Inland Marine', ['09.0000', '09.0010']],
  ['10.0', 'Financial Guaranty', ['10.0000']],
  ['11.0', 'Medical Professional Liability', ['11.0000', '11.0033']],
  ['11.1', 'Medical Professional Liability Claims Made', ['11.1000', '11.1033']],
  ['11.2', 'Medical Professional Liability Occurrence', ['11.2000', '11.2033']],
  ['12.0', 'Earthquake', ['12.0001', '12.0002']],
  ['16.0', 'Workers Compensation', ['16.0000', '16.0005']],
  ['17.0', 'Other Liability - Claims Made and Occurrence', ['17.0000', '17.0029'], { '17.0021': 'Personal Umbrella' }],
  ['17.1', 'Other Liability - Claims Made Only', ['17.1000', '17.1029'], { '17.1021': 'Personal Umbrella' }],
  ['17.2', 'Other Liability - Occurrence Only', ['17.2000', '17.2029'], { '17.2021': 'Personal Umbrella' }],
  ['18.0', 'Products Liability', ['18.0000', '18.0002']],
  ['19.0', 'Personal Auto', ['19.0000', '19.0004'], {
    '19.0000': 'Personal Auto Combinations',
    '19.0001': 'Private Passenger Auto',
    '19.0002': 'Motorcycle',
    '19.0003': 'Recreational Vehicle',
    '19.0004': 'Other',
  }],
  ['20.0', 'Commercial Auto', ['20.0000', '20.0004']],
  ['21.4', 'Aircraft', ['21.0004']],
  ['22.0', 'Fidelity', ['22.0000']],
  ['23.0', 'Surety', ['23.0000']],
  ['24.0', 'Burglary and Theft', ['24.0000']],
  ['26.0', 'Boiler and Machinery', ['26.0001', '26.0002']],
  ['27.0', 'Credit', ['27.0000']],
  ['28.1', 'Legal', ['28.1000']],
  ['28.2', 'Pet', ['28.2001', '28.2006']],
  ['28.3', 'Identity Theft', ['28.3000']],
  ['30.0', 'Warranty', ['30.0000']],
  ['30.1', 'Service Contracts', ['30.1000']],
  ['33.0', 'Other Lines of Business', ['33.0001', '33.0006']],
  ['34.0', 'Multiline', ['34.0000']],
  ['35.0', 'Miscellaneous', ['35.0000', '35.0002']],
];

function expand(subs: SubToiSpec): string[] {
  // A two-element spec is a range only when both codes share the TOI prefix and are a proper range;
  // explicit lists like ['01.0001', '01.0002'] expand to themselves either way.
  if (subs.length === 2) {
    const [from, to] = subs as [string, string];
    const prefix = from.slice(0, 3);
    const a = Number(from.slice(3));
    const b = Number(to.slice(3));
    if (to.startsWith(prefix) && b > a) {
      const out: string[] = [];
      for (let n = a; n <= b; n++) out.push(`${prefix}${String(n).padStart(4, '0')}`);
      return out;
    }
  }
  return subs.slice();
}

export const TOI_TABLE: Record<string, { name: string; subTois: Record<string, string> }> = (() => {
  const table: Record<string, { name: string; subTois: Record<string, string> }> = {};
  for (const [code, name, subs, known] of TOI_SPEC) {
    const subTois: Record<string, string> = {};
    for (const sub of expand(subs)) subTois[sub] = known?.[sub] ?? `${name} Sub-TOI ${sub}`;
    table[code] = { name, subTois };
  }
  return table;
})();

export const STATES: readonly (readonly [code: string, name: string])[] = [
  ['AL', 'Alabama'], ['AK', 'Alaska'], ['AZ', 'Arizona'], ['AR', 'Arkansas'], ['CA', 'California'],
  ['CO', 'Colorado'], ['CT', 'Connecticut'], ['DE', 'Delaware'], ['DC', 'District of Columbia'],
  ['FL', 'Florida'], ['GA', 'Georgia'], ['HI', 'Hawaii'], ['ID', 'Idaho'], ['IL', 'Illinois'],
  ['IN', 'Indiana'], ['IA', 'Iowa'], ['KS', 'Kansas'], ['KY', 'Kentucky'], ['LA', 'Louisiana'],
  ['ME', 'Maine'], ['MD', 'Maryland'], ['MA', 'Massachusetts'], ['MI', 'Michigan'], ['MN', 'Minnesota'],
  ['MS', 'Mississippi'], ['MO', 'Missouri'], ['MT', 'Montana'], ['NE', 'Nebraska'], ['NV', 'Nevada'],
  ['NH', 'New Hampshire'], ['NJ', 'New Jersey'], ['NM', 'New Mexico'], ['NY', 'New York'],
  ['NC', 'North Carolina'], ['ND', 'North Dakota'], ['OH', 'Ohio'], ['OK', 'Oklahoma'], ['OR', 'Oregon'],
  ['PA', 'Pennsylvania'], ['RI', 'Rhode Island'], ['SC', 'South Carolina'], ['SD', 'South Dakota'],
  ['TN', 'Tennessee'], ['TX', 'Texas'], ['UT', 'Utah'], ['VT', 'Vermont'], ['VA', 'Virginia'],
  ['WA', 'Washington'], ['WV', 'West Virginia'], ['WI', 'Wisconsin'], ['WY', 'Wyoming'],
];
export const STATE_NAME: Record<string, string> = Object.fromEntries(STATES.map(([c, n]) => [c, n]));
/** SERFF states (Florida filings come from IRFS in this data set). */
export const SERFF_STATES = STATES.map(([c]) => c).filter((c) => c !== 'FL');
/** Bigger markets get more filings. */
export const STATE_WEIGHTS: readonly (readonly [string, number])[] = SERFF_STATES.map((c) => [
  c,
  ({ TX: 9, CA: 8, NY: 6, IL: 5, PA: 5, OH: 5, GA: 4, NC: 4, MI: 4, NJ: 4, VA: 3, WA: 3, AZ: 3, CO: 3, LA: 3, SC: 3, OK: 3, MO: 3, TN: 3 } as Record<string, number>)[c] ?? 1.5,
]);

export type ProductType =
  | 'cyber' | 'homeowners' | 'personal_auto' | 'commercial_property' | 'workers_comp' | 'umbrella'
  | 'commercial_auto' | 'dwelling_fire' | 'inland_marine' | 'businessowners';

/** Where each line of business sits in the TOI table (sub-TOIs must belong to their TOI). */
export const PRODUCT_TOIS: Record<ProductType, { toi: string; subTois: string[] }[]> = {
  cyber: [{ toi: '17.1', subTois: ['17.1006', '17.1026'] }, { toi: '17.0', subTois: ['17.0026'] }],
  homeowners: [{ toi: '04.0', subTois: ['04.0003', '04.0001', '04.0004', '04.0002', '04.0000'] }],
  personal_auto: [{ toi: '19.0', subTois: ['19.0001', '19.0000', '19.0002', '19.0003'] }],
  commercial_property: [{ toi: '01.0', subTois: ['01.0001'] }, { toi: '05.1', subTois: ['05.1001', '05.1000'] }],
  workers_comp: [{ toi: '16.0', subTois: ['16.0004', '16.0000', '16.0001'] }],
  umbrella: [{ toi: '17.0', subTois: ['17.0021'] }, { toi: '17.2', subTois: ['17.2021'] }, { toi: '17.1', subTois: ['17.1021'] }],
  commercial_auto: [{ toi: '20.0', subTois: ['20.0000', '20.0001', '20.0002'] }],
  dwelling_fire: [{ toi: '01.0', subTois: ['01.0002'] }],
  inland_marine: [{ toi: '09.0', subTois: ['09.0000', '09.0003', '09.0007'] }],
  businessowners: [{ toi: '05.0', subTois: ['05.0000', '05.0001'] }],
};

export const PRODUCT_TYPE_WEIGHTS: readonly (readonly [ProductType, number])[] = [
  ['homeowners', 24], ['personal_auto', 22], ['commercial_property', 9], ['workers_comp', 8],
  ['cyber', 7], ['umbrella', 6], ['commercial_auto', 9], ['dwelling_fire', 6], ['inland_marine', 4],
  ['businessowners', 5],
];

export const LINE_LABEL: Record<ProductType, string> = {
  cyber: 'Cyber Liability',
  homeowners: 'Homeowners',
  personal_auto: 'Personal Auto',
  commercial_property: 'Commercial Property',
  workers_comp: 'Workers Compensation',
  umbrella: 'Personal Umbrella',
  commercial_auto: 'Commercial Auto',
  dwelling_fire: 'Dwelling Fire',
  inland_marine: 'Inland Marine',
  businessowners: 'Businessowners',
};

/** Distinctive terms per line: each filing mentions a few, so full-text search finds subsets. */
export const LINE_TERMS: Record<ProductType, string[]> = {
  homeowners: ['wildfire surcharge', 'roof age', 'hurricane deductible', 'water backup', 'wind/hail deductible',
    'protective device credit', 'replacement cost settlement', 'ordinance or law coverage', 'Class 4 impact-resistant roof credit', 'mold remediation limit'],
  personal_auto: ['telematics', 'accident forgiveness', 'usage-based insurance', 'multi-car discount',
    'rideshare endorsement', 'advanced driver assistance systems credit', 'uninsured motorist', 'good student discount', 'credit-based insurance score'],
  cyber: ['ransomware sublimit', 'social engineering fraud', 'business interruption waiting period',
    'multi-factor authentication warranty', 'breach response costs', 'regulatory fines and penalties', 'bricking coverage', 'war exclusion'],
  commercial_property: ['territorial relativity', 'protection class', 'coinsurance', 'equipment breakdown',
    'named storm deductible', 'vacancy permit', 'building ordinance', 'sprinkler leakage'],
  workers_comp: ['experience modification', 'loss cost multiplier', 'schedule rating', 'NCCI loss costs',
    'premium discount', 'drug-free workplace credit', 'classification code'],
  umbrella: ['self-insured retention', 'underlying limits', 'drop-down coverage', 'watercraft exclusion', 'excess liability'],
  commercial_auto: ['fleet schedule rating', 'hired and non-owned auto', 'radius of operation', 'telematics',
    'motor carrier filing', 'driver qualification'],
  dwelling_fire: ['roof age', 'wildfire surcharge', 'vacancy clause', 'actual cash value', 'hurricane deductible', 'seasonal dwelling'],
  inland_marine: ['contractors equipment', 'valuable papers', 'scheduled property floater', 'transit coverage', 'builders risk'],
  businessowners: ['territorial relativity', 'business income', 'spoilage coverage', 'data compromise', 'employment practices liability'],
};

/** Rare terms: a few filings only, so searches for them have short, distinctive answers. */
export const RARE_TERMS = [
  'drone surveillance exclusion', 'cannabis dispensary endorsement', 'tiny home eligibility',
  'short-term rental host liability', 'solar panel replacement cost', 'lithium battery storage surcharge',
  'autonomous shuttle pilot program', 'hemp processing facility', 'parametric earthquake trigger',
  'crypto wallet theft sublimit', 'e-bike physical damage', 'geothermal heat pump breakdown',
];

/** Invented names, deliberately not real insurers. */
export const CARRIER_STEMS = [
  'Harborstone', 'Lone Prairie', 'Bluewater', 'Granite Ridge', 'Cedar Hollow', 'Silver Lantern', 'Northfield',
  'Red Mesa', 'Keystone Valley', 'Pinecrest', 'Copper Canyon', 'Magnolia', 'Ironwood', 'Tidewater', 'Summit Peak',
  'Old Mill', 'Sandhill', 'Beacon Point', 'Willow Creek', 'Atlas Plains', 'Heritage Oak', 'Clearwater Bay',
  'Frontier Trail', 'Blue Heron', 'Crescent Harbor', 'Stonebridge', 'Prairie Wind', 'Evergreen Shore',
  'Lakeshore', 'Riverbend', 'Highland Crest', 'Coral Reef', 'Palmetto Grove', 'Golden Gate Valley', 'Sagebrush',
  'Aspen Hollow', 'Brightwater', 'Cardinal', 'Eastgate', 'Falcon Ridge', 'Hawthorne', 'Juniper', 'Kingsport',
  'Larkspur', 'Meridian', 'Oakmont', 'Pelican Bay', 'Quarry Hill', 'Rosewood', 'Sterling Ford', 'Thornbury',
  'Union Square', 'Vista Verde', 'Westbrook', 'Yellowstone Trail', 'Zephyr', 'Amber Fields', 'Birchwood',
  'Cobalt Bay', 'Driftwood', 'Elm Street', 'Foxglove', 'Glacier Point', 'Hillcrest', 'Indigo Lake',
];
export const CARRIER_SUFFIXES = [
  'Insurance Company', 'Mutual Insurance Company', 'Casualty Company', 'Indemnity Company',
  'Fire & Casualty Company', 'Property & Casualty Insurance Company', 'Specialty Insurance Company',
  'General Insurance Company', 'Assurance Company', 'Preferred Insurance Company', 'County Mutual Insurance Company',
];
/** Companies that file but are not in the directory (their filings carry codes matching no carrier). */
export const OUTSIDE_COMPANIES = [
  'Quillfeather Reciprocal Exchange', 'Saltmarsh Farmers Mutual', 'Tall Timber Casualty Company',
  'Windward Surplus Insurance Company', 'Greystone Lloyds Insurance Company', 'Mockingbird Indemnity Company',
  'Three Rivers Fire Insurance Company', 'Copperhead Assurance Company', 'Lantern Bay Mutual Fire Association',
  'Ridgeback Insurance Exchange', 'Ashgrove County Mutual', 'Nightjar Property Insurance Company',
];

export const PRODUCT_WORDS: Record<ProductType, string[]> = {
  cyber: ['CyberGuard', 'Data Shield', 'Breach Defense', 'NetSecure', 'Digital Risk'],
  homeowners: ['HomeChoice', 'Homeowners Elite', 'Home Protector', 'Dwelling Advantage', 'HO-3 Select', 'Hearthside'],
  personal_auto: ['AutoChoice', 'DriveSmart', 'Road Ready', 'Personal Auto Preferred', 'SafeMiles'],
  commercial_property: ['Commercial Property Plus', 'Business Property Advantage', 'Main Street Property', 'Property Select'],
  workers_comp: ['WorkSafe', 'Workers Compensation Program', 'Employer Shield', 'CompAdvantage'],
  umbrella: ['Personal Umbrella', 'Umbrella Plus', 'Excess Shield', 'Family Umbrella'],
  commercial_auto: ['Fleet Advantage', 'Commercial Auto Select', 'Business Auto Program', 'Contractor Auto'],
  dwelling_fire: ['Dwelling Fire DP-3', 'Landlord Protector', 'Rental Dwelling Program'],
  inland_marine: ['Contractors Equipment Floater', 'Inland Marine Select', 'Builders Risk Program'],
  businessowners: ['BOP Advantage', 'Small Business Owners Policy', 'Main Street BOP'],
};

export const REVIEWER_FIRST = ['Dana', 'Marcus', 'Priya', 'Thomas', 'Alicia', 'Kevin', 'Rosa', 'Jamal', 'Linda', 'Howard', 'Mei', 'Carlos'];
export const REVIEWER_LAST = ['Whitfield', 'Okafor', 'Ramanathan', 'Delgado', 'Brennan', 'Kowalski', 'Nguyen', 'Hartley', 'Abernathy', 'Castellanos'];
export const SERFF_PREFIXES = [
  'ALSE', 'KNIC', 'NCCI', 'HRST', 'LPRC', 'BLWT', 'GRRD', 'CDHL', 'SLVL', 'NRFD', 'RDMS', 'KSVL', 'PNCR',
  'CPCY', 'MGNL', 'IRWD', 'TDWT', 'SMPK', 'ISOF', 'AAIS', 'PERR', 'INSP', 'MILL', 'WESC',
];
