import type { AppendResult, EventMetadata, ExpectedVersion, NewEvent, RecordedEvent } from '../../src/domain/events';
import type { UpcasterRegistry } from '../../src/domain/upcasting';
import type { AppendGuard, EventStore, GuardedAppendResult, ReadAllOptions, ReadAllResult } from '../../src/ports/event-store';

/**
 * The store as projectors, deciders and the bus read it: every event read comes out at its type's current
 * schema version, and every event appended goes in stamped with it. Without upcasters it is the store
 * itself. With them, the import's bulk path (BatchedAppender), which reads and writes es_events directly
 * for a PostgresEventStore, no longer sees one and takes the command path, which goes through here.
 */
export function withUpcasting(store: EventStore, registry: UpcasterRegistry): EventStore {
  return registry.isEmpty ? store : new UpcastingEventStore(store, registry);
}

class UpcastingEventStore implements EventStore {
  readonly appendGuarded?: EventStore['appendGuarded'];
  readonly countBetween?: EventStore['countBetween'];

  constructor(
    private readonly store: EventStore,
    private readonly registry: UpcasterRegistry,
  ) {
    // Optional capabilities stay optional: callers test for them.
    if (store.appendGuarded) {
      const appendGuarded = store.appendGuarded.bind(store);
      this.appendGuarded = (streamId: string, events: NewEvent[], expectedVersion: ExpectedVersion, metadata: EventMetadata, guard: AppendGuard): Promise<GuardedAppendResult> =>
        appendGuarded(streamId, this.stamp(events), expectedVersion, metadata, guard);
    }
    if (store.countBetween) this.countBetween = store.countBetween.bind(store);
  }

  append(streamId: string, events: NewEvent[], expectedVersion: ExpectedVersion, metadata: EventMetadata): Promise<AppendResult> {
    return this.store.append(streamId, this.stamp(events), expectedVersion, metadata);
  }

  async readStream(streamId: string, fromVersion?: number): Promise<RecordedEvent[]> {
    return (await this.store.readStream(streamId, fromVersion)).map((e) => this.registry.upcast(e));
  }

  async readAll(opts: ReadAllOptions): Promise<ReadAllResult> {
    const { events, horizon } = await this.store.readAll(opts);
    return { events: events.map((e) => this.registry.upcast(e)), horizon };
  }

  head() {
    return this.store.head();
  }

  lastCommitted() {
    return this.store.lastCommitted();
  }

  onAppended(listener: () => void) {
    return this.store.onAppended(listener);
  }

  close() {
    return this.store.close();
  }

  private stamp(events: NewEvent[]): NewEvent[] {
    return events.map((e) => this.registry.stamp(e));
  }
}
