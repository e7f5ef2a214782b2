import { defineRoute, type RouteModule } from '../../src/http/route';
import { z } from '../../src/http/zod';
import { Comment, CommentParams, FilingIdParams, NullableUuid } from '../../src/http/schemas/working-filings';
import type { ManagedFilingCommands } from './managed-filing-commands';

const Body = z.string().min(1).max(20000);
const PostBody = z.strictObject({ body: Body, parentCommentId: NullableUuid.optional() }).openapi('PostFilingComment');
const EditBody = z.strictObject({ body: Body }).openapi('EditFilingComment');
const Empty = z.strictObject({});

/**
 * Comment writes (extensions): post (thread or reply), edit (author only), delete (author or scope
 * manager; a tombstone with its body emptied), resolve and reopen a thread. All need filing edit
 * permission; reference and legacy filings are read-only.
 */
export class CommentWriteRoutes implements RouteModule {
  constructor(private readonly commands: ManagedFilingCommands) {}

  routes() {
    const tags = ['working filings'];
    return [
      defineRoute({
        method: 'post',
        paths: ['/managed-filings/{filingId}/comments'],
        operationId: 'addFilingComment',
        idempotencyKey: 'honored',
        summary: 'Start a comment thread or reply',
        description:
          'Adds a comment to the working filing: a new thread, or a reply when `parentCommentId` names a comment of the same filing (a reply joins its parent\'s thread). 201 with the comment.',
        extension: true,
        tags,
        params: FilingIdParams,
        body: PostBody,
        responses: { 201: { description: 'The comment', schema: Comment } },
        handler: async ({ principal, params, body, requestId, trace }) => ({ status: 201, body: await this.commands.postComment(principal, params.filingId, body, requestId, trace) }),
        recover: async ({ params, written }) => ({ status: 201, body: await this.commands.recoverComment(params.filingId, written) }),
      }),
      defineRoute({
        method: 'patch',
      operationId: 'updateFilingComment',
        paths: ['/managed-filings/{filingId}/comments/{commentId}'],
        summary: 'Edit a comment (author only; sets editedAt)',
        description:
          'Replaces the comment\'s body. Only its author may edit; a deleted comment cannot be edited (409).',
        extension: true,
        tags,
        params: CommentParams,
        body: EditBody,
        responses: { 200: { description: 'The comment', schema: Comment }, 409: { description: 'comment_deleted: a deleted comment (a tombstone) cannot be edited' } },
        handler: async ({ principal, params, body, requestId, trace }) => ({ body: await this.commands.editComment(principal, params.filingId, params.commentId, body.body, requestId, trace) }),
      }),
      defineRoute({
        method: 'delete',
      operationId: 'deleteFilingComment',
        paths: ['/managed-filings/{filingId}/comments/{commentId}'],
        summary: 'Delete a comment (it stays as a tombstone)',
        description:
          'Deletes the comment\'s body; the comment stays in its thread as a tombstone so replies keep their place. 204.',
        extension: true,
        tags,
        params: CommentParams,
        responses: { 204: { description: 'Deleted (or already deleted)' } },
        handler: async ({ principal, params, requestId, trace }) => {
          await this.commands.deleteComment(principal, params.filingId, params.commentId, requestId, trace);
          return { status: 204 };
        },
      }),
      defineRoute({
        method: 'post',
        paths: ['/managed-filings/{filingId}/comments/{commentId}/resolve'],
        operationId: 'resolveFilingComment',
        idempotencyKey: 'honored',
        summary: 'Resolve the comment\'s thread',
        extension: true,
        description: 'Appends a status_change entry to the timeline; resolving a resolved thread changes nothing. Answers the thread\'s first comment.',
        tags,
        params: CommentParams,
        body: Empty,
        responses: { 200: { description: 'The thread\'s first comment with its new status', schema: Comment } },
        handler: async ({ principal, params, requestId, trace }) => ({ body: await this.commands.setThreadStatus(principal, params.filingId, params.commentId, 'resolved', requestId, trace) }),
        recover: async ({ params, written }) => ({ body: await this.commands.recoverThreadStatus(params.filingId, params.commentId, written) }),
      }),
      defineRoute({
        method: 'post',
        paths: ['/managed-filings/{filingId}/comments/{commentId}/reopen'],
        operationId: 'reopenFilingComment',
        idempotencyKey: 'honored',
        summary: 'Reopen the comment\'s thread',
        description:
          'Marks the thread the comment belongs to as open again. Reopening an open thread changes nothing.',
        extension: true,
        tags,
        params: CommentParams,
        body: Empty,
        responses: { 200: { description: 'The thread\'s first comment with its new status', schema: Comment } },
        handler: async ({ principal, params, requestId, trace }) => ({ body: await this.commands.setThreadStatus(principal, params.filingId, params.commentId, 'open', requestId, trace) }),
        recover: async ({ params, written }) => ({ body: await this.commands.recoverThreadStatus(params.filingId, params.commentId, written) }),
      }),
    ];
  }
}
