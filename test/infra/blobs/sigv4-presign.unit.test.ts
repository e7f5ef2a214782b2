import assert from 'node:assert/strict';
import { S3Client } from '@aws-sdk/client-s3';
import { S3RequestPresigner } from '@aws-sdk/s3-request-presigner';
import { SigV4Presigner, type PresignRequest, type SigningCredentials } from '../../../infra/blobs/sigv4-presign';

/** The SDK's own presigner on the same request, credentials and time: the reference the one-pass signer must equal. */
async function sdkPresign(req: PresignRequest, creds: SigningCredentials, region: string, expiresIn: number, at: Date): Promise<URL> {
  const presigner = new S3RequestPresigner({ ...new S3Client({ region, credentials: creds }).config });
  const [hostname, port] = req.host.split(':');
  const headers = req.headers ?? {};
  const signed = await presigner.presign(
    { method: req.method, protocol: req.protocol, hostname, port: port ? Number(port) : undefined, path: req.path, query: { ...req.query }, headers: { ...headers, host: req.host } },
    { expiresIn, signingDate: at, signableHeaders: new Set(Object.keys(headers)), unhoistableHeaders: new Set(Object.keys(headers)) },
  );
  const u = new URL(`${req.protocol}//${req.host}${req.path}`);
  for (const [k, v] of Object.entries(signed.query ?? {})) u.searchParams.set(k, String(v));
  return u;
}

const params = (u: URL) => [...u.searchParams.entries()].sort(([a], [b]) => (a < b ? -1 : 1));

describe('SigV4 query signing (presigned S3 addresses)', () => {
  const at = new Date('2026-11-27T23:20:05.123Z');
  const cases: { name: string; req: PresignRequest; creds: SigningCredentials; region: string }[] = [
    {
      name: 'a GET with response overrides full of characters RFC 3986 escapes, on a path-style gateway',
      req: {
        method: 'GET',
        protocol: 'http:',
        host: '127.0.0.1:7070',
        path: '/bucket/blobs/' + 'ab'.repeat(32),
        query: { 'response-content-type': 'application/pdf', 'response-content-disposition': `attachment; filename="Rate (v2) *final*!.pdf"; filename*=UTF-8''Rate%20%E2%80%93.pdf`, 'x-ifrs-grant': 'aZ-_9' },
      },
      creds: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' },
      region: 'us-east-1',
    },
    {
      name: 'a PUT with a signed checksum header and a session token, on an AWS virtual host',
      req: { method: 'PUT', protocol: 'https:', host: 'files.s3.eu-west-1.amazonaws.com', path: '/blobs/' + 'cd'.repeat(32), query: {}, headers: { 'x-amz-checksum-sha256': 'n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg=' } },
      creds: { accessKeyId: 'ASIAEXAMPLE', secretAccessKey: 'secret/with+chars', sessionToken: 'token/with+and=' },
      region: 'eu-west-1',
    },
  ];

  for (const c of cases) {
    it(`rule: the one-pass signer gives the SDK presigner's address: ${c.name}`, async () => {
      const ours = new URL(new SigV4Presigner(c.region).presign(c.req, c.creds, 300, at));
      const sdk = await sdkPresign(c.req, c.creds, c.region, 300, at);
      assert.equal(ours.origin + ours.pathname, sdk.origin + sdk.pathname);
      assert.deepEqual(params(ours), params(sdk));
      assert.match(ours.searchParams.get('X-Amz-Signature')!, /^[0-9a-f]{64}$/);
    });
  }

  it('rule: the signature covers the expiry, the method and the day (another of each signs differently)', () => {
    const s = new SigV4Presigner('us-east-1');
    const { req, creds } = cases[0];
    const sig = (r: PresignRequest, expires: number, when: Date) => new URL(s.presign(r, creds, expires, when)).searchParams.get('X-Amz-Signature');
    const base = sig(req, 300, at);
    assert.notEqual(sig(req, 301, at), base);
    assert.notEqual(sig({ ...req, method: 'PUT' }, 300, at), base);
    assert.notEqual(sig(req, 300, new Date(at.getTime() + 86_400_000)), base);
    assert.equal(sig(req, 300, at), base, 'the cached daily key gives the same signature again');
  });
});
