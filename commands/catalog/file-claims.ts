import { DomainError } from '../../src/domain/errors';
import type { ClaimRule } from '../../src/ports/claim-rule';
import type { ClaimStore } from '../../src/ports/claim-store';
import type { CatalogFilingCommand } from './catalog-filing';

/**
 * A file id belongs to one catalog filing: the contract addresses a stored file by its id alone
 * (`/files/{fileId}/text`, `/download`, the inventory), so a second filing listing it would take it
 * from the first. Every import that appends claims its whole file list (an update re-claims its own
 * ids, which is no conflict). A claim is never released: an id removed from its filing stays that
 * filing's (its pinned versions were that filing's documents), so another filing can never take it.
 */
export function catalogFileClaims(store: ClaimStore): ClaimRule<CatalogFilingCommand> {
  return {
    store,
    claimsOf: (cmd) => cmd.files.map((f) => ({ key: f.fileId, owner: cmd.filing.id })),
    refusal: (claim, holder) => new DomainError('file_claimed', `file ${claim.key} already belongs to catalog filing ${holder}`, 409),
  };
}
