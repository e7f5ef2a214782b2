import type PDFKit from 'pdfkit';

/** Fixed so that the same pages always give the same bytes (pdfkit derives the file ID from the info dict). */
const FIXED_DATE = new Date(Date.UTC(2026, 0, 1));

/**
 * Renders one document page per PDF page with a standard font (Helvetica, WinAnsi), so that text
 * extraction page by page gives the document's pages back (modulo whitespace).
 */
export function renderPdf(title: string, pages: readonly string[]): Promise<Buffer> {
  // Loaded on first use: pdfkit (with its fonts) is ~5 MB of heap that `ifrs serve` never needs.
  const PDFDocument = require('pdfkit') as typeof PDFKit;
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument({
      autoFirstPage: false,
      size: 'LETTER',
      margin: 54,
      compress: true,
      info: { Title: title, Author: 'IFRS demo data', Producer: 'ifrs-demo', Creator: 'ifrs-demo', CreationDate: FIXED_DATE, ModDate: FIXED_DATE },
    });
    const chunks: Buffer[] = [];
    let added = 0;
    doc.on('pageAdded', () => added++);
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('error', reject);
    doc.on('end', () => {
      if (added !== pages.length) reject(new Error(`PDF "${title}": ${pages.length} pages of text overflowed into ${added} PDF pages`));
      else resolve(Buffer.concat(chunks));
    });
    for (const page of pages) {
      doc.addPage();
      doc.font('Helvetica').fontSize(9).text(page, { lineGap: 1.5 });
    }
    doc.end();
  });
}
