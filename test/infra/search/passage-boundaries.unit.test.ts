import assert from 'node:assert/strict';
import { passageText } from '../../../infra/search/elasticsearch/passage-text';
import { endsSentence, quickAnswer, segmenterBoundary } from '../../../infra/search/sentence-ends';
import { demoIndexedFilings } from '../../../bench/support/search-corpus';

/** endsSentence for the first run of `.`, `!` or `?` after `marker` in `text`. */
function endsAfter(text: string, marker: string): boolean {
  const at = text.indexOf(marker) + marker.length;
  let to = at;
  while ('.!?'.includes(text[to])) to++;
  assert.ok(to > at, `punctuation after ${marker}`);
  return endsSentence(text, at, to);
}

// Both search adapters (Postgres and Elasticsearch) cut passages with passageText.
describe('passages: cut at real sentence boundaries', () => {
  describe('endsSentence', () => {
    it('rule: a decimal point is no sentence end ("-1.2%", "2.35%")', () => {
      assert.equal(endsAfter('the premium impact is -1.2% overall.', '-1'), false);
      assert.equal(endsAfter('an increase of 2.35% resulting from the revised factors.', 'of 2'), false);
    });

    it('rule: abbreviations ("No.", "Sec.", "e.g.") are no sentence end, also before a capital or a number', () => {
      assert.equal(endsAfter('Form No. CP 00 10 applies.', 'No'), false);
      assert.equal(endsAfter('See Rule No. 5 for details.', 'No'), false);
      assert.equal(endsAfter('Refer to Sec. 4.2 of the manual.', 'Sec'), false);
      assert.equal(endsAfter('Refer to Sec. A of the manual.', 'Sec'), false);
      assert.equal(endsAfter('Some factors, e.g. territory, apply.', 'e.g'), false);
      assert.equal(endsAfter('Some factors (e.g. Territory) apply.', 'e.g'), false);
    });

    it('rule: initials are no sentence end ("J. R. Smith", "U.S.")', () => {
      assert.equal(endsAfter('Approved by J. R. Smith on Monday.', 'by J'), false);
      assert.equal(endsAfter('Approved by J. R. Smith on Monday.', 'J. R'), false);
      assert.equal(endsAfter('Rates in the U.S. Virgin Islands differ.', 'U.S'), false);
    });

    it('rule: a stop, question or exclamation mark before the next sentence, and one at the end of the text, are sentence ends', () => {
      assert.equal(endsAfter('The base rate is 2.35%. Territory factors are unchanged.', '2.35%'), true);
      assert.equal(endsAfter('Is it filed? Yes.', 'filed'), true);
      assert.equal(endsAfter('It was approved (as filed.) The next item follows.', 'filed'), true);
      assert.equal(endsAfter('Rates are unchanged.', 'unchanged'), true);
      assert.equal(endsAfter('Rates are unchanged.\nTerritory factors follow.', 'unchanged'), true);
      assert.equal(endsAfter('It applies to the Declarations.\n\n"Policy period" means the term.', 'Declarations'), true);
    });
  });

  it('rule: the shortcuts for common stops answer as Intl.Segmenter does, on every stop of the demo catalog\'s pages', () => {
    let checked = 0;
    const differ: string[] = [];
    for (const batch of demoIndexedFilings(40, 40)) {
      for (const text of batch.flatMap((f) => f.documents.flatMap((d) => d.pages.map((p) => p.text)))) {
        for (const m of text.matchAll(/[.!?]+/g)) {
          const from = m.index;
          const to = from + m[0].length;
          let next = to;
          while (next < text.length && /["')\]}’”»]/.test(text[next])) next++;
          while (next < text.length && /\s/.test(text[next])) next++;
          const quick = quickAnswer(text, from, to);
          if (quick === undefined || next >= text.length) continue;
          checked++;
          if (quick !== segmenterBoundary(text, from, next)) differ.push(JSON.stringify(text.slice(Math.max(0, from - 20), next + 20)));
        }
      }
    }
    assert.ok(checked > 5000, `enough stops checked (${checked})`);
    assert.deepEqual(differ.slice(0, 5), []);
  });

  describe('passageText', () => {
    const page = (...sentences: string[]) => ['This manual applies to all policies written in the state.', ...sentences, 'Surcharges are capped at the policy maximum.'].join(' ');

    it('rule: a passage keeps the decimals of its sentence ("-1.2%", "2.35%")', () => {
      assert.equal(passageText(page('Overall the premium impact is -1.2% for the program.'), ['impact']), 'Overall the premium impact is -1.2% for the program.');
      assert.equal(
        passageText(page('The indicated change of 2.35% resulting from the revised factors is filed.'), ['revis']),
        'The indicated change of 2.35% resulting from the revised factors is filed.',
      );
    });

    it('rule: abbreviations and initials do not break a passage', () => {
      assert.equal(passageText(page('See Rule No. 5 and Sec. 4.2 for territory definitions.'), ['territori']), 'See Rule No. 5 and Sec. 4.2 for territory definitions.');
      assert.equal(passageText(page('Form No. CP 00 10 applies to wildfire losses.'), ['wildfir']), 'Form No. CP 00 10 applies to wildfire losses.');
      assert.equal(passageText(page('Rating factors, e.g. territory, apply to every dwelling.'), ['dwell']), 'Rating factors, e.g. territory, apply to every dwelling.');
      assert.equal(passageText(page('The filing was signed by J. R. Smith for the commissioner.'), ['commission']), 'The filing was signed by J. R. Smith for the commissioner.');
    });

    it('rule: real sentence ends still bound a passage', () => {
      assert.equal(passageText(page('The base rate is 2.35%. Territory factors are unchanged.'), ['territori']), 'Territory factors are unchanged.');
    });

    it('rule: on the demo catalog\'s pages no passage fragment starts or ends inside a number', () => {
      const stems = [['premium'], ['rate', 'factor'], ['territori'], ['deduct', 'limit'], ['chang', 'indic']];
      let fragments = 0;
      const cut: string[] = [];
      for (const batch of demoIndexedFilings(40, 40)) {
        for (const d of batch.flatMap((f) => f.documents)) {
          for (const p of d.pages) {
            // Passages collapse white space: find each fragment in the page collapsed alike.
            const flat = p.text.replace(/\s+/g, ' ');
            for (const s of stems) {
              for (const f of passageText(p.text, s)?.split(' … ') ?? []) {
                fragments++;
                const at = flat.indexOf(f);
                // Inside a number: a digit and a stop on one side of the cut and a digit on the other.
                if (at > 1 && /\d/.test(f[0]) && /\d\./.test(flat.slice(at - 2, at))) cut.push(f);
                if (/\d\.$/.test(f) && /\d/.test(flat[at + f.length] ?? '')) cut.push(f);
              }
            }
          }
        }
      }
      assert.ok(fragments > 1000, `enough fragments checked (${fragments})`);
      assert.deepEqual(cut.slice(0, 5), []);
    });
  });
});
