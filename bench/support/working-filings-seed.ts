import { loadConfig } from '../../src/config';
import type { Logger } from '../../src/util/logger';
import { openRuntime } from '../../src/runtime';
import { IdentityCommands } from '../../commands/identity/identity-commands';
import { seedListings, upload } from '../../test/support/working-filings';

/**
 * What the working-filing command loads need: a manager's API key on a scope with one company,
 * jurisdiction and product listed, and the body of a valid create in that scope.
 */
export async function seedCommandsWorkspace(databaseUrl: string, dataDir: string, log: Logger): Promise<{ apiKey: string; scope: string; createBody: string }> {
  const rt = await openRuntime(loadConfig({}, { databaseUrl, dataDir }), log);
  try {
    const id = rt.container.get(IdentityCommands);
    const meta = { actor: 'bench' };
    const { tenantId } = await id.createTenant({ name: 'Bench', datasets: ['naic'], sharing: false }, meta);
    const { userId } = await id.createUser({ tenantId, name: 'Bench Editor', email: null }, meta);
    const { apiKey } = await id.createKey({ userId, readOnly: false, permissions: [] }, meta);
    const { scope } = await id.createScope({ tenantId, name: 'Bench scope' }, meta);
    await id.grant({ scope, userId, role: 'manager' }, meta);
    const l = await seedListings(rt, scope);
    const createBody = JSON.stringify({
      scope, companyId: l.companyId, jurisdictionId: l.jurisdictionId, primaryProductId: l.productId, filingType: 'rate',
      description: 'Personal auto rate revision: +4.2% statewide, telematics discount expanded.', serffTrackingNumber: 'ALSE-134016536',
    });
    return { apiKey, scope, createBody };
  } finally {
    await rt.close();
  }
}

/**
 * The item PATCH load: one uploaded artifact, and one item on each of 16 new filings (16 editors at work;
 * PATCHes of one filing serialise by design: last write wins, re-decided on conflict). Returns 4,096
 * rotating PATCHes whose contexts all differ, so every command changes something.
 */
export async function seedItemPatches(baseUrl: string, apiKey: string, scope: string, createBody: string): Promise<{ path: string; body: string }[]> {
  const headers = { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' };
  const { artifact } = await upload(baseUrl, apiKey, scope, 'Rate manual page 12: territory relativities.', { name: 'rates.txt' });
  const items: string[] = [];
  for (let i = 0; i < 16; i++) {
    const filing = (await (await fetch(`${baseUrl}/managed-filings`, { method: 'POST', headers, body: createBody })).json()) as { id: string };
    const r = await fetch(`${baseUrl}/managed-filings/${filing.id}/items`, { method: 'POST', headers, body: JSON.stringify({ artifactId: artifact.id, scheduleType: 'rate', scheduleSeqNo: i + 1 }) });
    items.push(`${filing.id}/items/${((await r.json()) as { id: string }).id}`);
  }
  return Array.from({ length: 4_096 }, (_, i) => ({ path: `/managed-filings/${items[i % items.length]}`, body: JSON.stringify({ context: `Revision ${i}` }) }));
}
