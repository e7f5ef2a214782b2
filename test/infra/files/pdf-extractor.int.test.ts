import assert from 'node:assert/strict';
import { pdfExtractor } from '../../../infra/files/pdf-extractor';
import { pdfOf } from '../../support/catalog-filing-mother';

describe('PDF text extraction (unpdf)', () => {
  it('rule: a multi-page PDF yields its text page by page', async () => {
    const pdf = await pdfOf(['Rate filing memorandum: indicated change +7.9%', 'Wildfire surcharge schedule, résumé', 'Roof age schedule']);
    const r = await pdfExtractor(pdf, 'application/pdf', 'memo.pdf');
    assert.ok(r);
    assert.equal(r.method, 'pdf');
    assert.equal(r.pages.length, 3);
    assert.match(r.pages[0], /indicated change \+7\.9%/);
    assert.match(r.pages[1], /Wildfire surcharge schedule, résumé/);
    assert.match(r.pages[2], /Roof age schedule/);
  });

  it('leaves other media types to the next extractor, and yields nothing for a broken PDF', async () => {
    assert.equal(await pdfExtractor(Buffer.from('plain'), 'text/plain', 'a.txt'), null);
    assert.equal(await pdfExtractor(Buffer.from('%PDF-1.7 truncated garbage'), 'application/pdf', 'bad.pdf'), null);
  });
});
