import type { Knex } from 'knex';
import { notFound } from '../../src/domain/errors';
import { defineRoute, type RouteModule } from '../../src/http/route';
import { z } from '../../src/http/zod';
import { UUID, type FilingAccessService } from '../../src/read-models/working-filings/filing-access';
import { artifactRecord, viewFromRow } from '../../src/read-models/artifacts/artifact-record';
import { Artifact } from '../../src/http/schemas/artifact';

/** GET /artifacts/{artifactId} (extension): the working file's record, e.g. to see isIndexed turn true. */
export class ArtifactDetailRoute implements RouteModule {
  constructor(private readonly knex: Knex, private readonly access: FilingAccessService) {}

  routes() {
    return [
      defineRoute({
        method: 'get',
        paths: ['/artifacts/{artifactId}'],
        operationId: 'getArtifact',
        summary: 'A working file (artifact)',
        extension: true,
        description: 'Visible to any role in the artifact\'s scope; 404 otherwise.',
        tags: ['files'],
        params: z.strictObject({ artifactId: z.string() }),
        responses: { 200: { description: 'The artifact record (as in the upload completion result)', schema: Artifact } },
        handler: async ({ principal, params }) => {
          // A UUID's shape, not just its characters: the id column is a uuid, and Postgres refuses to compare other text with it.
          if (!UUID.test(params.artifactId)) throw notFound();
          const row = await this.knex('working_artifacts as a')
            .join('working_artifact_versions as v', 'v.id', 'a.current_version_id')
            .where('a.id', params.artifactId)
            .andWhere('a.tenant_id', principal.tenantId)
            .first('a.*', 'v.id as version_id', 'v.version_number', 'v.content_sha256', 'v.size', 'v.mime_type', 'v.created_at as version_created_at', 'v.indexed', 'v.text_sha256', 'v.page_count', 'v.extraction_method');
          if (!row || !(await this.access.grants(principal)).some((g) => g.scopeId === row.scope_id)) throw notFound();
          return { headers: { 'Cache-Control': 'private, no-store' }, body: artifactRecord(viewFromRow(row)) };
        },
      }),
    ];
  }
}
