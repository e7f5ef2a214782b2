import type { Knex } from 'knex';
import type { CursorService } from '../../src/http/cursors';
import { defineRoute, type RouteModule } from '../../src/http/route';
import { cursorParam, qInt, qScalar } from '../../src/http/validation';
import { z } from '../../src/http/zod';
import type { FilingAccessService } from '../../src/read-models/working-filings/filing-access';
import { commentFromRow } from '../../src/read-models/working-filings/records';
import { Comment, FilingIdParams } from '../../src/http/schemas/working-filings';

const Query = z.strictObject({ limit: qInt(1, 100, 50).optional(), cursor: cursorParam().optional(), status: qScalar(z.enum(['open', 'resolved'])).optional() });
const CommentList = z.object({ comments: z.array(Comment), nextCursor: z.string().nullable() }).openapi('FilingCommentList');

/** GET /managed-filings/{filingId}/comments: the live timeline, creation time asc then id; status filters on the thread's current state. */
export class CommentListRoute implements RouteModule {
  constructor(private readonly knex: Knex, private readonly access: FilingAccessService, private readonly cursors: CursorService) {}

  routes() {
    return [
      defineRoute({
        method: 'get',
        paths: ['/managed-filings/{filingId}/comments'],
        operationId: 'listFilingComments',
        summary: 'Comment timeline of a working filing',
        description: 'Messages (commentType message), thread status events (commentType status_change, data.status) and tombstones (deleted true, body empty). Needs filing read access.',
        tags: ['working filings'],
        params: FilingIdParams,
        query: Query,
        responses: { 200: { description: 'A page of comments', schema: CommentList } },
        handler: async ({ principal, params, query }) => {
          const a = await this.access.filing(principal, params.filingId);
          const limit = query.limit ?? 50;
          const binding = { kind: 'managed-filings:comments', principal, request: { filingId: a.row.id, status: query.status ?? null, limit } };
          const d = query.cursor ? await this.cursors.decode<{ c: string; i: string }>(binding, query.cursor) : null;
          const q = this.knex('managed_filing_comments as c')
            .join('managed_filing_threads as t', (j) => j.on('t.filing_id', 'c.filing_id').andOn('t.thread_id', 'c.thread_id'))
            .where('c.filing_id', a.row.id);
          if (query.status) q.andWhere('t.status', query.status);
          if (d) q.andWhere((w) => w.where('c.created_at', '>', d.state.c).orWhere((x) => x.where('c.created_at', d.state.c).andWhere('c.id', '>', d.state.i)));
          const rows = await q.orderBy([{ column: 'c.created_at' }, { column: 'c.id' }]).limit(limit + 1).select('c.*', 't.status');
          const page = rows.slice(0, limit);
          const last = page[page.length - 1];
          const nextCursor = rows.length > limit ? await this.cursors.encode(binding, { c: new Date(last.created_at).toISOString(), i: last.id }, d?.issuedAt) : null;
          return { headers: { 'Cache-Control': 'private, no-store' }, body: { comments: page.map(commentFromRow), nextCursor } };
        },
      }),
    ];
  }
}
