/*
 * `npm run decisions:generate` writes src/decisions.ts from docs/DECISIONS.md, the one file the decisions are kept
 * in: the served part (between the `served` markers) becomes the text the OpenAPI description is built from.
 * `--check` exits 1 when src/decisions.ts is not what the file gives. The service reads no file next to its code at
 * run time (the build runs from any directory), so the text travels as a generated module.
 */
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..');
export const DECISIONS_FILE = path.join(ROOT, 'docs/DECISIONS.md');
export const DECISIONS_MODULE = path.join(ROOT, 'src/decisions.ts');

const OPEN = /^<!-- served\b.*-->$/m;
const CLOSE = /^<!-- \/served -->$/m;

/**
 * The served text of the decisions file: one note per line, blank lines dropped, a `### Heading` line written as
 * `Heading:` (the form `splitDecisions` in src/http/openapi.ts gives to its tag).
 */
export function servedDecisions(markdown: string): string {
  const open = OPEN.exec(markdown);
  const close = CLOSE.exec(markdown);
  if (!open || !close || close.index < open.index) throw new Error('docs/DECISIONS.md: no <!-- served --> ... <!-- /served --> part');
  return markdown
    .slice(open.index + open[0].length, close.index)
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => line.replace(/^### (.*)$/, '$1:'))
    .join('\n');
}

/** The notes of the served part (its `- ` lines), each as the OpenAPI description must carry it. */
export function servedNotes(markdown: string): string[] {
  return servedDecisions(markdown).split('\n').filter((line) => line.startsWith('- '));
}

/** Text as the body of a template literal: a backslash, a backtick and `${` escaped. */
function templateText(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/`/g, '\\`').replace(/\$\{/g, '\\${');
}

export function decisionsModule(markdown: string): string {
  return `// Generated from docs/DECISIONS.md by \`npm run decisions:generate\`: edit that file, not this one.

/** Decisions taken where the contract is silent; served in the OpenAPI description. */
export const DECISIONS = \`${templateText(servedDecisions(markdown))}\`;
`;
}

if (require.main === module) {
  const expected = decisionsModule(fs.readFileSync(DECISIONS_FILE, 'utf8'));
  if (process.argv.includes('--check')) {
    if (fs.readFileSync(DECISIONS_MODULE, 'utf8') !== expected) {
      process.stderr.write('src/decisions.ts is stale: run npm run decisions:generate\n');
      process.exit(1);
    }
  } else {
    fs.writeFileSync(DECISIONS_MODULE, expected);
  }
}
