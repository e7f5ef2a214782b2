import type { Knex } from 'knex';
import type { ArtifactEvent } from '../../src/domain/events/artifacts';
import { type ProjectionContext, type Projector, type TableNamer, notApplied, type EventCoverage, type ProjectedEvent } from '../projector';
import { ARTIFACTS_PROJECTION } from '../../src/read-models/projection-names';

const HANDLES = {
  ArtifactUploadReceived: 'ignored',
  ArtifactCreated: 'applied',
  ArtifactVersionAdded: 'applied',
  ArtifactVersionIndexed: 'applied',
} as const satisfies EventCoverage<ArtifactEvent>;

/** Working files (artifacts) with their current version: what item writes resolve references against. */
export class ArtifactsProjector implements Projector<ArtifactEvent, typeof HANDLES> {
  readonly name = ARTIFACTS_PROJECTION;
  readonly version = 1;
  readonly tables = ['working_artifacts', 'working_artifact_versions'];
  readonly handles = HANDLES;

  async createSchema(trx: Knex.Transaction, t: TableNamer): Promise<void> {
    await trx.raw(`
      create table ${t('working_artifacts')} (id uuid primary key, scope text not null, scope_id uuid not null, tenant_id text not null,
        name text not null, created_by text not null, created_at timestamptz not null, updated_at timestamptz not null,
        current_version_id uuid, current_version_number integer, version integer not null);
      create table ${t('working_artifact_versions')} (id uuid primary key, artifact_id uuid not null, version_number integer not null,
        content_sha256 text not null, size bigint not null, mime_type text not null, name text not null, created_at timestamptz not null,
        indexed boolean not null default false, text_sha256 text, page_count integer, extraction_method text);
      create index on ${t('working_artifact_versions')} (artifact_id, version_number);
    `);
  }

  async apply({ trx, table: t }: ProjectionContext, events: ProjectedEvent<ArtifactEvent, typeof HANDLES>[]): Promise<void> {
    for (const e of events) {
      switch (e.type) {
        case 'ArtifactCreated': {
          const d = e.data;
          await trx(t('working_artifacts'))
            .insert({ id: d.artifactId, scope: d.scope, scope_id: d.scopeId, tenant_id: d.tenantId, name: d.name, created_by: d.createdBy, created_at: d.createdAt, updated_at: d.createdAt, version: e.version })
            .onConflict('id')
            .ignore();
          break;
        }
        case 'ArtifactVersionAdded': {
          const v = e.data.version;
          await trx(t('working_artifact_versions'))
            .insert({ id: v.id, artifact_id: e.data.artifactId, version_number: v.versionNumber, content_sha256: v.contentSha256, size: v.size, mime_type: v.mimeType, name: v.name, created_at: v.createdAt })
            .onConflict('id')
            .ignore();
          await trx(t('working_artifacts'))
            .where({ id: e.data.artifactId })
            .andWhere('version', '<', e.version)
            .update({ name: v.name, updated_at: v.createdAt, current_version_id: v.id, current_version_number: v.versionNumber, version: e.version });
          break;
        }
        case 'ArtifactVersionIndexed':
          await trx(t('working_artifact_versions'))
            .where({ id: e.data.versionId })
            .update({ indexed: true, text_sha256: e.data.text?.sha256 ?? null, page_count: e.data.text?.pageCount ?? null, extraction_method: e.data.text?.method ?? null });
          break;
        default:
          notApplied(e);
      }
    }
  }
}
