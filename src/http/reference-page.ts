import fs from 'node:fs';
import path from 'node:path';
import type { Router } from 'express';

/** The Scalar API reference, a single-file browser bundle shipped in its npm package: no CDN, works offline. */
const BUNDLE = require.resolve('@scalar/api-reference/browser/standalone.js');
// The package does not export its package.json: read it from beside the bundle's dist folder.
const VERSION = (JSON.parse(fs.readFileSync(path.join(path.dirname(BUNDLE), '../../package.json'), 'utf8')) as { version: string }).version;

/** The bundle's address names its version, so a browser may keep it for good. */
export const REFERENCE_SCRIPT = `/docs/api-reference-${VERSION}.js`;

/**
 * The page: Scalar reads the document from /api/v2/openapi.json on the same host and its "try it" sends
 * requests there (the document's server is the relative `/api/v2`). No fonts or request proxy from
 * elsewhere: the page names no other host.
 */
function page(base: string): string {
  const config = { url: `${base}/openapi.json`, withDefaultFonts: false, proxyUrl: '', showDeveloperTools: 'never' };
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Insurance Filing Research Service API reference</title>
</head>
<body>
<div id="app"></div>
<script src="${base}${REFERENCE_SCRIPT}"></script>
<script>Scalar.createApiReference('#app', ${JSON.stringify(config)});</script>
</body>
</html>
`;
}

/** GET /docs and its script, without the API key (the page holds nothing private; the key is typed into it). */
export function mountReferencePage(api: Router, base = '/api/v2'): void {
  const html = page(base);
  api.get('/docs', (_req, res) => {
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    res.setHeader('Cache-Control', 'no-cache');
    res.send(html);
  });
  api.get(REFERENCE_SCRIPT, (_req, res, next) => {
    res.sendFile(BUNDLE, { headers: { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'public, max-age=31536000, immutable' } }, (err) => {
      if (err) next(err);
    });
  });
}
