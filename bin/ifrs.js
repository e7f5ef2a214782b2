#!/usr/bin/env node
// Production runs the JavaScript that `npm run build` compiled into dist/; a checkout without a current build
// runs the TypeScript sources through tsx (a development dependency), so `npx ifrs` there needs no build step
// and never runs stale code. NODE_ENV=production (or IFRS_RUN=dist) insists on dist/; IFRS_RUN=src on the sources.
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');
const DIST = path.join(ROOT, 'dist');
const SOURCE_DIRS = ['src', 'commands', 'projections', 'queries', 'infra'];

/** The newest modification time of the TypeScript sources (0 when the sources are not shipped). */
function newestSource(dir, newest = 0) {
  let entries;
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return newest;
  }
  for (const e of entries) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) newest = newestSource(p, newest);
    else if (e.name.endsWith('.ts')) newest = Math.max(newest, fs.statSync(p).mtimeMs);
  }
  return newest;
}

/** dist/ when it holds a build no older than any source (tsc rewrites every output on a build). */
function compiledEntry() {
  const main = path.join(DIST, 'src', 'cli', 'main.js');
  let built;
  try {
    built = fs.statSync(main).mtimeMs;
  } catch {
    return null;
  }
  return { main, built };
}

function runFrom() {
  const wanted = process.env.IFRS_RUN || '';
  if (!['', 'dist', 'src'].includes(wanted)) {
    process.stderr.write(`ifrs: invalid IFRS_RUN "${wanted}": expected dist or src\n`);
    process.exit(2);
  }
  if (wanted === 'src') return 'src';
  const compiled = compiledEntry();
  if (wanted === 'dist' || process.env.NODE_ENV === 'production') {
    if (!compiled) {
      process.stderr.write(`ifrs: no compiled build in ${DIST}: run \`npm run build\` first (or IFRS_RUN=src for the sources)\n`);
      process.exit(1);
    }
    return 'dist';
  }
  if (compiled && SOURCE_DIRS.every((d) => newestSource(path.join(ROOT, d)) <= compiled.built)) return 'dist';
  return 'src';
}

const from = runFrom();
const base = from === 'dist' ? path.join(DIST, 'src', 'cli') : path.join(ROOT, 'src', 'cli');
const ext = from === 'dist' ? '.js' : '.ts';
if (from === 'src') {
  try {
    require('tsx/cjs');
  } catch {
    process.stderr.write('ifrs: tsx is not installed (a development dependency): run `npm run build` and use the compiled build\n');
    process.exit(1);
  }
}
// A bulk job (`ifrs import`) runs in a child node with a larger young generation (src/util/bulk-node-flags.ts).
if (!require(path.join(base, `relaunch${ext}`)).relaunchedWithBulkFlags(process.argv, __filename)) {
  require(path.join(base, `main${ext}`))
    .main(process.argv)
    .catch((e) => {
      process.stderr.write(`ifrs: ${(e && e.message) || e}\n`);
      process.exit(1);
    });
}
