import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import { ChainVerifier, canonicalEvent, chainAppend, eventHash, metadataWithHashes, verifyChain, type HashedEvent } from '../../src/domain/event-hash';

const base: HashedEvent = {
  streamId: 'managedFiling-1',
  version: 7,
  type: 'ItemAdded',
  schemaVersion: 2,
  data: { z: [1, 2.5, 1e21, 'é', '\u2028', { b: null, a: true }], a: 'x"y\\z', n: -0, emoji: '😀' },
  metadata: { tenantId: 't', actor: 'u', requestId: 'r', prevHash: 'ignored', hash: 'ignored' },
  recordedAt: '2026-11-27T23:00:00.123Z',
  prevHash: 'ab'.repeat(32),
};

function chain(n: number): HashedEvent[] {
  const out: HashedEvent[] = [];
  let prev: string | null = null;
  for (let v = 1; v <= n; v++) {
    const e: HashedEvent = { ...base, version: v, data: { v }, metadata: { actor: 'u' }, prevHash: prev };
    const hash = eventHash(e);
    out.push({ ...e, metadata: { actor: 'u', prevHash: prev, hash } });
    prev = hash;
  }
  return out;
}

describe('tamper evidence: the canonical event hash', () => {
  it('rule: the hash is SHA-256 over the RFC 8785 canonical JSON of the event, metadata without the hashes', () => {
    const { prevHash: _p, hash: _h, ...meta } = base.metadata;
    const expected = canonicalize({ streamId: base.streamId, version: 7, type: base.type, schemaVersion: 2, data: base.data, metadata: meta, recordedAt: base.recordedAt, prevHash: base.prevHash });
    assert.equal(canonicalEvent(base), expected);
    assert.equal(eventHash(base), createHash('sha256').update(expected!, 'utf8').digest('hex'));
    assert.equal(eventHash({ ...base, prevHash: null }), createHash('sha256').update(canonicalEvent({ ...base, prevHash: null }), 'utf8').digest('hex'));
  });

  it('rule: an append chained in node gives each event the hash of its canonical text, from the head it appends to', () => {
    for (const prevHash of [base.prevHash, null]) {
      const second = { type: 'ItemRemoved', data: { itemId: 'i-1' } };
      const { events, headHash } = chainAppend({ ...base, expectedVersion: base.version - 1, prevHash, events: [base, second] });
      assert.equal(events[0].prevHash, prevHash);
      assert.equal(events[0].hash, eventHash({ ...base, prevHash }));
      assert.deepEqual(JSON.parse(events[0].dataText), JSON.parse(JSON.stringify(base.data)));
      assert.equal(events[1].prevHash, events[0].hash);
      assert.equal(events[1].hash, eventHash({ ...base, ...second, schemaVersion: 1, version: base.version + 1, prevHash: events[0].hash }));
      assert.equal(headHash, events[1].hash);
    }
  });

  it('rule: stored metadata is the metadata without hashes plus prevHash and hash', () => {
    const { metadataText } = chainAppend({ ...base, expectedVersion: 0, prevHash: null, events: [base] });
    const { prevHash: _p, hash: _h, ...plain } = base.metadata;
    assert.deepEqual(JSON.parse(metadataWithHashes(metadataText, 'cd'.repeat(32), 'ef'.repeat(32))), { ...plain, prevHash: 'cd'.repeat(32), hash: 'ef'.repeat(32) });
    assert.deepEqual(JSON.parse(metadataWithHashes('{}', null, 'ef'.repeat(32))), { prevHash: null, hash: 'ef'.repeat(32) });
  });

  it('rule: a chain verifies; altered, deleted, swapped and truncated events are caught at the first broken version', () => {
    const c = chain(5);
    assert.deepEqual(verifyChain(c, { version: 5, headHash: c[4].metadata.hash as string }), { version: 5, headHash: c[4].metadata.hash, verified: true, firstBrokenVersion: null });
    assert.equal(verifyChain(c.map((e) => (e.version === 3 ? { ...e, data: { v: 99 } } : e))).firstBrokenVersion, 3);
    assert.equal(verifyChain(c.filter((e) => e.version !== 2)).firstBrokenVersion, 2);
    const swapped = [c[0], { ...c[2], version: 2 }, { ...c[1], version: 3 }, c[3], c[4]];
    assert.equal(verifyChain(swapped).firstBrokenVersion, 2);
    assert.equal(verifyChain(c.slice(0, 4), { version: 5 }).firstBrokenVersion, 5);
    assert.equal(verifyChain(c.map((e) => (e.version === 4 ? { ...e, recordedAt: '2026-11-27T23:00:00.124Z' } : e))).firstBrokenVersion, 4);
    const v = new ChainVerifier();
    assert.equal(v.push(c[0]), true);
    assert.equal(v.push({ ...c[1], metadata: { actor: 'x', prevHash: c[1].metadata.prevHash, hash: c[1].metadata.hash } }), false);
    assert.equal(v.verdict().firstBrokenVersion, 2);
  });
});
