/** Pages joined with form feeds, with the byte offset of each page's start: the stored text and page map of an extraction (ExtractedText). */
export function joinPages(pages: string[]): { text: string; pageStarts: number[] } {
  const pageStarts: number[] = [];
  let offset = 0;
  for (let i = 0; i < pages.length; i++) {
    pageStarts.push(offset);
    offset += Buffer.byteLength(pages[i], 'utf8') + (i < pages.length - 1 ? 1 : 0);
  }
  return { text: pages.join('\f'), pageStarts };
}
