import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { EventStore } from '../../src/ports/event-store';
import type { RecordedEvent } from '../../src/domain/events';
import type { Bus, Consumer } from '../../src/ports/bus';

export interface BusFixture {
  /** Where the test appends; the bus delivers what is committed here. */
  store: EventStore;
  /** A new Bus instance, as another process would have one (same database, same broker). */
  newBus(): Promise<Bus>;
  /** Environment for test/support/bus-consumer-child.ts to build the same adapter in a child process. */
  childEnv: Record<string, string>;
  close(): Promise<void>;
}

const CHILD = path.join(__dirname, '..', 'support', 'bus-consumer-child.ts');
const uniq = () => Math.random().toString(36).slice(2, 10);

async function waitUntil(cond: () => boolean, timeoutMs: number, what: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** An idempotent handler's bookkeeping: applied ids (a Set), every delivery, and who got what. */
class Recorder {
  readonly applied = new Set<string>();
  deliveries = 0;
  readonly byStream = new Map<string, number[]>();
  readonly types = new Set<string>();
  handler(into?: Set<string>) {
    return async (events: RecordedEvent[]) => {
      for (const e of events) {
        this.deliveries++;
        this.applied.add(e.eventId);
        into?.add(e.eventId);
        this.types.add(e.type);
        const list = this.byStream.get(e.streamId) ?? [];
        list.push(e.version);
        this.byStream.set(e.streamId, list);
      }
    };
  }
}

/** Appends `streams` streams of `perStream` events each, interleaving the streams, one or two events per append. */
async function appendInterleaved(store: EventStore, tag: string, streams: number, perStream: number, type = 'BusTest'): Promise<RecordedEvent[]> {
  const versions = new Array<number>(streams).fill(0);
  const writes: Promise<unknown>[] = [];
  for (let round = 0; versions.some((v) => v < perStream); round++) {
    for (let s = 0; s < streams; s++) {
      if (versions[s] >= perStream) continue;
      const n = Math.min(perStream - versions[s], 1 + ((s + round) % 2));
      const expected = versions[s];
      versions[s] += n;
      writes.push(store.append(`bus${tag}-${s}`, Array.from({ length: n }, (_, i) => ({ type, data: { s, v: expected + i + 1 } })), expected, { actor: 'bus-contract' }));
    }
    await Promise.all(writes.splice(0)); // a stream's appends must not race each other
  }
  const out: RecordedEvent[] = [];
  for (let s = 0; s < streams; s++) out.push(...(await store.readStream(`bus${tag}-${s}`)));
  return out;
}

function lines(file: string): string[] {
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
}

/** One suite, run for every Bus adapter (store-backed always; Kafka when KAFKA_BROKERS is set). */
export function busContract(name: string, makeFixture: () => Promise<BusFixture>): void {
  describe(`Bus contract: ${name}`, function () {
    this.timeout(60_000);
    let fx: BusFixture;
    const consumers: Consumer[] = [];
    const children: ChildProcess[] = [];
    const consume = async (bus: Bus, group: string, types: string[], handler: (events: RecordedEvent[]) => Promise<void>) => {
      const c = await bus.consume(group, types, handler);
      consumers.push(c);
      return c;
    };

    beforeEach(async () => {
      fx = await makeFixture();
    });
    afterEach(async () => {
      for (const ch of children.splice(0)) if (ch.exitCode === null && ch.signalCode === null) ch.kill('SIGKILL');
      await Promise.all(consumers.splice(0).map((c) => c.stop().catch(() => undefined)));
      await fx.close();
    });

    it('rule: every appended event of the subscribed types reaches the handler', async () => {
      const rec = new Recorder();
      await consume(await fx.newBus(), `g-${uniq()}`, ['BusTest'], rec.handler());
      const events = await appendInterleaved(fx.store, uniq(), 20, 10);
      await waitUntil(() => events.every((e) => rec.applied.has(e.eventId)), 30_000, () => `${rec.applied.size}/${events.length} events`);
      assert.equal(rec.applied.size, events.length);
    });

    it('rule: events of other types are not delivered', async () => {
      const rec = new Recorder();
      await consume(await fx.newBus(), `g-${uniq()}`, ['Wanted'], rec.handler());
      const tag = uniq();
      await fx.store.append(`other${tag}-1`, [{ type: 'Unwanted', data: {} }, { type: 'Wanted', data: {} }, { type: 'AlsoUnwanted', data: {} }], 0, {});
      await fx.store.append(`other${tag}-2`, [{ type: 'Unwanted', data: {} }], 0, {});
      // A sentinel after the others on the same stream: once it arrived, the earlier ones would have too.
      const last = await fx.store.append(`other${tag}-1`, [{ type: 'Wanted', data: { sentinel: true } }], 3, {});
      await waitUntil(() => rec.applied.size >= 2, 30_000, () => `${rec.applied.size}/2 wanted events`);
      assert.ok(last.nextVersion === 4);
      assert.deepEqual([...rec.types], ['Wanted']);
      assert.equal(rec.deliveries, 2);
    });

    it('rule: each stream\'s events arrive in stream order', async () => {
      const rec = new Recorder();
      await consume(await fx.newBus(), `g-${uniq()}`, ['BusTest'], rec.handler());
      const events = await appendInterleaved(fx.store, uniq(), 30, 12);
      await waitUntil(() => rec.applied.size >= events.length, 30_000, () => `${rec.applied.size}/${events.length} events`);
      assert.equal(rec.byStream.size, 30);
      for (const [stream, versions] of rec.byStream) assert.deepEqual(versions, Array.from({ length: 12 }, (_, i) => i + 1), `order of ${stream}`);
    });

    it('rule: two consumers in one group share it (split or stand by) and fail over without losing or re-applying events', async () => {
      const group = `g-${uniq()}`;
      const rec = new Recorder();
      const mine = [new Set<string>(), new Set<string>()];
      const a = await consume(await fx.newBus(), group, ['BusTest'], rec.handler(mine[0]));
      const b = await consume(await fx.newBus(), group, ['BusTest'], rec.handler(mine[1]));
      const first = await appendInterleaved(fx.store, uniq(), 40, 5);
      await waitUntil(() => first.every((e) => rec.applied.has(e.eventId)), 30_000, () => `${rec.applied.size}/${first.length} events before failover`);
      // Stop the member that did (most of) the work; the other one must take over everything.
      const busier = mine[0].size >= mine[1].size ? 0 : 1;
      await [a, b][busier].stop();
      const survivor = mine[1 - busier];
      const second = await appendInterleaved(fx.store, uniq(), 40, 5);
      await waitUntil(() => second.every((e) => rec.applied.has(e.eventId)), 40_000, () => `${second.filter((e) => rec.applied.has(e.eventId)).length}/${second.length} events after failover`);
      assert.ok(second.every((e) => survivor.has(e.eventId)), 'the surviving member handled everything after the failover');
      assert.equal(rec.applied.size, first.length + second.length, 'no event lost');
      assert.equal(rec.deliveries, first.length + second.length, 'no event applied twice');
    });

    it('rule: a consumer killed (SIGKILL) mid-stream and restarted loses nothing', async () => {
      const group = `g-${uniq()}`;
      const out = path.join(os.tmpdir(), `ifrs-bus-child-${uniq()}.txt`);
      const child = spawn(process.execPath, ['--import', 'tsx', CHILD], {
        env: { ...process.env, ...fx.childEnv, BUS_GROUP: group, BUS_TYPES: 'BusTest', BUS_OUT: out, BUS_DELAY_MS: '150' },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      children.push(child);
      await new Promise<void>((resolve, reject) => {
        child.stdout!.on('data', (d: Buffer) => d.toString().includes('ready') && resolve());
        child.once('exit', (code) => reject(new Error(`consumer child exited early (${code})`)));
      });
      const events = await appendInterleaved(fx.store, uniq(), 50, 20);
      await waitUntil(() => lines(out).length >= 100, 30_000, () => `the child to handle 100 events (${lines(out).length})`);
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
      const beforeKill = new Set(lines(out));
      assert.ok(beforeKill.size < events.length, 'killed while events were still in flight');
      const rec = new Recorder();
      await consume(await fx.newBus(), group, ['BusTest'], rec.handler());
      const done = () => events.every((e) => beforeKill.has(e.eventId) || rec.applied.has(e.eventId));
      await waitUntil(done, 45_000, () => `${events.filter((e) => beforeKill.has(e.eventId) || rec.applied.has(e.eventId)).length}/${events.length} events after restart`);
      fs.rmSync(out, { force: true });
    });

    it('rule: a handler that throws is retried and its events are redelivered', async () => {
      const rec = new Recorder();
      const attempts = new Map<string, number>();
      let failuresLeft = 2;
      await consume(await fx.newBus(), `g-${uniq()}`, ['BusTest'], async (events) => {
        for (const e of events) attempts.set(e.eventId, (attempts.get(e.eventId) ?? 0) + 1);
        if (failuresLeft > 0) {
          failuresLeft--;
          throw new Error('simulated handler failure');
        }
        await rec.handler()(events);
      });
      const events = await appendInterleaved(fx.store, uniq(), 5, 4);
      await waitUntil(() => events.every((e) => rec.applied.has(e.eventId)), 30_000, () => `${rec.applied.size}/${events.length} events`);
      assert.equal(failuresLeft, 0);
      assert.ok([...attempts.values()].some((n) => n >= 3), 'the first events were delivered again after each failure');
    });
  });
}
