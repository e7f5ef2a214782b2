import { DomainError } from '../../src/domain/errors';
import type { Decider } from '../../src/domain/decider';
import type { SnapshotEvent } from '../../src/domain/events/directory';

/** Key-order independent JSON: two records are "unchanged" when their canonical forms are equal. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v)
      .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v ?? null);
}

export interface SnapshotState<R> {
  record: R | null;
}

export interface ImportRecord<R> {
  type: 'Import';
  record: R;
}

/**
 * Directory aggregates are imported, never edited through the API: each import carries the whole
 * record, so the events are snapshots ("Imported" once, "Updated" when a re-import differs) and a
 * re-import of an unchanged record decides nothing. `check` holds the aggregate's own invariants.
 */
export function snapshotDecider<I extends string, U extends string, R extends { id: string }>(
  imported: I,
  updated: U,
  check: (record: R) => void = () => undefined,
): Decider<SnapshotState<R>, ImportRecord<R>, SnapshotEvent<I, U, R>> {
  return {
    initialState: () => ({ record: null }),
    evolve: (_state, event) => ({ record: event.data as R }),
    decide(state, cmd) {
      check(cmd.record);
      if (state.record && state.record.id !== cmd.record.id) throw new DomainError('invalid_request', `record ${cmd.record.id} does not belong to stream of ${state.record.id}`, 400);
      if (!state.record) return [{ type: imported, data: cmd.record }];
      if (canonicalJson(state.record) === canonicalJson(cmd.record)) return [];
      return [{ type: updated, data: cmd.record }];
    },
  };
}
