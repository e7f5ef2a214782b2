import { loadConfig } from '../../src/config';
import type { Logger } from '../../src/logger';
import { openRuntime } from '../../src/runtime';
import { TOKENS } from '../../src/tokens';
import type { IdentityCommands } from '../../commands/identity/identity-commands';
import { seedListings } from '../../test/working-filings/support';

/**
 * What the working-filing command loads need: a manager's API key on a scope with one company,
 * jurisdiction and product listed, and the body of a valid create in that scope.
 */
export async function seedCommandsWorkspace(databaseUrl: string, dataDir: string, log: Logger): Promise<{ apiKey: string; scope: string; createBody: string }> {
  const rt = await openRuntime(loadConfig({}, { databaseUrl, dataDir }), log);
  try {
    const id = rt.container.get<IdentityCommands>(TOKENS.IdentityCommands);
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
