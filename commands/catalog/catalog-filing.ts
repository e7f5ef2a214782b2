import { assertNever, type Decider } from '../../src/domain/decider';
import { DomainError } from '../../src/domain/errors';
import { canonicalJson } from '../directory/snapshot-decider';
import type { CatalogFile, CatalogFilingEvent, CatalogFilingFields } from '../../src/domain/events/catalog';

export interface CatalogFilingState {
  filing: CatalogFilingFields | null;
  files: CatalogFile[];
}

export type CatalogFilingCommand = { type: 'ImportCatalogFiling'; filing: CatalogFilingFields; files: CatalogFile[] };

/**
 * Stream `catalogFiling-<uuid>`. The catalog is read-only through the API: a filing changes only by
 * re-import, which appends the full new record when (and only when) anything differs.
 */
export const catalogFilingDecider: Decider<CatalogFilingState, CatalogFilingCommand, CatalogFilingEvent> = {
  initialState: () => ({ filing: null, files: [] }),
  evolve(_state, event) {
    switch (event.type) {
      case 'CatalogFilingImported':
      case 'CatalogFilingUpdated':
        return { filing: event.data.filing, files: event.data.files };
      default:
        return assertNever(event);
    }
  },
  decide(state, cmd) {
    switch (cmd.type) {
      case 'ImportCatalogFiling': {
        // Keep the native reference stable: another filing under this id is a data error, not an update.
        if (state.filing && (state.filing.source !== cmd.filing.source || state.filing.id !== cmd.filing.id)) {
          throw new DomainError('invalid_request', `filing ${cmd.filing.id} was imported from source ${state.filing.source}; a record cannot change its source`, 400);
        }
        const fileIds = new Set<string>();
        for (const f of cmd.files) {
          if (fileIds.has(f.fileId)) throw new DomainError('invalid_request', `filing ${cmd.filing.id} lists file ${f.fileId} twice`, 400);
          fileIds.add(f.fileId);
        }
        const data = { filing: cmd.filing, files: cmd.files };
        if (!state.filing) return [{ type: 'CatalogFilingImported', data }];
        if (canonicalJson({ filing: state.filing, files: state.files }) === canonicalJson(data)) return [];
        return [{ type: 'CatalogFilingUpdated', data }];
      }
      default:
        return assertNever(cmd.type);
    }
  },
};
