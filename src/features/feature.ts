import type { Container } from 'inversify';

/**
 * Each feature (src/features/*) binds its projectors, command services, importers and route modules.
 * Adding a feature is one line in src/features.ts; the engine, the importer and the app pick up whatever is bound.
 */
export type Feature = (c: Container) => void;
