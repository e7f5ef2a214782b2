import assert from 'node:assert/strict';
import { startTestRuntime, type TestRuntime } from '../../support/runtime';

describe('/api/v2/docs: the API reference page', () => {
  let t: TestRuntime;
  let origin: string;
  before(async () => {
    t = await startTestRuntime();
    origin = new URL(t.baseUrl).origin;
  });
  after(async () => t.close());

  it('rule: the reference page is HTML served without the API key', async () => {
    const r = await fetch(`${t.baseUrl}/docs`);
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type') ?? '', /^text\/html/);
    const html = await r.text();
    assert.match(html, /<div id="app"><\/div>/);
  });

  it('rule: the page names no other host (no CDN: it works offline) and reads the document from the same host', async () => {
    const html = await (await fetch(`${t.baseUrl}/docs`)).text();
    assert.deepEqual(html.match(/(https?:)?\/\/[^\s"'<>]+/g), null, 'no absolute or protocol-relative address');
    assert.match(html, /"url":"\/api\/v2\/openapi.json"/);
    const doc = (await (await fetch(`${t.baseUrl}/openapi.json`)).json()) as { servers: { url: string }[] };
    assert.deepEqual(doc.servers, [{ url: '/api/v2' }], '"try it" sends requests to the host that served the page');
  });

  it('rule: the page script is served from the service, without the key, as JavaScript that may be cached for good', async () => {
    const html = await (await fetch(`${t.baseUrl}/docs`)).text();
    const src = /<script src="([^"]+)"><\/script>/.exec(html)?.[1];
    assert.ok(src?.startsWith('/api/v2/docs/'), String(src));
    const js = await fetch(origin + src);
    assert.equal(js.status, 200);
    assert.match(js.headers.get('content-type') ?? '', /^text\/javascript/);
    assert.match(js.headers.get('cache-control') ?? '', /immutable/);
    assert.match(await js.text(), /createApiReference/);
  });

  it('rule: the reference page and its script are not operations of the API document', async () => {
    const doc = (await (await fetch(`${t.baseUrl}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    assert.deepEqual(Object.keys(doc.paths).filter((p) => p.startsWith('/docs')), []);
  });
});
