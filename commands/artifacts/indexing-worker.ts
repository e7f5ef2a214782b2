import type { CommandHandler } from '../command-handler';
import type { RecordedEvent } from '../../src/domain/events';
import type { Logger } from '../../src/util/logger';
import type { BlobStore } from '../../src/ports/blob-store';
import type { Bus, BusWorker, Consumer } from '../../src/ports/bus';
import { joinPages } from '../../src/domain/text-pages';
import type { Extractor } from '../../src/ports/file-ingest';
import { artifactDecider } from './artifact';
import type { ArtifactEvent } from '../../src/domain/events/artifacts';
import { artifactStream } from './upload-commands';

/**
 * The indexing worker: consumer group 'indexer' on ArtifactVersionAdded. For each new version it
 * extracts text with the bound extractors (first that reads the type wins), stores the text as a
 * blob and appends ArtifactVersionIndexed. At-least-once: the decider ignores an already indexed version.
 */
export class IndexingWorker implements BusWorker {
  readonly name = 'artifact-indexer';

  constructor(
    private readonly handler: CommandHandler,
    private readonly blobs: BlobStore,
    private readonly extractors: () => Extractor[],
    private readonly log: Logger,
    private readonly now: () => Date = () => new Date(),
  ) {}

  start(bus: Bus): Promise<Consumer> {
    return bus.consume('indexer', ['ArtifactVersionAdded'], (events) => this.handle(events));
  }

  async handle(events: RecordedEvent[]): Promise<void> {
    for (const raw of events) {
      const e = raw as unknown as ArtifactEvent;
      if (e.type !== 'ArtifactVersionAdded') continue;
      const v = e.data.version;
      const { state } = await this.handler.load(artifactDecider, artifactStream(e.data.artifactId));
      if (state.versions.find((x) => x.id === v.id)?.indexed) continue;
      let text: { sha256: string; byteLength: number; pageCount: number; pageStarts: number[]; method: string } | null = null;
      try {
        const content = await this.blobs.get(v.contentSha256);
        for (const extract of this.extractors()) {
          const r = await extract(content, v.mimeType, v.name);
          if (!r) continue;
          const joined = joinPages(r.pages);
          const stored = await this.blobs.put(Buffer.from(joined.text, 'utf8'));
          text = { sha256: stored.sha256, byteLength: stored.size, pageCount: r.pages.length, pageStarts: joined.pageStarts, method: r.method };
          break;
        }
      } catch (err) {
        // A file no extractor can read is recorded as indexed without text rather than retried forever.
        this.log.warn({ err, artifactId: e.data.artifactId, versionId: v.id }, 'text extraction failed');
      }
      await this.handler.execute(artifactDecider, artifactStream(e.data.artifactId), { type: 'RecordIndexing', versionId: v.id, text, now: this.now().toISOString() }, {
        metadata: { tenantId: raw.metadata?.tenantId ?? null, actor: 'indexer', causationId: raw.eventId },
        retries: 20,
      });
    }
  }
}
