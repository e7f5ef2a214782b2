import assert from 'node:assert/strict';
import path from 'node:path';

/*
 * The layer rule of `npm run lint` (.dependency-cruiser.cjs) run on a small fixture tree laid out like the
 * project (test/architecture/fixtures): every import it must refuse is reported, and nothing it allows is.
 * In process and on fixture files only; the real tree is checked by `npm run lint:layers`.
 */
const ROOT = path.resolve(__dirname, '../..');
const FIXTURES = path.join(__dirname, 'fixtures');

interface Violation {
  rule: string;
  from: string;
  to: string;
}

async function violationsOfFixtures(): Promise<Violation[]> {
  const { cruise } = await import('dependency-cruiser');
  const { default: extractDepcruiseOptions } = await import('dependency-cruiser/config-utl/extract-depcruise-options');
  const options = await extractDepcruiseOptions(path.join(ROOT, '.dependency-cruiser.cjs'));
  // The project's tsconfig does not cover the fixture tree; relative imports resolve without it.
  const { tsConfig: _projectTsConfig, ...rest } = options;
  const cwd = process.cwd();
  process.chdir(FIXTURES);
  try {
    const result = await cruise(['src', 'commands', 'projections', 'queries', 'infra'], { ...rest, validate: true });
    if (typeof result.output === 'string') throw new Error(`unexpected cruise output: ${result.output}`);
    return result.output.summary.violations
      .map((v) => ({ rule: v.rule.name, from: v.from, to: v.cycle ? v.cycle.map((c) => c.name).join(' → ') : v.to.replace(/^(\.\.\/)*node_modules\//, 'npm:') }))
      .sort((a, b) => `${a.rule} ${a.from} ${a.to}`.localeCompare(`${b.rule} ${b.from} ${b.to}`));
  } finally {
    process.chdir(cwd);
  }
}

describe('the layer rule (dependency-cruiser), on a fixture tree', () => {
  let violations: Violation[];
  before(async () => {
    violations = await violationsOfFixtures();
  });
  const of = (rule: string) => violations.filter((v) => v.rule === rule).map((v) => `${v.from} -> ${v.to}`);

  it('rule: a layer imports only the layers it may use; type-only imports count; what it may use is not reported', () => {
    assert.deepEqual(of('domain'), ['src/domain/leaks-up.ts -> commands/handler.ts']);
    assert.deepEqual(of('util'), ['src/util/reads-config.ts -> src/config.ts']);
    assert.deepEqual(of('commands'), ['commands/reads-a-query.ts -> queries/list.ts']);
    assert.deepEqual(of('projections'), ['projections/projector.ts -> commands/handler.ts']);
    assert.deepEqual(of('queries'), ['queries/uses-a-projector.ts -> projections/projector.ts']);
    for (const clean of ['ports', 'postgres-toolkit', 'read-models', 'http']) assert.deepEqual(of(clean), [], `${clean}: its imports are all allowed`);
  });

  it('rule: an adapter in infra/ uses its own folder and the Postgres toolkit, never another adapter', () => {
    assert.deepEqual(of('adapters'), ['infra/search/index.ts -> infra/kafka/topic.ts']);
  });

  it('rule: nothing outside the wiring imports it, while the wiring may import any layer', () => {
    assert.deepEqual(of('nothing-imports-the-wiring'), ['src/util/reads-config.ts -> src/config.ts']);
    assert.ok(!violations.some((v) => v.from.startsWith('src/cli/') || v.from === 'src/config.ts'), 'the wiring imports freely');
  });

  it('rule: a command module never takes an Express object (it imports nothing of express)', () => {
    assert.deepEqual(of('commands-take-plain-values'), ['commands/takes-a-request.ts -> npm:express/index.js']);
  });

  it('rule: an import cycle is reported, even one made of type-only imports', () => {
    assert.deepEqual(of('no-circular'), ['commands/cycle-a.ts -> commands/cycle-b.ts → commands/cycle-a.ts']);
  });

  it('rule: every violation in the fixture tree is one of those above (no rule fires on an allowed import)', () => {
    assert.deepEqual(
      violations.map((v) => v.rule),
      ['adapters', 'commands', 'commands-take-plain-values', 'domain', 'no-circular', 'nothing-imports-the-wiring', 'projections', 'queries', 'util'],
    );
  });
});
