import { Rng } from './prng';
import { RARE_TERMS } from './vocabulary';
import type { DocContext, DocKind, FileRole } from './document-types';
import { fillerFor, sectionsFor } from './document-sections';

export type { DocContext, DocKind, FileRole } from './document-types';
export { longDate, titleCase } from './document-sections';

export function kindsForRole(role: FileRole): DocKind[] {
  switch (role) {
    case 'rate': return ['actuarial_memorandum', 'rate_exhibits'];
    case 'form': return ['policy_form', 'endorsement'];
    case 'rule': return ['rule_manual'];
    case 'correspondence': return ['objection_letter', 'objection_response'];
    case 'supporting_document': return ['explanatory_memorandum', 'cover_letter'];
    case 'other': return ['certification'];
    default: {
      const never: never = role;
      throw new Error(`unknown role ${String(never)}`);
    }
  }
}

/** Pages are kept under this many characters so each fits one PDF page. */
export const MAX_PAGE_CHARS = 3000;

/**
 * Writes a document of `pageCount` pages, each 1,500 to 3,000 characters, as plain ASCII (so the standard
 * PDF fonts render it and extraction gives the same characters back).
 */
export function writeDocument(r: Rng, ctx: DocContext, kind: DocKind, title: string, pageCount: number): string[] {
  const sections = sectionsFor(ctx, kind);
  const pages: string[] = [];
  let sectionAt = 0;
  let sentencesInSection = 0;
  let sectionLength = r.int(4, 9);
  let pendingTable: string[] = sections[0]!.table?.(r) ?? [];
  let headingPending = true;
  const rare = r.chance(0.02) ? r.pick(RARE_TERMS) : null;
  const filler = fillerFor(ctx, kind);
  // Each section draws its sentences from a shuffled deck; once a deck has run out, filler sentences
  // alternate with reshuffled ones.
  const decks = sections.map(() => [] as number[]);
  /** A section's deck has been dealt at least once. */
  const exhausted = sections.map(() => false);
  const draw = (at: number): string => {
    const section = sections[at]!;
    const deck = decks[at]!;
    if (deck.length === 0) {
      if (exhausted[at] && r.chance(0.6)) return filler(r);
      exhausted[at] = true;
      deck.push(...r.sample(section.templates.map((_t, n) => n), section.templates.length));
    }
    return section.templates[deck.pop()!]!(r);
  };
  for (let p = 1; p <= pageCount; p++) {
    const target = r.int(1500, 2800);
    const lines: string[] = [`${ctx.companyName} | ${ctx.productName} | ${ctx.stateName} | ${ctx.referenceLabel} ${ctx.reference}`, `${title} - Page ${p} of ${pageCount}`, ''];
    let length = lines.reduce((n, l) => n + l.length + 1, 0);
    let paragraph: string[] = [];
    const flush = (): void => {
      if (paragraph.length) {
        const text = paragraph.join(' ');
        lines.push(text, '');
        length += text.length + 2;
        paragraph = [];
      }
    };
    const room = (s: string): boolean => length + paragraph.join(' ').length + s.length + 2 < MAX_PAGE_CHARS;
    while (length + paragraph.join(' ').length < target) {
      const section = sections[sectionAt % sections.length]!;
      if (headingPending) {
        flush();
        const heading = sectionAt >= sections.length ? `${section.heading} (CONTINUED)` : section.heading;
        if (!room(heading)) break;
        lines.push(heading);
        length += heading.length + 1;
        headingPending = false;
      }
      if (pendingTable.length) {
        flush();
        const row = pendingTable[0]!;
        if (!room(row)) break;
        lines.push(row);
        length += row.length + 1;
        pendingTable.shift();
        if (!pendingTable.length) {
          lines.push('');
          length += 1;
        }
        continue;
      }
      let sentence = draw(sectionAt % sections.length);
      if (rare && r.chance(0.08)) sentence += ` The ${rare} applies as described in the schedule.`;
      if (!room(sentence)) break;
      paragraph.push(sentence);
      if (paragraph.length >= 3 && r.chance(0.35)) flush();
      if (++sentencesInSection >= sectionLength) {
        flush();
        sectionAt++;
        sentencesInSection = 0;
        sectionLength = r.int(4, 9);
        headingPending = true;
        pendingTable = sections[sectionAt % sections.length]!.table?.(r) ?? [];
      }
    }
    flush();
    pages.push(lines.join('\n').trimEnd());
  }
  return pages;
}
