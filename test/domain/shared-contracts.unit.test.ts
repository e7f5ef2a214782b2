import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * The layers every side shares (DESIGN.md "Layers"): event types, value types, ports and the read-model
 * schema sit below commands, projections and queries, so they may not reach back up into them.
 */
const ROOT = path.join(__dirname, '../..');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.posix.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(rel);
    return e.name.endsWith('.ts') ? [rel] : [];
  });
}

/** Every project file `dir`'s modules import (relative specifiers, as paths from the repository root). */
function projectImports(dir: string): { from: string; to: string }[] {
  return sourceFiles(dir).flatMap((from) => {
    const { importedFiles } = ts.preProcessFile(fs.readFileSync(path.join(ROOT, from), 'utf8'), true, true);
    return importedFiles
      .filter((f) => f.fileName.startsWith('.'))
      .map((f) => ({ from, to: path.posix.normalize(path.posix.join(path.posix.dirname(from), f.fileName)) }));
  });
}

function outside(dir: string, allowed: string[]): string[] {
  return projectImports(dir)
    .filter(({ to }) => !allowed.some((a) => to === a || to.startsWith(`${a}/`)))
    .map(({ from, to }) => `${from} -> ${to}`);
}

describe('shared contracts: the layers below commands, projections and queries', () => {
  it('rule: src/domain (events of every category, value types, errors, the decider type) imports nothing outside src/domain', () => {
    assert.deepEqual(outside('src/domain', ['src/domain']), []);
  });

  it('rule: src/ports imports only ports and the domain', () => {
    assert.deepEqual(outside('src/ports', ['src/ports', 'src/domain']), []);
  });

  it('rule: src/read-models (table names, row shapes, projection names) imports only the domain, ports, utilities and the Postgres toolkit', () => {
    assert.deepEqual(outside('src/read-models', ['src/read-models', 'src/domain', 'src/ports', 'src/util', 'infra/postgres']), []);
  });

  it('rule: the checker sees imports: a module of src/domain/events imports a value type of src/domain', () => {
    // Guards the rules above against passing vacuously (a scan that found no files or no imports).
    assert.ok(projectImports('src/domain').some(({ from, to }) => from === 'src/domain/events/managed-filings.ts' && to === 'src/domain/filing-fields'));
  });
});
