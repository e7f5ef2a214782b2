import { Rng } from './prng';
import {
  CARRIER_STEMS, CARRIER_SUFFIXES, LINE_LABEL, LINE_TERMS, PRODUCT_TOIS, PRODUCT_TYPE_WEIGHTS, PRODUCT_WORDS, ProductType,
  STATE_WEIGHTS,
} from './vocabulary';

export interface Group {
  id: string;
  /** Registered NAIC group code, possibly zero-padded ("0123"). */
  registeredCode: string;
  /** As catalog filings carry it: no leading zeros. */
  code: string;
  name: string;
  stem: string;
}

export interface Carrier {
  id: string;
  code: string;
  name: string;
  stem: string;
  group: Group | null;
  domicile: string;
  status: string;
  aliases: string[];
  grossPremiumWritten: { year: number; amount: number } | null;
  cessionRatio: { year: number; value: number } | null;
  mergedInto: string | null;
  /** Filings of a merged carrier stop the year it merged. */
  lastFilingYear: number | null;
  /** Lines it writes, so its filings look plausible. */
  lines: ProductType[];
}

export interface Mga {
  id: string;
  slug: string;
  name: string;
  aliases: string[];
  carriers: { carrierId: string; role: string; sourceNotes: string }[];
}

export interface ProductPlan {
  index: number;
  id: string;
  name: string;
  productType: ProductType;
  admitted: boolean;
  predecessorProductId: string | null;
  note: string | null;
  group: Group | null;
  mga: Mga | null;
  availability: { state: string; writingCompanies: Carrier[]; toiCodes: string[]; subtoiCodes: string[]; note: string | null }[];
  /** Features its filings mention and its claims are about. */
  features: string[];
}

export interface Directory {
  groups: Group[];
  carriers: Carrier[];
  /** Carriers that may appear on new filings (not merged away), by line. */
  carriersByLine: Map<ProductType, Carrier[]>;
  mgas: Mga[];
  products: ProductPlan[];
}

const GROUP_COUNT = 12;
const CARRIER_COUNT = 60;
const MGA_COUNT = 8;
const PRODUCT_COUNT = 40;

const GROUP_NAME_SUFFIXES = ['Insurance Group', 'Group', 'Mutual Group', 'Holdings Group', 'Insurance Companies'];
const MGA_NAMES = [
  'Coastal Risk Partners', 'Prairie Specialty Underwriters', 'Summit Cyber Underwriting', 'Blue Ridge Program Managers',
  'Gulfstream Property Underwriters', 'Lakeside Auto Programs', 'Keystone Excess Facilities', 'Redwood Managing General Agency',
];
const MGA_LINES: ProductType[][] = [
  ['homeowners', 'dwelling_fire'], ['commercial_property', 'businessowners'], ['cyber'], ['workers_comp', 'commercial_auto'],
  ['homeowners', 'commercial_property'], ['personal_auto'], ['umbrella', 'inland_marine'], ['cyber', 'businessowners'],
];

function slugify(s: string): string {
  return s.toLowerCase().replace(/&/g, 'and').replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
}

function allLines(): ProductType[] {
  return PRODUCT_TYPE_WEIGHTS.map(([t]) => t);
}

