/** The headers an original is served with, by the API's signed address or by the storage host (presigned overrides). */

/** `filename*` per RFC 6266/8187, with a plain ASCII `filename` for old clients. */
export function contentDisposition(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/** `type/subtype` and optional parameters (RFC 9110 tokens, printable ASCII). */
const MEDIA_TYPE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+\/[!#$%&'*+.^_`|~0-9A-Za-z-]+(?:[ \t]*;[\x20-\x7e]*)?$/;

/**
 * The Content-Type of a stored original: the catalog import records the media type as given (any text), and
 * one that is not a media type (a header cannot carry it, or it is not one) is served as plain bytes.
 */
export function contentTypeOf(mimeType: string): string {
  return MEDIA_TYPE.test(mimeType) ? mimeType : 'application/octet-stream';
}
