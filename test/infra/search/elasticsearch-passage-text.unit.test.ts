import assert from 'node:assert/strict';
import { FRAGMENT_CHARS, passageText } from '../../../infra/search/elasticsearch/passage-text';

describe('ElasticsearchSearchIndex: passages cut from page text', () => {
  const page = [
    'This manual applies to all policies written in the state.',
    'The base rates shown on page 4 are unchanged.',
    'A wildfire surcharge of 5% applies to dwellings in the high hazard zone.',
    'Territory definitions follow the county map.',
    'Surcharges are capped at the policy maximum.',
  ].join(' ');

  it('rule: the sentences holding the most query terms, in text order, joined by an ellipsis', () => {
    // Stems as the english analyzer gives them: wildfire → wildfir, surcharge → surcharg.
    assert.equal(passageText(page, ['wildfir', 'surcharg']), 'A wildfire surcharge of 5% applies to dwellings in the high hazard zone. … Surcharges are capped at the policy maximum.');
  });

  it('rule: stems match words they were cut from, also through y → i and a dropped final e', () => {
    assert.match(passageText(page, ['polici'])!, /all policies written/);
    assert.match(passageText('Nothing here. Rating plans are filed yearly.', ['rate'])!, /^Rating plans/);
  });

  it('rule: a page without a matching word gives its beginning (about one fragment), an empty page nothing', () => {
    const p = passageText(page, ['telemat'])!;
    assert.ok(page.startsWith(p) && p.length >= FRAGMENT_CHARS && p.length < FRAGMENT_CHARS + 20);
    assert.equal(passageText('   ', ['x']), null);
  });

  it('rule: a long sentence is cut into fragments of about the fragment size, after a word', () => {
    const long = `${'premium '.repeat(40)}deductible ${'premium '.repeat(40)}`;
    const p = passageText(long, ['deduct'])!;
    assert.ok(p.includes('deductible') && p.length <= FRAGMENT_CHARS + 20, p);
  });
});
