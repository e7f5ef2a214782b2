import type { Response } from 'express';
import { sendJsonText } from '../../src/http/compress';

/** Control characters other than the line feed and form feed that extracted text is full of. */
// eslint-disable-next-line no-control-regex -- control characters are exactly what is looked for
const RARE_ESCAPES = /[\u0000-\u0009\u000b\u000d-\u001f]/;

/**
 * JSON.stringify of a string, for long texts. V8's JSON.stringify escapes character by character;
 * a text whose only characters to escape are quotes, backslashes, line feeds and form feeds (pages are
 * separated by form feeds) is escaped about twice as fast by four native replaceAll passes. Anything
 * else takes JSON.stringify. A string decoded from bytes has no lone surrogates, the other thing
 * JSON.stringify escapes.
 */
export function jsonString(s: string): string {
  if (s.length < 256 || RARE_ESCAPES.test(s)) return JSON.stringify(s);
  return `"${s.replaceAll('\\', '\\\\').replaceAll('"', '\\"').replaceAll('\n', '\\n').replaceAll('\f', '\\f')}"`;
}

export interface TextChunkParts {
  fileId: string;
  /** The text as a JSON string literal, already escaped. */
  textJson: string;
  textRevision: string;
  start: number;
  end: number;
  nextCursor: string | null;
}

/**
 * The ExtractedTextChunk body (fields in the schema's order) written around the already-escaped text,
 * so the text is escaped once, not again inside a JSON.stringify of the whole object.
 */
export function textChunkBody(p: TextChunkParts): string {
  return (
    `{"fileId":${JSON.stringify(p.fileId)},"text":${p.textJson},"textRevision":${JSON.stringify(p.textRevision)},"versionId":null,` +
    `"location":{"startOffsetBytes":${p.start},"endOffsetBytes":${p.end}},"nextCursor":${p.nextCursor === null ? 'null' : JSON.stringify(p.nextCursor)}}`
  );
}

/** Sends the chunk as the JSON routes do (src/http/compress.ts): 200, the same content type, compressed above the threshold. */
export function sendTextChunk(res: Response, p: TextChunkParts): void {
  sendJsonText(res, 200, textChunkBody(p));
}
