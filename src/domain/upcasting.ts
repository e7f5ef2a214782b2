import type { NewEvent, RecordedEvent } from './events';

/**
 * One step in the life of an event type's schema: turns the data of `type` written at schema version
 * `from` into the data of version `from + 1`. A change to an event's shape adds a step instead of
 * rewriting the log, so projectors and deciders only ever see the current shape.
 */
export interface Upcaster<E extends NewEvent = NewEvent> {
  /** A member of the category union E, so a misspelt type does not compile. */
  readonly type: E['type'];
  readonly from: number;
  /** The next version's data; `event` is the event as recorded (its metadata, time, stream). */
  up(data: unknown, event: RecordedEvent): unknown;
}

type Step = Upcaster['up'];

/**
 * The upcasters of every event type, per type an unbroken chain from version 1: the type's current schema
 * version is 1 + its number of steps. Events are read through it (`upcast`) before a projector or a
 * decider sees them, and new events are written at their type's current version (`stamp`).
 */
export class UpcasterRegistry {
  /** Per type, step i turns version i + 1 into i + 2. */
  private readonly chains = new Map<string, Step[]>();

  constructor(upcasters: readonly Upcaster[] = []) {
    const byType = new Map<string, Upcaster[]>();
    for (const u of upcasters) byType.set(u.type, [...(byType.get(u.type) ?? []), u]);
    for (const [type, steps] of byType) {
      const sorted = [...steps].sort((a, b) => a.from - b.from);
      sorted.forEach((u, i) => {
        // A gap or a second step from one version would leave events that no chain brings to the current shape.
        if (u.from !== i + 1) throw new Error(`upcasters of ${type}: expected a step from version ${i + 1}, got one from ${u.from} (steps run 1, 2, 3... once each)`);
      });
      this.chains.set(
        type,
        sorted.map((u) => u.up.bind(u)),
      );
    }
  }

  get isEmpty(): boolean {
    return this.chains.size === 0;
  }

  /** The schema version this code reads and writes for `type`. */
  currentVersion(type: string): number {
    return 1 + (this.chains.get(type)?.length ?? 0);
  }

  /**
   * The event at its type's current schema version. One that already is, or that is newer than this code
   * knows (written by a newer release during a rolling deploy: its reader must tolerate added fields, as
   * for any event), is returned as it is.
   */
  upcast<E extends RecordedEvent>(event: E): E {
    const chain = this.chains.get(event.type);
    if (!chain || event.schemaVersion > chain.length) return event;
    let data = event.data;
    for (let v = Math.max(event.schemaVersion, 1); v <= chain.length; v++) data = chain[v - 1](data, event);
    return { ...event, data, schemaVersion: chain.length + 1 };
  }

  /** A new event at its type's current schema version, unless it names one. */
  stamp<E extends NewEvent>(event: E): E {
    if (event.schemaVersion !== undefined || !this.chains.has(event.type)) return event;
    return { ...event, schemaVersion: this.currentVersion(event.type) };
  }
}
