import crypto from 'node:crypto';
import assert from 'node:assert/strict';
import { client, makeCaller, startTestRuntime, type TestCaller, type TestRuntime } from '../../support/runtime';
import { aBareFile, aContentFile, aFiling, aTextFile, appendFiling, importFiling, pdfOf, type ImportedFiling } from '../../support/catalog-filing-mother';
import { SignedUrls } from '../../../src/http/signed-urls';
import { INVENTORY_MAX_ENTRIES } from '../../../queries/files/file-inventory';

describe('stored files of catalog filings: inventory, text, download', () => {
  let t: TestRuntime;
  let viewer: TestCaller; // serff:view
  let plain: TestCaller; // no serff:view
  let fl: ImportedFiling;
  let serff: ImportedFiling;
  const tricky = 'Héllo 中文 😀 wildfire surcharge é中😀\nsecond line';

  before(async () => {
    t = await startTestRuntime();
    viewer = await makeCaller(t.rt);
    plain = await makeCaller(t.rt, { tenantId: viewer.tenantId, permissions: [] });
    fl = await importFiling(t.rt, aFiling(), [
      aTextFile([tricky, 'page two ' + 'é'.repeat(50), ''], { name: 'Memo.pdf', role: 'supporting_document', versionId: 'v-7' }),
      aContentFile(await pdfOf(['First page of the rate exhibit', 'Second page, résumé'], ), { name: 'Rate Exhibit – 2024.pdf', mimeType: 'application/pdf', role: 'rate' }),
      aContentFile(Buffer.from('0123456789abcdefghij'), { name: 'data.bin', mimeType: 'application/octet-stream', role: 'other' }),
      aTextFile([''], { name: 'Empty.pdf' }),
      aContentFile(Buffer.from('secret'), { name: 'restricted.txt', restricted: true }),
      aTextFile([], { text: null, name: 'Nothing.pdf' }),
    ]);
    serff = await importFiling(t.rt, aFiling({ source: 'serff', state: 'TX' }), [aTextFile(['serff text'])]);
    await t.rt.engine.catchUp();
  });
  after(async () => t.close());

  const api = (c: TestCaller = viewer) => client(t.baseUrl, c.apiKey);

  describe('GET /filings/{filingId}/files', () => {
    it('lists the files in record order with role, versionId, size, pages, text availability, restriction', async () => {
      const r = await api().get(`/filings/${fl.filing.id}/files`);
      assert.equal(r.status, 200);
      assert.equal(r.body.nextCursor, null);
      assert.deepEqual(
        r.body.files.map((f: any) => [f.name, f.role, f.versionId, f.textAvailable, f.restricted]),
        [
          ['Memo.pdf', 'supporting_document', 'v-7', true, false],
          ['Rate Exhibit – 2024.pdf', 'rate', null, true, false],
          ['data.bin', 'other', null, false, false],
          ['Empty.pdf', 'supporting_document', null, true, false],
          ['restricted.txt', 'supporting_document', null, true, true],
          ['Nothing.pdf', 'supporting_document', null, false, false],
        ],
      );
      const exhibit = r.body.files[1];
      assert.equal(exhibit.pageCount, 2);
      assert.equal(exhibit.mimeType, 'application/pdf');
      assert.ok(exhibit.size > 100);
      assert.equal(r.body.files[2].size, 20);
      assert.equal(r.body.files[0].size, null);
      assert.equal((await api().get(`/insurance/filings/${fl.filing.id}/files`)).body.files.length, 6);
    });

    it('pages with limit and a cursor bound to the filing and the limit', async () => {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const r: any = await api().get(`/filings/${fl.filing.id}/files?limit=4${cursor ? `&cursor=${cursor}` : ''}`);
        assert.equal(r.status, 200);
        seen.push(...r.body.files.map((f: any) => f.fileId));
        cursor = r.body.nextCursor;
        if (cursor) {
          assert.equal((await api().get(`/filings/${fl.filing.id}/files?limit=5&cursor=${cursor}`)).body.code, 'invalid_cursor');
          assert.equal((await api(plain).get(`/filings/${serff.filing.id}/files?limit=4&cursor=${cursor}`)).status, 404);
        }
      } while (cursor);
      assert.deepEqual(seen, fl.files.map((f) => f.fileId));
      for (const bad of ['limit=0', 'limit=201', 'limit=x', 'foo=1', 'limit=1&limit=2']) {
        const r = await api().get(`/filings/${fl.filing.id}/files?${bad}`);
        assert.equal(r.status, 400, bad);
        assert.equal(r.body.code, 'invalid_request');
      }
    });

    it('rule: unknown filing is 404; a serff filing without serff:view is 404 not_found', async () => {
      assert.equal((await api().get(`/filings/${crypto.randomUUID()}/files`)).status, 404);
      assert.equal((await api().get(`/filings/not-a-uuid/files`)).status, 404);
      assert.equal((await api().get(`/filings/${serff.filing.id}/files`)).status, 200);
      const r = await api(plain).get(`/filings/${serff.filing.id}/files`);
      assert.equal(r.status, 404);
      assert.equal(r.body.code, 'not_found');
      assert.equal((await api(plain).get(`/files/${serff.files[0].fileId}/text`)).status, 404);
      assert.equal((await api(plain).get(`/files/${serff.files[0].fileId}/download`)).status, 404);
      assert.equal((await api(plain).get(`/filings/${fl.filing.id}/files`)).status, 200);
    });

    it(`rule: traversal past ${INVENTORY_MAX_ENTRIES} entries is 409 inventory_limit_exceeded`, async () => {
      const big = await appendFiling(t.rt, aFiling(), Array.from({ length: INVENTORY_MAX_ENTRIES + 5 }, () => aBareFile()));
      await t.rt.engine.catchUp();
      let cursor: string | null = null;
      let pages = 0;
      let last: any;
      for (;;) {
        last = await api().get(`/filings/${big.filing.id}/files?limit=200${cursor ? `&cursor=${cursor}` : ''}`);
        if (last.status !== 200) break;
        pages++;
        cursor = last.body.nextCursor;
        assert.ok(cursor, 'a partial inventory never ends with a null cursor');
      }
      assert.equal(pages, INVENTORY_MAX_ENTRIES / 200);
      assert.equal(last.status, 409);
      assert.equal(last.body.code, 'inventory_limit_exceeded');
    });

    it('follows a re-import (CatalogFilingUpdated): files replaced, replay harmless', async () => {
      const f = aFiling();
      const a = await importFiling(t.rt, f, [aTextFile(['v1'], { name: 'one.pdf' })]);
      await importFiling(t.rt, f, [aTextFile(['v2'], { name: 'two.pdf' })], { update: a.version });
      await t.rt.engine.catchUp();
      const r = await api().get(`/filings/${f.id}/files`);
      assert.deepEqual(r.body.files.map((x: any) => x.name), ['two.pdf']);
    });
  });

  describe('GET /files/{fileId}/text', () => {
    const readAll = async (fileId: string, maxBytes?: number) => {
      const parts: Buffer[] = [];
      let cursor: string | null = null;
      let expectStart = 0;
      let revision: string | undefined;
      do {
        const q = [maxBytes ? `maxBytes=${maxBytes}` : '', cursor ? `cursor=${cursor}` : ''].filter(Boolean).join('&');
        const r: any = await api().get(`/files/${fileId}/text${q ? `?${q}` : ''}`);
        assert.equal(r.status, 200, JSON.stringify(r.body));
        const bytes = Buffer.from(r.body.text, 'utf8');
        assert.equal(r.body.fileId, fileId);
        assert.equal(r.body.versionId, null);
        assert.equal(r.body.location.startOffsetBytes, expectStart);
        assert.equal(r.body.location.endOffsetBytes, expectStart + bytes.length);
        if (maxBytes) assert.ok(bytes.length <= maxBytes);
        if (r.body.nextCursor) assert.ok(bytes.length > 0);
        revision ??= r.body.textRevision;
        assert.equal(r.body.textRevision, revision);
        expectStart += bytes.length;
        parts.push(bytes);
        cursor = r.body.nextCursor;
      } while (cursor);
      return Buffer.concat(parts);
    };

    it('rule: concatenated chunks equal the text byte for byte, multi-byte characters never split (maxBytes=4 .. default)', async () => {
      const whole = Buffer.from([tricky, 'page two ' + 'é'.repeat(50), ''].join('\f'), 'utf8');
      for (const m of [4, 5, 6, 7, 13, undefined]) assert.ok((await readAll(fl.files[0].fileId, m)).equals(whole), `maxBytes=${m}`);
    });

    it('serves PDF-extracted text with pages separated by form feeds', async () => {
      const text = (await readAll(fl.files[1].fileId)).toString('utf8');
      const pages = text.split('\f');
      assert.equal(pages.length, 2);
      assert.match(pages[0], /First page of the rate exhibit/);
      assert.match(pages[1], /Second page, résumé/);
    });

    it('rule: an empty extraction is empty text with a null cursor; no extraction is 409 text_unavailable', async () => {
      const empty = await api().get(`/files/${fl.files[3].fileId}/text`);
      assert.equal(empty.status, 200);
      assert.equal(empty.body.text, '');
      assert.equal(empty.body.nextCursor, null);
      assert.deepEqual(empty.body.location, { startOffsetBytes: 0, endOffsetBytes: 0 });
      for (const i of [2, 5]) {
        const r = await api().get(`/files/${fl.files[i].fileId}/text`);
        assert.equal(r.status, 409);
        assert.equal(r.body.code, 'text_unavailable');
      }
      assert.equal((await api().get(`/files/${crypto.randomUUID()}/text`)).status, 404);
    });

    it('rule: maxBytes is 4..1,048,576; the cursor is bound to file, maxBytes and caller', async () => {
      for (const m of ['3', '1048577', 'abc', '-1']) assert.equal((await api().get(`/files/${fl.files[0].fileId}/text?maxBytes=${m}`)).status, 400, m);
      assert.equal((await api().get(`/files/${fl.files[0].fileId}/text?maxBytes=1048576`)).status, 200);
      const first = await api().get(`/files/${fl.files[0].fileId}/text?maxBytes=8`);
      const c = first.body.nextCursor;
      assert.equal((await api().get(`/files/${fl.files[0].fileId}/text?maxBytes=9&cursor=${c}`)).body.code, 'invalid_cursor');
      assert.equal((await api().get(`/files/${fl.files[0].fileId}/text?cursor=${c}`)).body.code, 'invalid_cursor');
      assert.equal((await api().get(`/files/${fl.files[1].fileId}/text?maxBytes=8&cursor=${c}`)).body.code, 'invalid_cursor');
      const other = await makeCaller(t.rt, { tenantId: viewer.tenantId });
      assert.equal((await api(other).get(`/files/${fl.files[0].fileId}/text?maxBytes=8&cursor=${c}`)).body.code, 'invalid_cursor');
      assert.equal((await api().get(`/files/${fl.files[0].fileId}/text?maxBytes=8&cursor=${c.slice(0, 10)}${c[10] === 'A' ? 'B' : 'A'}${c.slice(11)}`)).body.code, 'invalid_cursor');
    });

    it('rule: a 4-byte chunk ends before the character it would split, whatever its length (1 to 3 bytes cut off)', async () => {
      // [text, end of its first 4-byte chunk]: a lead byte cut off with 0, 1 or 2 of its continuation bytes, or no cut.
      const cases: [string, number][] = [
        ['abcé-', 3], // é = C3 A9: the lead byte alone would end the chunk
        ['ab中-', 2], // 中 = E4 B8 AD: lead + 1
        ['a😀-', 1], // 😀 = F0 9F 98 80: lead + 2
        ['a中-', 4], // a 3-byte character that ends exactly at the cut
        ['😀-', 4], // a 4-byte character that ends exactly at the cut
        ['aé-x', 4], // ASCII at the cut
      ];
      const files = cases.map(([text]) => aTextFile([text]));
      await importFiling(t.rt, aFiling(), files);
      await t.rt.engine.catchUp();
      for (let i = 0; i < cases.length; i++) {
        const r = await api().get(`/files/${files[i].fileId}/text?maxBytes=4`);
        assert.equal(r.body.location.endOffsetBytes, cases[i][1], cases[i][0]);
        assert.ok(cases[i][0].startsWith(r.body.text), cases[i][0]);
        assert.ok(r.body.nextCursor);
      }
    });

    it('rule: a text over 256 KiB (kept in the filesystem store, not Postgres) is chunked the same way, byte for byte', async () => {
      const page = (i: number) => `Page ${i}: aé中😀 "quoted" back\\slash\ttab\r\u0001 ${'rate '.repeat(200)}\n`;
      const pages = Array.from({ length: 300 }, (_, i) => page(i));
      const whole = Buffer.from(pages.join('\f'), 'utf8');
      assert.ok(whole.length > 256 * 1024);
      const file = aTextFile(pages, { name: 'Rate Manual.pdf' });
      await importFiling(t.rt, aFiling(), [file]);
      await t.rt.engine.catchUp();
      const sha256 = crypto.createHash('sha256').update(whole).digest('hex');
      assert.equal((await t.rt.db.knex('blob_small').where({ sha256 })).length, 0, 'the text is in the filesystem store');
      for (const m of [undefined, 4099, 65_537]) assert.ok((await readAll(file.fileId, m)).equals(whole), `maxBytes=${m}`);
    });

    it('rule: quotes, backslashes, control characters and NUL come back exactly (Postgres and filesystem texts)', async () => {
      const odd = 'nul \u0000 "q" \\ \t\r\u0001\u001f\u007f \u2028 é中😀\n';
      const small = aTextFile([odd, odd.repeat(3)]);
      const large = aTextFile([odd.repeat(8000), 'end']);
      await importFiling(t.rt, aFiling(), [small, large]);
      await t.rt.engine.catchUp();
      for (const [f, pages] of [[small, [odd, odd.repeat(3)]], [large, [odd.repeat(8000), 'end']]] as const) {
        const whole = Buffer.from(pages.join('\f'), 'utf8');
        for (const m of [undefined, 5, 4096]) {
          if (m === 5 && f === large) continue; // 50,000 requests: the small text covers every cut
          assert.ok((await readAll(f.fileId, m)).equals(whole), `maxBytes=${m}`);
        }
      }
    });

    it('rule: a bad cursor on an unknown or text-less file is still 404 / 409; a cursor continues under any case of the file id', async () => {
      const first = await api().get(`/files/${fl.files[0].fileId}/text?maxBytes=8`);
      const c = first.body.nextCursor as string;
      assert.equal((await api().get(`/files/${crypto.randomUUID()}/text?maxBytes=8&cursor=${c}`)).status, 404);
      assert.equal((await api().get(`/files/${crypto.randomUUID()}/text?maxBytes=8&cursor=garbage`)).status, 404);
      const none = await api().get(`/files/${fl.files[5].fileId}/text?maxBytes=8&cursor=garbage`);
      assert.equal(none.status, 409);
      assert.equal(none.body.code, 'text_unavailable');
      assert.equal((await api(plain).get(`/files/${serff.files[0].fileId}/text?cursor=garbage`)).status, 404);
      const upper = await api().get(`/files/${fl.files[0].fileId.toUpperCase()}/text?maxBytes=8&cursor=${c}`);
      assert.equal(upper.status, 200, JSON.stringify(upper.body));
      assert.equal(upper.body.fileId, fl.files[0].fileId);
      assert.equal(upper.body.location.startOffsetBytes, first.body.location.endOffsetBytes);
    });

    it('rule: a text revision change between chunks is 400 invalid_cursor (restart), never a mix', async () => {
      const f = aFiling();
      const file = aTextFile(['original text of the memorandum'], { name: 'm.pdf' });
      const a = await importFiling(t.rt, f, [file]);
      await t.rt.engine.catchUp();
      const first = await api().get(`/files/${file.fileId}/text?maxBytes=8`);
      await importFiling(t.rt, f, [{ ...file, text: { pages: ['revised text of the memorandum'] } }], { update: a.version });
      await t.rt.engine.catchUp();
      const next = await api().get(`/files/${file.fileId}/text?maxBytes=8&cursor=${first.body.nextCursor}`);
      assert.equal(next.status, 400);
      assert.equal(next.body.code, 'invalid_cursor');
      const restart = await api().get(`/files/${file.fileId}/text?maxBytes=8`);
      assert.notEqual(restart.body.textRevision, first.body.textRevision);
    });
  });

  describe('GET /files/{fileId}/download and the signed address', () => {
    const fetchSigned = (url: string, headers: Record<string, string> = {}) => fetch(url, { headers, redirect: 'manual' });

    it('rule: 302 with File-Version-Id and an absolute signed Location, followed without the API key', async () => {
      const file = fl.files[1];
      const r = await api().get(`/files/${file.fileId}/download`);
      assert.equal(r.status, 302);
      const location = r.headers.get('location')!;
      assert.match(location, /^http:\/\/127\.0\.0\.1:\d+\/api\/v2\/signed\/files\//);
      assert.equal(r.headers.get('file-version-id'), `sha256-${file.contentSha256!.slice(0, 32)}`);
      const d = await fetchSigned(location);
      assert.equal(d.status, 200);
      assert.equal(d.headers.get('content-type'), 'application/pdf');
      assert.equal(d.headers.get('accept-ranges'), 'bytes');
      assert.equal(Number(d.headers.get('content-length')), file.size);
      assert.equal(d.headers.get('content-disposition'), `attachment; filename="Rate Exhibit _ 2024.pdf"; filename*=UTF-8''Rate%20Exhibit%20%E2%80%93%202024.pdf`);
      const bytes = Buffer.from(await d.arrayBuffer());
      assert.equal(bytes.subarray(0, 5).toString(), '%PDF-');
      assert.equal(bytes.length, file.size);
    });

    it('rule: a retry gives a fresh redirect; versionId pins a known version, an unknown one is 404', async () => {
      const file = fl.files[2];
      const a = await api().get(`/files/${file.fileId}/download`);
      const b = await api().get(`/files/${file.fileId}/download`);
      assert.notEqual(a.headers.get('location'), b.headers.get('location'));
      const v = a.headers.get('file-version-id')!;
      const pinned = await api().get(`/files/${file.fileId}/download?versionId=${encodeURIComponent(v)}`);
      assert.equal(pinned.status, 302);
      assert.equal(pinned.headers.get('file-version-id'), v);
      const unknown = await api().get(`/files/${file.fileId}/download?versionId=nope`);
      assert.equal(unknown.status, 404);
      assert.equal(unknown.body.code, 'not_found');
    });

    it('rule: any source versionId gives a 302 with a File-Version-Id header (never a 500) that pins the same version on a retry', async () => {
      const versions = ['版本 2', 'v1\nrev', 'v%41 ü'];
      const f = await importFiling(t.rt, aFiling(), versions.map((v, i) => aContentFile(Buffer.from(`bytes ${i}`), { name: `v${i}.txt`, versionId: v })));
      await t.rt.engine.catchUp();
      for (let i = 0; i < versions.length; i++) {
        const { fileId } = f.files[i];
        const r = await api().get(`/files/${fileId}/download`);
        assert.equal(r.status, 302, `${versions[i]}: ${r.text}`);
        const header = r.headers.get('file-version-id')!;
        assert.match(header, /^[\x21-\x7e]+$/, 'a header value a client reads back as sent');
        for (const given of [header, versions[i]]) {
          const again = await api().get(`/files/${fileId}/download?versionId=${encodeURIComponent(given)}`);
          assert.equal(again.status, 302, given);
          assert.equal(again.headers.get('file-version-id'), header);
        }
        const d = await fetchSigned(r.headers.get('location')!);
        assert.equal(d.status, 200);
        assert.equal(d.headers.get('file-version-id'), header);
        assert.equal(await d.text(), `bytes ${i}`);
      }
    });

    it('rule: the signed address serves a file whose recorded media type is not one (never a 500): as application/octet-stream', async () => {
      const types = ['текст/plain', 'text/plain\r\nX-Injected: 1', 'not a media type'];
      const f = await importFiling(t.rt, aFiling(), types.map((mimeType, i) => aContentFile(Buffer.from(`typed ${i}`), { name: `t${i}.txt`, mimeType })));
      await t.rt.engine.catchUp();
      for (let i = 0; i < types.length; i++) {
        const r = await api().get(`/files/${f.files[i].fileId}/download`);
        assert.equal(r.status, 302);
        const d = await fetchSigned(r.headers.get('location')!);
        assert.equal(d.status, 200, JSON.stringify(types[i]));
        assert.equal(d.headers.get('content-type'), 'application/octet-stream');
        assert.equal(d.headers.get('x-injected'), null);
        assert.equal(await d.text(), `typed ${i}`);
      }
    });

    it('rule: Range requests give 206 with Content-Range, unsatisfiable ones 416', async () => {
      const r = await api().get(`/files/${fl.files[2].fileId}/download`);
      const url = r.headers.get('location')!;
      const part = await fetchSigned(url, { Range: 'bytes=2-5' });
      assert.equal(part.status, 206);
      assert.equal(part.headers.get('content-range'), 'bytes 2-5/20');
      assert.equal(await part.text(), '2345');
      const tail = await fetchSigned(url, { Range: 'bytes=-3' });
      assert.equal(await tail.text(), 'hij');
      const bad = await fetchSigned(url, { Range: 'bytes=20-' });
      assert.equal(bad.status, 416);
      assert.equal(bad.headers.get('content-range'), 'bytes */20');
      assert.equal(((await bad.json()) as any).code, 'range_not_satisfiable');
    });

    it('rule: an altered or expired signed address is 403 with the JSON error shape', async () => {
      const r = await api().get(`/files/${fl.files[2].fileId}/download`);
      const url = new URL(r.headers.get('location')!);
      const altered = new URL(url);
      altered.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 60));
      const other = url.toString().replace(fl.files[2].fileId, fl.files[1].fileId);
      for (const u of [altered.toString(), other, url.origin + url.pathname]) {
        const d = await fetchSigned(u);
        assert.equal(d.status, 403, u);
        const body = (await d.json()) as any;
        assert.equal(body.code, 'forbidden');
        assert.ok(body.requestId);
      }
      const signer = t.rt.container.get(SignedUrls);
      const expired = signer.sign('GET', url.pathname, 1, Date.now() - 10_000);
      const d = await fetchSigned(url.origin + expired.url);
      assert.equal(d.status, 403);
      assert.match(((await d.json()) as any).error, /expired/);
    });

    it('rule: a restricted file is 403 download_restricted; no stored original is 409 content_unavailable', async () => {
      const r = await api().get(`/files/${fl.files[4].fileId}/download`);
      assert.equal(r.status, 403);
      assert.equal(r.body.code, 'download_restricted');
      const none = await api().get(`/files/${fl.files[0].fileId}/download`);
      assert.equal(none.status, 409);
      assert.equal(none.body.code, 'content_unavailable');
    });
  });

  it('rule: a path whose percent-encoding does not decode is 400 invalid_request (401 first without a valid key), never a 500', async () => {
    for (const p of ['/files/%ZZ/text', '/files/%E0%A4%A/download', '/filings/%ZZ/files', '/insurance/filings/%ZZ/files']) {
      const r = await api().get(p);
      assert.equal(r.status, 400, `${p}: ${r.text}`);
      assert.equal(r.body.code, 'invalid_request');
      assert.equal(r.body.details[0].location, 'path');
      assert.ok(r.body.requestId);
      assert.equal((await client(t.baseUrl, 'ifrs_nope').get(p)).status, 401);
    }
    const signed = await client(t.baseUrl).get('/signed/files/%ZZ/v/g?expires=1&signature=x');
    assert.equal(signed.status, 400, signed.text);
    assert.equal(signed.body.code, 'invalid_request');
  });

  it('the OpenAPI document lists the file, signed download and search operations', async () => {
    const r = await client(t.baseUrl).get('/openapi.json');
    assert.equal(r.status, 200);
    for (const p of ['/filings/{filingId}/files', '/insurance/filings/{filingId}/files', '/files/{fileId}/text', '/files/{fileId}/download', '/signed/files/{fileId}/{version}/{grant}'])
      assert.ok(r.body.paths[p]?.get, p);
    for (const p of ['/insurance/filings/search', '/filings/search']) assert.ok(r.body.paths[p]?.post, p);
    assert.ok(r.body.paths['/files/{fileId}/download'].get.responses['302']);
  });
});
