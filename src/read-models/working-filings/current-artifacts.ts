import type { Attachment, ItemState } from '../../domain/events/managed-filings';

/**
 * Contract, PATCH /managed-filings/{filingId}/items/{itemId}: "Related working files follow current
 * content; version pinning occurs when a submission is recorded." This service records no submissions,
 * so an item and its attachments are served with their artifacts' current versions (and current names),
 * resolved whenever the item is read or answered; the item events keep the version each write saw (the
 * audit history at GET .../events). Resolving on read, not by projecting artifact versions into the item
 * rows, keeps the items projector within its own streams (no cross-stream ordering, rebuilds unchanged),
 * and an upload's completion, which waits for the artifacts read model, is then read-your-writes for the
 * items too.
 *
 * Only artifacts of the filing's own scope are resolved (the item commands accept no others): a
 * reference to anything else keeps what was written, so no other scope's version or name shows.
 */

/** An artifact of a scope with its current version, as ReferenceLookups.artifacts finds it. */
export interface ArtifactRef {
  id: string;
  name: string;
  scopeId: string;
  currentVersionId: string;
  currentVersionNumber: number;
}

/** What an item shows of an artifact it names. */
export type CurrentArtifact = Pick<ArtifactRef, 'id' | 'name' | 'currentVersionId' | 'currentVersionNumber'>;

/** The artifacts an item names: its own, then its attachments'. */
export function artifactIdsOf(item: Pick<ItemState, 'artifactId' | 'attachments'>): string[] {
  return [item.artifactId, ...item.attachments.map((a) => a.artifactId)];
}

/** The item as served: each artifact found in `current` at its current version; one not found keeps what was written. */
export function withCurrentArtifacts(item: ItemState, current: ReadonlyMap<string, CurrentArtifact>): ItemState {
  const attachment = (a: Attachment): Attachment => {
    const c = current.get(a.artifactId);
    return c ? { artifactId: a.artifactId, artifactVersionId: c.currentVersionId, artifactName: c.name, artifactVersionNumber: c.currentVersionNumber } : a;
  };
  return { ...item, artifactVersionId: current.get(item.artifactId)?.currentVersionId ?? item.artifactVersionId, attachments: item.attachments.map(attachment) };
}

/**
 * SQL: the current artifacts among the ids `ids` (a uuid[] expression) in the scope `scopeId` (a uuid
 * expression), as a json array that currentArtifactsFromJson reads. Rides along in another statement
 * (the item PATCH's guarded append), so it adds no round trip.
 */
export const currentArtifactsSql = (ids: string, scopeId: string) =>
  `(select coalesce(json_agg(json_build_object('id', wa.id, 'name', wa.name, 'versionId', wa.current_version_id, 'versionNumber', wa.current_version_number)), '[]'::json)
    from working_artifacts wa where wa.id = any(${ids}) and wa.scope_id = ${scopeId} and wa.current_version_id is not null)`;

export function currentArtifactsFromJson(rows: unknown): Map<string, CurrentArtifact> {
  const list = (typeof rows === 'string' ? JSON.parse(rows) : rows) as { id: string; name: string; versionId: string; versionNumber: number }[];
  return new Map(list.map((r) => [r.id, { id: r.id, name: r.name, currentVersionId: r.versionId, currentVersionNumber: r.versionNumber }]));
}

/**
 * SQL: the current artifacts an items row (alias `i`) names, its own and its attachments', in the scope
 * `scopeId`, as currentArtifactsSql gives them: one primary-key look-up per reference, in the statement
 * that reads the rows; withCurrentArtifacts then shows them, as for the write answers.
 */
export const itemArtifactsSql = (scopeId: string) =>
  currentArtifactsSql(`array[i.artifact_id] || array(select (x.a ->> 'artifactId')::uuid from jsonb_array_elements(i.attachments) as x(a))`, scopeId);
