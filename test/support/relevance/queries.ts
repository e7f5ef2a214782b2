import type { SearchBody } from '../../../queries/search/search-query';

/** A labelled query: the filings (corpus keys) a researcher expects; the first is the best answer. */
export interface LabelledQuery {
  body: SearchBody;
  relevant: string[];
}

const I = (intent: string) => intent;

export const RELEVANCE_QUERIES: LabelledQuery[] = [
  { body: { query: 'wildfire surcharge', intent: I('compare how carriers price wildfire hazard in homeowners') }, relevant: ['ca-wildfire-surcharge'] },
  { body: { query: 'defensible space credit', intent: I('wildfire mitigation discounts in dwelling programs') }, relevant: ['co-defensible-space'] },
  { body: { query: 'wildfire mitigation', intent: I('which filings give credits or surcharges for wildfire exposure') }, relevant: ['co-defensible-space', 'ca-wildfire-surcharge'] },
  { body: { query: 'roof age schedule', intent: I('roof payment schedules by age for wind and hail') }, relevant: ['tx-roof-age-schedule'] },
  { body: { query: 'actual cash value roof surfacing', intent: I('ACV settlement endorsements for roofs') }, relevant: ['ok-roof-acv'] },
  { body: { query: 'hurricane deductible options', intent: I('percentage hurricane deductibles offered in Florida') }, relevant: ['fl-hurricane-deductible'] },
  { body: { query: 'named storm deductible coastal territories', intent: I('coastal windstorm deductible rules') }, relevant: ['sc-named-storm-deductible'] },
  { body: { query: 'smartphone app hard braking', intent: I('telematics programs that score driving behaviour') }, relevant: ['ny-telematics-app'] },
  { body: { query: 'telematics discount', intent: I('usage based auto insurance discounts') }, relevant: ['ny-telematics-app'] },
  { body: { query: 'per-mile rate plug-in device', intent: I('mileage based auto pricing programs') }, relevant: ['oh-telematics-mileage'] },
  { body: { query: 'ransomware sublimit', intent: I('cyber policies limiting extortion payments') }, relevant: ['cyber-ransomware-sublimit'] },
  { body: { query: 'cyber extortion coinsurance', intent: I('how cyber forms share ransomware losses') }, relevant: ['cyber-ransomware-sublimit'] },
  { body: { query: 'social engineering fraud', intent: I('coverage for fraudulent payment instructions') }, relevant: ['cyber-social-engineering'] },
  { body: { query: 'objection letter credibility', intent: I('regulator objections to rate indications') }, relevant: ['objection-letter-indication'] },
  { body: { query: 'indicated rate change private passenger auto', intent: I('auto rate increases and their actuarial support') }, relevant: ['pa-auto-rate-increase', 'objection-letter-indication'] },
  { body: { query: 'PIP choice levels no-fault', intent: I('Michigan personal injury protection options') }, relevant: ['mi-pip-choice'] },
  { body: { query: 'loss cost multiplier', intent: I('workers compensation loss cost adoptions') }, relevant: ['wc-loss-cost-adoption'] },
  { body: { query: 'elevation certificate flood', intent: I('private flood programs and their rating') }, relevant: ['private-flood'] },
  { body: { query: 'masonry veneer earthquake', intent: I('residential earthquake coverage options') }, relevant: ['ca-earthquake'] },
  { body: { query: 'sewer backup', intent: I('water back-up endorsements and their limits') }, relevant: ['water-backup'] },
  { body: { query: 'dog bite exclusion', intent: I('animal liability restrictions in homeowners forms') }, relevant: ['dog-liability-exclusion'] },
  { body: { query: 'electric vehicle battery', intent: I('auto endorsements for EV owners') }, relevant: ['ev-battery'] },
  { body: { query: 'transportation network company gap', intent: I('rideshare driver coverage endorsements') }, relevant: ['rideshare-gap'] },
  { body: { query: 'radius of operation long haul', intent: I('commercial trucking rating plans') }, relevant: ['trucking-radius'] },
  { body: { query: 'food spoilage restaurant', intent: I('businessowners coverage for restaurants') }, relevant: ['bop-restaurant'] },
  { body: { query: 'excess uninsured motorist umbrella', intent: I('personal umbrella coverage structures') }, relevant: ['personal-umbrella'] },
  { body: { query: 'pet wellness rider', intent: I('pet insurance products and riders') }, relevant: ['pet-wellness'] },
  { body: { query: 'credit-based insurance score adverse action', intent: I('rules on use of credit in underwriting') }, relevant: ['credit-insurance-score'] },
  { body: { query: 'extraordinary life circumstances', intent: I('exceptions to credit based insurance scoring') }, relevant: ['credit-insurance-score'] },
  { body: { query: 'generalized linear model territory relativities', intent: I('predictive models filed for homeowners pricing') }, relevant: ['predictive-model-glm'] },
  { body: { query: 'FORTIFIED roof discount', intent: I('wind mitigation credits for IBHS designations') }, relevant: ['al-fortified-roof'] },
  { body: { query: 'loss assessment condominium association', intent: I('unit owners coverage for association assessments') }, relevant: ['condo-loss-assessment'] },
  { body: { query: 'mobile home tie-down discount', intent: I('manufactured housing rating factors') }, relevant: ['manufactured-home'] },
  { body: { query: 'equipment breakdown irrigation pumps', intent: I('farm coverage for machinery breakdown') }, relevant: ['farm-equipment-breakdown'] },
  { body: { query: 'extended reporting period tail coverage', intent: I('claims-made physicians liability options') }, relevant: ['medmal-tail'] },
  { body: { query: 'wage and hour defense', intent: I('employment practices liability sublimits') }, relevant: ['epli-wage-hour'] },
  { body: { query: 'hurricane haul-out reimbursement', intent: I('boat policies and hurricane preparation costs') }, relevant: ['boat-haul-out'] },
  { body: { query: 'identity theft expenses', intent: I('identity recovery coverage in personal lines') }, relevant: ['identity-theft'] },
  { body: { query: 'short-term rental home-sharing', intent: I('homeowners coverage for hosts renting their homes') }, relevant: ['home-sharing'] },
  { body: { query: 'solar panels photovoltaic', intent: I('homeowners coverage for solar equipment') }, relevant: ['solar-panels'] },
  { body: { query: 'Side A difference in conditions', intent: I('D&O coverage for non-indemnifiable loss') }, relevant: ['do-side-a'] },
  { body: { query: 'accident forgiveness driver class plan', intent: I('Texas auto rate revisions') }, relevant: ['serff-auto-rate'] },
  { body: { query: 'roof hail', intent: I('how carriers settle roof claims from hail'), filters: [{ field: 'state', operator: 'eq', value: 'OK' }] }, relevant: ['ok-roof-acv'] },
  { body: { query: '"named storm deductible"', intent: I('exact wording of named storm deductibles'), filters: [{ field: 'state', operator: 'in', value: ['SC', 'FL'] }] }, relevant: ['sc-named-storm-deductible'] },
];
