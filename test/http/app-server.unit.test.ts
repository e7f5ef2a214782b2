import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createAppServer } from '../../src/http/app-server';

/** The constructor names of the requests and responses Express re-parented while serving one GET. */
async function reparentedDuringOneRequest(makeServer: (app: express.Express) => http.Server): Promise<string[]> {
  const app = express();
  app.set('etag', false);
  app.get('/hello', (req, res) => {
    res.json({ ip: req.ip, json: typeof res.json, app: req.app === app });
  });
  const server = makeServer(app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const realSetPrototypeOf = Object.setPrototypeOf;
  const reparented: string[] = [];
  Object.setPrototypeOf = (o: object, proto: object | null) => {
    if (Object.getPrototypeOf(o) !== proto) reparented.push(String((o as { constructor?: { name?: string } })?.constructor?.name));
    return realSetPrototypeOf(o, proto);
  };
  try {
    const port = (server.address() as AddressInfo).port;
    const res = await fetch(`http://127.0.0.1:${port}/hello`);
    // Express's own request and response helpers are all there.
    assert.deepEqual(await res.json(), { ip: '127.0.0.1', json: 'function', app: true });
  } finally {
    Object.setPrototypeOf = realSetPrototypeOf;
    await new Promise<void>((r) => server.close(() => r()));
  }
  return reparented;
}

describe('HTTP server: requests born with the app\'s prototypes', () => {
  it('rule: no request or response is re-parented (re-parenting made V8 promote every request to the old generation)', async () => {
    assert.deepEqual(await reparentedDuringOneRequest(createAppServer), []);
  });

  it('a plain http.createServer would re-parent both (what the rule above guards against)', async () => {
    assert.deepEqual(await reparentedDuringOneRequest((app) => http.createServer(app)), ['IncomingMessage', 'ServerResponse']);
  });
});
