import type { Request, Response } from 'express';
import etag from 'etag';
import fresh from 'fresh';
import type { RouteSpec } from './route';

/**
 * A record GET: an address that names one record (its last path segment is the record's id), such as
 * `/insurance/filings/{filingId}`. Lists and searches are not: they change with every write anywhere and
 * carry cursors. Signed addresses answer with bytes and set their own validators.
 */
export function isRecordGet(route: RouteSpec): boolean {
  return route.method === 'get' && route.auth !== 'none' && route.paths.every((p) => /\/\{[A-Za-z0-9_]+\}$/.test(p));
}

/**
 * Sets a weak ETag over the record's JSON (weak: the same record compressed or not is the same entity)
 * and answers 304 without a body when If-None-Match names it. `private, no-store` becomes
 * `private, no-cache`: a client may keep the record, but asks again each time, so a lost grant or a
 * restriction counts on the next request exactly as before. Returns true when it answered.
 */
export function answerNotModified(req: Request, res: Response, json: string): boolean {
  res.setHeader('ETag', etag(json, { weak: true }));
  if (res.getHeader('Cache-Control') === 'private, no-store') res.setHeader('Cache-Control', 'private, no-cache');
  if (req.headers['if-none-match'] === undefined || !fresh(req.headers, { etag: res.getHeader('ETag') as string })) return false;
  res.statusCode = 304;
  res.end();
  return true;
}

/** The route as the OpenAPI document shows it: the ETag header on its 200 and the 304 it can answer. */
export function documentConditional(route: RouteSpec): RouteSpec {
  if (!isRecordGet(route) || !route.responses[200]) return route;
  const ok = route.responses[200];
  return {
    ...route,
    responses: {
      ...route.responses,
      200: { ...ok, headers: { ...ok.headers, ETag: { description: 'Weak validator of this record: send it back as If-None-Match to get 304 while it is unchanged.' } } },
      304: { description: 'Not Modified: the record still has the ETag named in If-None-Match (no body).', headers: { ETag: { description: 'The record\'s current validator.' } } },
    },
  };
}
