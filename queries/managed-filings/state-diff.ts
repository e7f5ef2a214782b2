import type { RecordedEvent } from '../../src/domain/events';
import { evolveManagedFiling, initialManagedFilingState, type ManagedFilingEvent, type ManagedFilingState } from '../../src/domain/managed-filing-state';

export interface FieldChange {
  path: string[];
  before: unknown;
  after: unknown;
}

/**
 * What an auditor compares of a filing's state: its fields and mode at the top level (as the detail
 * shows them), `items` and `comments` by id, `threads` (status) by thread id. Scopes it is shared
 * into are left out: which other tenants see it is theirs to know.
 */
function auditedView(s: ManagedFilingState): Record<string, unknown> {
  if (!s.exists) return {};
  return { ...s.fields, filingMode: s.filingMode, createdAt: s.createdAt, updatedAt: s.updatedAt, items: s.items, comments: s.comments, threads: s.threads };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Field-level differences, depth first in key order. An entry that appears or goes is one change with
 * the whole entry on one side (null on the other); arrays are values (an attachment list changes as one).
 */
export function diffValues(before: unknown, after: unknown, path: string[] = [], out: FieldChange[] = []): FieldChange[] {
  if (isRecord(before) && isRecord(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    for (const k of keys) diffValues(Object.hasOwn(before, k) ? before[k] : null, Object.hasOwn(after, k) ? after[k] : null, [...path, k], out);
  } else if (JSON.stringify(before ?? null) !== JSON.stringify(after ?? null)) {
    out.push({ path, before: before ?? null, after: after ?? null });
  }
  return out;
}

export function diffStates(before: ManagedFilingState, after: ManagedFilingState): FieldChange[] {
  return diffValues(auditedView(before), auditedView(after));
}

export interface ChangeEntry {
  version: number;
  recordedAt: string;
  type: string;
  actor: { userId: string | null; name: string | null };
  requestId: string | null;
  changes: FieldChange[];
}

/**
 * The change entries of the events after version `after` that `shown` keeps, at most `limit`, folding
 * every event from the start (a change is the difference its event made to the state before it).
 * `more`: entries remain after these.
 */
export function changeEntries(events: RecordedEvent[], after = 0, limit = Infinity, shown: (e: RecordedEvent) => boolean = () => true): { entries: ChangeEntry[]; more: boolean } {
  const entries: ChangeEntry[] = [];
  let state = initialManagedFilingState();
  for (const e of events) {
    const next = evolveManagedFiling(state, e as unknown as ManagedFilingEvent);
    if (e.version > after && shown(e)) {
      if (entries.length === limit) return { entries, more: true };
      const actor = typeof e.metadata.actor === 'string' ? e.metadata.actor : null;
      const requestId = typeof e.metadata.requestId === 'string' ? e.metadata.requestId : null;
      entries.push({ version: e.version, recordedAt: e.recordedAt.toISOString(), type: e.type, actor: { userId: actor, name: null }, requestId, changes: diffStates(state, next) });
    }
    state = next;
  }
  return { entries, more: false };
}
