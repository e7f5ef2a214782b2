/** The authenticated caller, resolved from an API key on every request. */
export interface Principal {
  keyId: string;
  userId: string;
  tenantId: string;
  name: string | null;
  email: string | null;
  readOnly: boolean;
  permissions: string[];
  tenant: { datasets: string[]; sharing: boolean };
}

export const SERFF_VIEW = 'serff:view';

export function canViewSerff(p: Principal): boolean {
  return p.permissions.includes(SERFF_VIEW);
}

export function hasDataset(p: Principal, dataset: string): boolean {
  return p.tenant.datasets.includes(dataset);
}

export type ScopeRole = 'viewer' | 'editor' | 'manager';
export const SCOPE_ROLES: ScopeRole[] = ['viewer', 'editor', 'manager'];
