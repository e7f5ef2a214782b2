import type { Knex } from 'knex';
import type { FilingFields } from '../../commands/managed-filings/filing-fields';
import type { ListingKind } from '../../commands/scope-listings/scope-listing-entry';
import { invalidRequest, type ErrorDetail } from '../../src/domain/errors';

export interface ArtifactRef {
  id: string;
  name: string;
  scopeId: string;
  currentVersionId: string;
  currentVersionNumber: number;
}

const missing = (path: (string | number)[], message: string): ErrorDetail => ({ location: 'body', path: path.map(String), code: 'invalid_value', message });

/**
 * Look-ups of reference data that commands validate against (scope listings, artifacts), through
 * the read side as the architecture allows: a command never decides on read-model state beyond these.
 */
export class ReferenceLookups {
  constructor(private readonly knex: Knex) {}

  /** Which of the given (kind, id) pairs are entries of the scope's listings, in one query. */
  private async existing(scopeId: string, wanted: Record<ListingKind, string[]>): Promise<Set<string>> {
    const kinds = (Object.keys(wanted) as ListingKind[]).filter((k) => wanted[k].length);
    if (!kinds.length) return new Set();
    const res = await this.knex.raw(
      `select kind, id from scope_listing_entries where scope_id = ? and (${kinds.map(() => '(kind = ? and id = any(cast(? as uuid[])))').join(' or ')})`,
      [scopeId, ...kinds.flatMap((k) => [k, wanted[k]])],
    );
    return new Set((res.rows as { kind: string; id: string }[]).map((r) => `${r.kind}:${r.id}`));
  }

  /** companyId, jurisdictionId and every product id must come from the same scope's listings: 400 otherwise. */
  async checkListings(scopeId: string, f: Partial<Pick<FilingFields, 'companyId' | 'jurisdictionId' | 'primaryProductId' | 'additionalProductIds'>>): Promise<void> {
    const products = [...(f.primaryProductId !== undefined ? [f.primaryProductId] : []), ...(f.additionalProductIds ?? [])];
    const found = await this.existing(scopeId, {
      company: f.companyId !== undefined ? [f.companyId] : [],
      jurisdiction: f.jurisdictionId !== undefined ? [f.jurisdictionId] : [],
      product: products,
    });
    const has = (kind: ListingKind, id: string) => found.has(`${kind}:${id}`);
    const details: ErrorDetail[] = [];
    if (f.companyId !== undefined && !has('company', f.companyId)) details.push(missing(['companyId'], 'companyId is not in the company listing of the filing\'s scope.'));
    if (f.jurisdictionId !== undefined && !has('jurisdiction', f.jurisdictionId))
      details.push(missing(['jurisdictionId'], 'jurisdictionId is not in the jurisdiction listing of the filing\'s scope.'));
    if (f.primaryProductId !== undefined && !has('product', f.primaryProductId)) details.push(missing(['primaryProductId'], 'primaryProductId is not in the product listing of the filing\'s scope.'));
    (f.additionalProductIds ?? []).forEach((id, i) => {
      if (!has('product', id)) details.push(missing(['additionalProductIds', i], 'The product is not in the product listing of the filing\'s scope.'));
    });
    if (details.length) throw invalidRequest(details[0].message, details);
  }

  /** Artifacts of one scope by id, with their current version; unknown ones (or another scope's) are absent. */
  async artifacts(scopeId: string, ids: string[]): Promise<Map<string, ArtifactRef>> {
    const uniq = [...new Set(ids)];
    if (!uniq.length) return new Map();
    const rows = await this.knex('working_artifacts')
      .where({ scope_id: scopeId })
      .whereIn('id', uniq)
      .whereNotNull('current_version_id')
      .select('id', 'name', 'scope_id', 'current_version_id', 'current_version_number');
    return new Map(rows.map((r) => [r.id, { id: r.id, name: r.name, scopeId: r.scope_id, currentVersionId: r.current_version_id, currentVersionNumber: r.current_version_number }]));
  }
}
