import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { UploadCommands, SIGNED_UPLOAD_PREFIX } from '../../../commands/artifacts/upload-commands';
import { UploadTokens } from '../../../commands/artifacts/upload-tokens';
import { SignedUrls } from '../../../src/http/signed-urls';
import type { Principal } from '../../../src/domain/principal';

const scopeId = crypto.randomUUID();
const caller: Principal = { keyId: 'k', userId: 'u', tenantId: 't', name: null, email: null, readOnly: false, permissions: [], tenant: { datasets: [], sharing: false } };
const secret = crypto.randomBytes(32);

/** Only what starting an upload reads: the caller's grant in the scope (editable). */
function uploads(publicBaseUrl: string | null): UploadCommands {
  const access = { editableScope: async (_p: Principal, scope: string) => ({ scopeId, scope, role: 'editor' as const }) };
  const lookups = { artifacts: async () => new Map() };
  return new UploadCommands(null as never, access as never, lookups as never, null as never, new SignedUrls(secret, publicBaseUrl), new UploadTokens(secret), { error: () => {} });
}

const input = { scope: `mc:${scopeId}`, name: 'a.txt', mimeType: 'text/plain', size: 3 };

describe('working filings: starting an upload takes plain values', () => {
  it('rule: the signed upload address is under the base URL the route gives (no Express request in the command service)', async () => {
    const begun = await uploads(null).begin(caller, input, 'http://api.test:8080');
    const url = new URL(begun.uploadUrl);
    assert.equal(url.origin, 'http://api.test:8080');
    assert.ok(url.pathname.startsWith(SIGNED_UPLOAD_PREFIX), url.pathname);
    assert.equal(url.pathname.slice(SIGNED_UPLOAD_PREFIX.length), begun.uploadToken);
  });

  it('rule: PUBLIC_BASE_URL, when set, is the base of the signed upload address, whatever base the route gives', async () => {
    const begun = await uploads('https://files.example.test/').begin(caller, input, 'http://api.test:8080');
    assert.ok(begun.uploadUrl.startsWith(`https://files.example.test${SIGNED_UPLOAD_PREFIX}`), begun.uploadUrl);
  });
});
