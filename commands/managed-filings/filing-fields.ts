/** Moved to src/domain (the auditors' reads fold the same events); kept so existing imports stay valid. */
export * from '../../src/domain/filing-fields';
