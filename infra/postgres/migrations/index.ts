import type { Knex } from 'knex';
import * as m001 from './001_event_store';
import * as m002 from './002_cursor_states';
import * as m003 from './003_settings';
import * as m007 from './007_no_append_notify';
import * as m008 from './008_no_type_order_index';
import * as m006 from './006_small_blobs';
import * as m005 from './005_typed_append_notifications';
import * as m004 from './004_bus_processed_events';
import * as m009 from './009_catalog_file_claims';
import * as m010 from './010_idempotency_keys';
import * as m011 from './011_idempotency_key_streams';
import * as m012 from './012_event_hash_chains';

/** Versioned SQL migrations of the infrastructure tables (read models own their schema: see projections/engine). */
const migrations: Record<string, Knex.Migration> = {
  '001_event_store': m001,
  '002_cursor_states': m002,
  '003_settings': m003,
  '004_bus_processed_events': m004,
  '005_typed_append_notifications': m005,
  '006_small_blobs': m006,
  '007_no_append_notify': m007,
  '008_no_type_order_index': m008,
  '009_catalog_file_claims': m009,
  '010_idempotency_keys': m010,
  '011_idempotency_key_streams': m011,
  '012_event_hash_chains': m012,
};

export const migrationSource: Knex.MigrationSource<string> = {
  getMigrations: async () => Object.keys(migrations).sort(),
  getMigrationName: (name) => name,
  getMigration: async (name) => migrations[name],
};
