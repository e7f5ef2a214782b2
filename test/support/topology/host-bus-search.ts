import { execFile, execFileSync } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Network } from './netns';

const SERVERS = path.join(__dirname, '../../../infra/servers');
const run = promisify(execFile);

export interface HostServer {
  /** The variables the script's `start` printed (KAFKA_BROKERS=..., ELASTICSEARCH_URL=...). */
  env: Record<string, string>;
  /** Measured from the script's start to the server being ready (the script waits for that). */
  startMs: number;
  stop(): void;
}

/**
 * One of infra/servers' scripts started inside the host's namespace with its bind-address variable set to
 * the host's address; the script backgrounds the server (setsid), which stays in the namespace.
 */
async function startInNamespace(net: Network, hostName: string, script: string, env: Record<string, string>, expect: string): Promise<HostServer> {
  const fullEnv = { ...process.env, ...env };
  const file = path.join(SERVERS, script);
  // A namespace host has no route out: the server's artifacts are resolved (Maven, once) from the machine's own namespace.
  await run('bash', [file, 'resolve'], { env: fullEnv, timeout: 900_000, maxBuffer: 1 << 22 });
  const startedAt = Date.now();
  let out: string;
  try {
    out = (await run('ip', ['netns', 'exec', net.host(hostName).ns, 'bash', file, 'start'], { env: fullEnv, timeout: 300_000, maxBuffer: 1 << 20 })).stdout;
  } catch (e) {
    const err = e as { stderr?: string; message: string };
    throw new Error(`infra/servers/${script} start in ${hostName} failed: ${err.stderr?.slice(-3000) ?? err.message}`);
  }
  const vars: Record<string, string> = {};
  for (const line of out.split('\n')) {
    const m = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
    if (m) vars[m[1]] = m[2];
  }
  if (!vars[expect]) throw new Error(`infra/servers/${script} start printed no ${expect}: ${out}`);
  return {
    env: vars,
    startMs: Date.now() - startedAt,
    stop: () => {
      execFileSync('bash', [file, 'stop'], { env: fullEnv, stdio: 'ignore', timeout: 90_000 });
    },
  };
}

/** Kafka of infra/servers/kafka.sh listening (and advertised) on the host's address; a small heap. */
export function startHostKafka(net: Network, hostName: string, serversDir: string, port = 9092): Promise<HostServer> {
  return startInNamespace(net, hostName, 'kafka.sh', { KAFKA_HOST: net.host(hostName).address, KAFKA_PORT: String(port), KAFKA_HEAP: '256m', SERVERS_DIR: serversDir }, 'KAFKA_BROKERS');
}

/**
 * Elasticsearch of infra/servers/elasticsearch.sh answering HTTP on the host's address; a small heap. It runs
 * as an unprivileged user (it refuses root), so serversDir's parents must be traversable by that user.
 */
export function startHostElasticsearch(net: Network, hostName: string, serversDir: string, port = 9200): Promise<HostServer> {
  return startInNamespace(net, hostName, 'elasticsearch.sh', { ES_HOST: net.host(hostName).address, ES_PORT: String(port), ES_HEAP: '512m', SERVERS_DIR: serversDir }, 'ELASTICSEARCH_URL');
}
