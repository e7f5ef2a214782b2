import { Client } from '@elastic/elasticsearch';

/** The Elasticsearch the tests use (CI starts one: `eval "$(infra/servers/elasticsearch.sh start)"`), or null. */
export function testElasticsearchUrl(): string | null {
  return process.env.ELASTICSEARCH_URL?.trim() || null;
}

/** An alias no other test (or engineer sharing the server) uses. */
export function uniqueAlias(prefix = 'ifrs-test'): string {
  return `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}

/** Deletes every physical index behind `<alias>-*` (a test's own indexes). */
export async function dropTestIndexes(client: Client, alias: string): Promise<void> {
  await client.indices.delete({ index: `${alias}-*`, ignore_unavailable: true, allow_no_indices: true });
}
