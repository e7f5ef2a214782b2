import type { Extractor } from '../../src/ports/file-ingest';

/** PDF files start with `%PDF-` (some writers put a few bytes of junk first; the spec allows 1 KiB). */
function looksLikePdf(content: Buffer): boolean {
  return content.subarray(0, 1024).includes('%PDF-');
}

/**
 * Text of a PDF, one string per page, with unpdf (the serverless build of Mozilla's pdf.js: no native
 * code, no worker thread, runs on Node 20). Runs once, at import: the result is recorded in the catalog
 * events, so a rebuild of the read models never extracts again.
 *
 * A PDF that pdf.js cannot open yields null (no extraction: text requests answer 409 text_unavailable
 * and the download still works) rather than failing the whole import record.
 */
export const pdfExtractor: Extractor = async (content, mimeType, name) => {
  const isPdf = mimeType === 'application/pdf' || /\.pdf$/i.test(name);
  if (!isPdf || !looksLikePdf(content)) return null;
  const { extractText, getDocumentProxy } = await import('unpdf');
  let pdf: Awaited<ReturnType<typeof getDocumentProxy>> | null = null;
  try {
    // pdf.js takes ownership of (and may detach) the array it is given: pass a copy.
    pdf = await getDocumentProxy(new Uint8Array(content), { verbosity: 0 });
    const { text } = await extractText(pdf, { mergePages: false });
    // Form feeds separate pages in the stored text, so one inside a page would shift the page map.
    return { pages: text.map((p) => p.replace(/\f/g, ' ')), method: 'pdf' };
  } catch {
    return null;
  } finally {
    await pdf?.destroy().catch(() => undefined);
  }
};
