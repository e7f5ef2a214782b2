import assert from 'node:assert/strict';
import type { ManagedFilingEvent } from '../../src/domain/events/managed-filings';
import { appliedTypes, eventTypesOf, type EventCoverage, type ProjectedEvent } from '../../projections/projector';
import { ManagedFilingItemsProjector } from '../../projections/managed-filings/items-projector';
import { ManagedFilingHistoryProjector } from '../../projections/managed-filings/history-projector';
import { ArtifactsProjector } from '../../projections/artifacts/artifacts-projector';

/** The managed filing union with one more event type, as a change to the category would add it. */
type GrownManagedFilingEvent = ManagedFilingEvent | { type: 'ManagedFilingArchived'; data: { filingId: string; archivedAt: string } };

describe('projectors: typed event coverage', () => {
  it('rule: a type added to a category union is a compile error until each projector of the category applies or ignores it', () => {
    // The projectors' own coverages, checked against the grown union: each line fails to compile (and
    // `npm run typecheck` fails on an unused @ts-expect-error) the day the rule stops holding.
    // @ts-expect-error: ManagedFilingArchived is neither applied nor ignored by the items projector
    const items: EventCoverage<GrownManagedFilingEvent> = new ManagedFilingItemsProjector().handles;
    // @ts-expect-error: nor by the history projector, which applies every other type of the category
    const history: EventCoverage<GrownManagedFilingEvent> = new ManagedFilingHistoryProjector().handles;
    assert.equal('ManagedFilingArchived' in items, false);
    assert.equal('ManagedFilingArchived' in history, false);
  });

  it('rule: a coverage names every type of its union and nothing else', () => {
    const complete = {
      ManagedFilingCreated: 'ignored',
      ManagedFilingUpdated: 'ignored',
      ManagedFilingShared: 'ignored',
      ManagedFilingItemAdded: 'applied',
      ManagedFilingItemChanged: 'ignored',
      FilingCommentPosted: 'ignored',
      FilingCommentEdited: 'ignored',
      FilingCommentDeleted: 'ignored',
      FilingThreadResolved: 'ignored',
      FilingThreadReopened: 'ignored',
    } as const satisfies EventCoverage<ManagedFilingEvent>;
    const { FilingThreadReopened, ...rest } = complete;
    // @ts-expect-error: a coverage missing a type of the union does not compile
    const missing: EventCoverage<ManagedFilingEvent> = rest;
    // @ts-expect-error: nor does one naming a type the union does not have
    const extra = { ...complete, ManagedFilingArchived: 'ignored' } as const satisfies EventCoverage<ManagedFilingEvent>;
    assert.equal(FilingThreadReopened, 'ignored');
    assert.deepEqual(appliedTypes<ManagedFilingEvent, typeof complete>(complete), ['ManagedFilingItemAdded']);
    assert.equal(Object.keys(missing).length, 9);
    assert.equal(Object.keys(extra).length, 11);
  });

  it('rule: apply receives only the applied members of the union, their data typed by their type (no casts)', () => {
    type ItemsEvent = ProjectedEvent<ManagedFilingEvent, ManagedFilingItemsProjector['handles']>;
    const added: ItemsEvent['type'] = 'ManagedFilingItemAdded';
    // @ts-expect-error: an ignored type never reaches the items projector's apply
    const ignored: ItemsEvent['type'] = 'ManagedFilingCreated';
    const itemIdOf = (e: ItemsEvent) => (e.type === 'ManagedFilingItemAdded' ? e.data.item.id : e.data.itemId);
    const changed = { type: 'ManagedFilingItemChanged', data: { filingId: 'f', itemId: 'i1', changes: {}, updatedAt: '' } } as ItemsEvent;
    assert.equal(itemIdOf(changed), 'i1');
    assert.notEqual(added, ignored);
  });

  it('rule: the event types the engine reads are derived from the coverage: the applied ones, never the ignored ones', () => {
    assert.deepEqual(eventTypesOf(new ManagedFilingItemsProjector()), ['ManagedFilingItemAdded', 'ManagedFilingItemChanged']);
    assert.deepEqual(eventTypesOf(new ArtifactsProjector()), ['ArtifactCreated', 'ArtifactVersionAdded', 'ArtifactVersionIndexed']);
    assert.deepEqual([...eventTypesOf(new ManagedFilingHistoryProjector())].sort(), Object.keys(new ManagedFilingHistoryProjector().handles).sort());
    assert.equal(eventTypesOf(new ManagedFilingHistoryProjector()).length, 10);
  });
});
