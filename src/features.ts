import type { Container } from 'inversify';
import { catalog } from './features/catalog';
import { filesAndSearch } from './features/files-and-search';
import { identity } from './features/identity';
import { workingFilingsFeature } from './features/working-filings';

/**
 * Each feature (src/features/*) binds its projectors, command services, importers and route modules.
 * Adding a feature is one line here; the engine, the importer and the app pick up whatever is bound.
 */
export type Feature = (c: Container) => void;

export const FEATURES: Feature[] = [identity, catalog, filesAndSearch, workingFilingsFeature];
