/*
 * `npm run clients:generate` regenerates both SDKs from the served document:
 *   clients/openapi.json                      the document GET /api/v2/openapi.json serves
 *   clients/typescript/src/schema.d.ts        openapi-typescript
 *   clients/python/ifrs_client/models.py      datamodel-code-generator (TypedDicts)
 * `--check` writes them to a temporary folder instead and exits 1 naming every committed file that differs.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { servedDocument } from './generate-openapi';
import { ensurePythonEnv, venvBin } from './python-env';

const ROOT = path.resolve(__dirname, '..');
const OUTPUTS = {
  document: 'clients/openapi.json',
  typescript: 'clients/typescript/src/schema.d.ts',
  python: 'clients/python/ifrs_client/models.py',
} as const;

export function generate(into: string): Record<keyof typeof OUTPUTS, string> {
  const out = Object.fromEntries(Object.entries(OUTPUTS).map(([k, rel]) => [k, path.join(into, rel)])) as Record<keyof typeof OUTPUTS, string>;
  for (const f of Object.values(out)) fs.mkdirSync(path.dirname(f), { recursive: true });
  fs.writeFileSync(out.document, `${JSON.stringify(servedDocument(), null, 2)}\n`);
  execFileSync(process.execPath, [path.join(ROOT, 'node_modules', 'openapi-typescript', 'bin', 'cli.js'), out.document, '-o', out.typescript, '--silent'], { stdio: 'inherit' });
  ensurePythonEnv();
  execFileSync(
    venvBin('datamodel-codegen'),
    ['--input', out.document, '--input-file-type', 'openapi', '--output-model-type', 'typing.TypedDict', '--output', out.python,
      '--target-python-version', '3.11', '--disable-timestamp', '--use-standard-collections', '--use-union-operator', '--formatters', 'black', 'isort'],
    // The generator names its input file in a header comment: run it from clients/ so the name is the same anywhere.
    { stdio: ['ignore', 'inherit', 'ignore'], cwd: path.dirname(out.document) },
  );
  return out;
}

if (require.main === module) {
  if (process.argv.includes('--check')) {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ifrs-clients-'));
    try {
      const fresh = generate(tmp);
      const stale = Object.entries(OUTPUTS).filter(([k, rel]) => {
        const committed = path.join(ROOT, rel);
        return !fs.existsSync(committed) || fs.readFileSync(committed, 'utf8') !== fs.readFileSync(fresh[k as keyof typeof OUTPUTS], 'utf8');
      });
      if (stale.length) {
        process.stderr.write(`stale SDK files (run npm run clients:generate): ${stale.map(([, rel]) => rel).join(', ')}\n`);
        process.exit(1);
      }
      process.stdout.write('SDKs are up to date with the served document\n');
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  } else {
    generate(ROOT);
    process.stdout.write(`wrote ${Object.values(OUTPUTS).join(', ')}\n`);
  }
}