export function buildDirectory(seed: number): Directory {
  const rng = Rng.for(seed, 'directory');
  const stems = rng.sample(CARRIER_STEMS, CARRIER_STEMS.length);
  let stemAt = 0;
  const nextStem = (): string => stems[stemAt++ % stems.length]!;

  // Groups: four-digit NAIC group codes; every third is registered with leading zeros.
  const usedGroupCodes = new Set<string>();
  const groups: Group[] = [];
  for (let g = 0; g < GROUP_COUNT; g++) {
    let n: number;
    do n = g % 3 === 1 ? rng.int(11, 980) : rng.int(1000, 4999);
    while (usedGroupCodes.has(String(n)));
    usedGroupCodes.add(String(n));
    const stem = nextStem();
    groups.push({
      id: `carrier_group_${n}`,
      registeredCode: String(n).padStart(4, '0'),
      code: String(n),
      name: `${stem} ${rng.pick(GROUP_NAME_SUFFIXES)}`,
      stem,
    });
  }

  // Carriers: five-digit NAIC company codes; most in a group (sharing its name stem), some independent.
  const usedCodes = new Set<number>();
  const carriers: Carrier[] = [];
  for (let c = 0; c < CARRIER_COUNT; c++) {
    let code: number;
    do code = rng.int(10000, 44999);
    while (usedCodes.has(code));
    usedCodes.add(code);
    const group = c < 48 ? groups[c % GROUP_COUNT]! : null;
    // A group's later members are acquisitions with their own names.
    const stem = group && c < 36 ? group.stem : nextStem();
    let name = `${stem} ${rng.pick(CARRIER_SUFFIXES)}`;
    while (carriers.some((x) => x.name === name)) name = `${stem} ${rng.pick(CARRIER_SUFFIXES)} of ${rng.pick(['Texas', 'Florida', 'Ohio', 'the Midwest', 'America', 'New York'])}`;
    const domicile = rng.weighted(STATE_WEIGHTS);
    const shortName = name.replace(/ (Insurance )?Company.*$/, '').replace(/ Mutual$/, ' Mutual');
    const aliases = [shortName.toUpperCase(), `${shortName} Ins. Co.`];
    if (rng.chance(0.3)) aliases.push(`${stem} (NAIC ${code})`);
    const lines = rng.sample(allLines(), rng.int(2, 5));
    carriers.push({
      id: `carrier_${code}`,
      code: String(code),
      name,
      stem,
      group,
      domicile,
      status: 'active',
      aliases,
      grossPremiumWritten: rng.chance(0.85) ? { year: 2024, amount: Math.round(rng.float(5, 2500) * 1e6 * 100) / 100 } : null,
      cessionRatio: rng.chance(0.75) ? { year: 2024, value: Math.round(rng.float(0.02, 0.65) * 1000) / 1000 } : null,
      mergedInto: null,
      lastFilingYear: null,
      lines,
    });
  }
  // One merger inside a group: the merged company stops filing in 2021.
  const survivor = carriers[2]!;
  const merged = carriers[2 + GROUP_COUNT]!; // same group as the survivor
  merged.mergedInto = survivor.id;
  merged.status = 'merged';
  merged.lastFilingYear = 2021;
  merged.aliases.push(`formerly ${merged.name}`);

  const carriersByLine = new Map<ProductType, Carrier[]>();
  for (const line of allLines()) carriersByLine.set(line, carriers.filter((c) => c.lines.includes(line)));
  // Every line needs writers even if the sampling left one out.
  for (const [line, list] of carriersByLine) if (list.length === 0) list.push(...carriers.slice(0, 3).map((c) => { c.lines.push(line); return c; }));

  const mgas: Mga[] = [];
  for (let m = 0; m < MGA_COUNT; m++) {
    const name = MGA_NAMES[m]!;
    const slug = slugify(name);
    const backers = rng.sample(carriers.filter((c) => !c.mergedInto), rng.int(1, 3));
    mgas.push({
      id: `mga_${slug}`,
      slug,
      name,
      aliases: [name.replace(/ (Partners|Underwriters|Underwriting|Program Managers|Programs|Facilities|Managing General Agency)$/, ''), `${name}, LLC`],
      carriers: backers.map((c, i) => ({
        carrierId: c.id,
        role: i === 0 ? 'fronting carrier' : 'capacity provider',
        sourceNotes: i === 0
          ? `Program administrator agreement with ${c.name} filed ${rng.int(2016, 2024)}; policies issued on ${c.name} paper.`
          : `Quota share capacity of ${rng.int(10, 50)}% per ${rng.int(2019, 2025)} program summary.`,
      })),
    });
  }

  const products: ProductPlan[] = [];
  const usedNames = new Set<string>();
  for (let p = 0; p < PRODUCT_COUNT; p++) {
    const productType = rng.weighted(PRODUCT_TYPE_WEIGHTS);
    const mga = p % 5 === 4 ? mgas.find((_m, i) => MGA_LINES[i]!.includes(productType)) ?? null : null;
    let writers = mga
      ? mga.carriers.map((mc) => carriers.find((c) => c.id === mc.carrierId)!)
      : carriersByLine.get(productType)!.filter((c) => !c.mergedInto);
    const anchor = rng.pick(writers);
    const group = mga ? null : anchor.group;
    if (group) writers = writers.filter((c) => c.group === group);
    const brand = mga ? mga.name.split(' ')[0]! : (group ?? anchor).stem ?? anchor.stem;
    let name = `${brand} ${rng.pick(PRODUCT_WORDS[productType])}`;
    if (usedNames.has(name)) name = `${name} ${rng.pick(['II', 'Plus', '2.0', 'Select', 'Preferred'])}`;
    if (usedNames.has(name)) name = `${name} ${p}`;
    usedNames.add(name);
    const states = rng.sample(STATE_WEIGHTS.map(([s]) => s), rng.int(1, 6));
    if (rng.chance(0.25)) states.push('FL');
    const tois = PRODUCT_TOIS[productType];
    const availability = states.map((state) => {
      const t = rng.pick(tois);
      const subs = rng.sample(t.subTois, rng.int(1, Math.min(2, t.subTois.length)));
      return {
        state,
        writingCompanies: rng.sample(writers.length ? writers : [anchor], rng.int(1, 2)),
        toiCodes: [t.toi],
        subtoiCodes: subs,
        note: rng.chance(0.15) ? rng.pick(['New business suspended in coastal counties.', 'Renewal only.', 'Available through independent agents only.', 'Effective date varies by county.']) : null,
      };
    });
    const admitted = mga ? rng.chance(0.3) : productType === 'cyber' ? rng.chance(0.5) : rng.chance(0.92);
    products.push({
      index: p,
      id: `product_${1001 + p}`,
      name,
      productType,
      admitted,
      predecessorProductId: null,
      note: admitted ? null : `Written on a surplus lines basis; ${LINE_LABEL[productType].toLowerCase()} forms are not filed in every state.`,
      group,
      mga,
      availability,
      features: rng.sample(LINE_TERMS[productType], 3),
    });
  }
  // Two products replace earlier ones of the same line.
  for (const p of products.slice(20)) {
    const older = products.find((q) => q.index < 20 && q.productType === p.productType && !products.some((r) => r.predecessorProductId === q.id));
    if (older && products.filter((r) => r.predecessorProductId).length < 3) {
      p.predecessorProductId = older.id;
      p.note = `Replaces ${older.name} for new business.`;
    }
  }
  return { groups, carriers, carriersByLine, mgas, products };
}
