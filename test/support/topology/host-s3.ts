import { execFileSync } from 'node:child_process';
import path from 'node:path';
import type { Network } from './netns';

const S3_SH = path.join(__dirname, '../../../infra/servers/s3.sh');

/**
 * The S3 gateway of infra/servers/s3.sh (Versity S3 Gateway) on one host of the topology, listening on the
 * host's address. Returns the environment the roles need (S3_ENDPOINT, S3_BUCKET, credentials, ...).
 */
export function startHostS3(net: Network, hostName: string, serversDir: string, port = 7070): { env: Record<string, string>; stop(): void } {
  const env = { ...process.env, S3_HOST: net.host(hostName).address, S3_PORT: String(port), S3_BUCKET: 'ifrs-topology', SERVERS_DIR: serversDir };
  // A namespace host has no route out: the binary is installed (go install, once) from the machine's own namespace.
  execFileSync('bash', [S3_SH, 'install'], { env, stdio: ['ignore', 'ignore', 'pipe'], timeout: 600_000 });
  // The script starts the gateway in the background (setsid) from inside the namespace, where it stays.
  const out = execFileSync('ip', ['netns', 'exec', net.host(hostName).ns, 'bash', S3_SH, 'start'], { env, stdio: ['ignore', 'pipe', 'pipe'], timeout: 300_000 }).toString();
  const vars: Record<string, string> = {};
  for (const line of out.split('\n')) {
    const m = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
    if (m) vars[m[1]] = m[2];
  }
  if (!vars.S3_ENDPOINT) throw new Error(`infra/servers/s3.sh start printed no S3_ENDPOINT: ${out}`);
  return {
    env: vars,
    stop: () => {
      execFileSync('bash', [S3_SH, 'stop'], { env, stdio: 'ignore', timeout: 30_000 });
    },
  };
}
