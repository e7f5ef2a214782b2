import type { Feature } from './features/feature';
import { catalog } from './features/catalog';
import { filesAndSearch } from './features/files-and-search';
import { identity } from './features/identity';
import { workingFilingsFeature } from './features/working-filings';

/** The features the container installs, in order (see src/features/feature.ts). */
export const FEATURES: Feature[] = [identity, catalog, filesAndSearch, workingFilingsFeature];
