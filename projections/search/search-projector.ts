import type { Knex } from 'knex';
import { type CatalogFile, type CatalogFilingEvent } from '../../src/domain/events/catalog';
import { assertNever } from '../../src/domain/decider';
import type { BlobStore } from '../../src/ports/blob-store';
import type { IndexedFiling, SearchDocument, SearchIndex } from '../../src/ports/search-index';
import type { EventCoverage, ProjectedEvent, ProjectionContext, Projector, TableNamer } from '../projector';
import { SEARCH_PROJECTION } from '../../src/read-models/search';

const HANDLES = { CatalogFilingImported: 'applied', CatalogFilingUpdated: 'applied' } as const satisfies EventCoverage<CatalogFilingEvent>;

/** Splits the stored text (pages joined by form feeds) by its page map into 1-based pages. */
export function pagesOf(text: Buffer, pageStarts: number[]): SearchDocument['pages'] {
  if (!pageStarts.length) return [{ page: null, text: text.toString('utf8') }];
  return pageStarts.map((start, i) => {
    // Each page but the last ends one byte before the next page's start (the form feed).
    const end = i + 1 < pageStarts.length ? pageStarts[i + 1] - 1 : text.length;
    return { page: i + 1, text: text.subarray(start, end).toString('utf8') };
  });
}

/**
 * Feeds the SearchIndex from the catalog filing events: metadata plus the per-page text of every
 * file with an extraction, read from the text blob (extraction happened at import and is never redone).
 */
export class SearchProjector implements Projector<CatalogFilingEvent, typeof HANDLES> {
  readonly name = SEARCH_PROJECTION;
  readonly handles = HANDLES;

  constructor(private readonly index: SearchIndex, private readonly blobs: BlobStore) {}

  /** 1 for Postgres; another adapter adds its own schema version, so switching adapters rebuilds from the log. */
  get version(): number {
    return 1 + (this.index.schemaVersion ?? 0);
  }

  get tables(): readonly string[] {
    return this.index.tables;
  }

  createSchema(trx: Knex.Transaction, t: TableNamer): Promise<void> {
    return this.index.createSchema(trx, t);
  }

  async upgradeSchema(trx: Knex.Transaction, t: TableNamer): Promise<void> {
    await this.index.upgradeSchema?.(trx, t);
  }

  async promote(shadow: TableNamer): Promise<void> {
    await this.index.promote?.(shadow);
  }

  async discardShadow(shadow: TableNamer): Promise<void> {
    await this.index.discardShadow?.(shadow);
  }

  private async document(f: CatalogFile): Promise<SearchDocument | null> {
    if (!f.text) return null;
    const text = await this.blobs.get(f.text.textSha256);
    return { fileId: f.fileId, name: f.name, versionId: f.versionId, textRevision: f.text.textRevision, pages: pagesOf(text, f.text.pageStarts) };
  }

  async apply(ctx: ProjectionContext, events: ProjectedEvent<CatalogFilingEvent, typeof HANDLES>[]): Promise<void> {
    const batch = new Map<string, IndexedFiling>();
    for (const e of events) {
      switch (e.type) {
        case 'CatalogFilingImported':
        case 'CatalogFilingUpdated': {
          const documents: SearchDocument[] = [];
          for (const f of e.data.files) {
            const d = await this.document(f);
            if (d) documents.push(d);
          }
          batch.set(e.data.filing.id, { filing: e.data.filing, documents, version: e.version, position: e.position.prepare });
          break;
        }
        default:
          assertNever(e);
      }
    }
    if (batch.size) await this.index.upsert(ctx, [...batch.values()]);
  }
}
