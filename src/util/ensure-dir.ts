import fs from 'node:fs';
import path from 'node:path';

/**
 * `mkdir -p` that fails fast. Node's own `mkdirSync(dir, { recursive: true })` retries for ever when
 * creating a child of an existing directory fails with ENOENT (a directory that takes no children, such
 * as /proc): `--data-dir /proc/x` hung with no output. Here a second ENOENT after the parent exists is final.
 */
export function ensureDir(dir: string): void {
  try {
    fs.mkdirSync(dir);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') {
      if (!fs.statSync(dir).isDirectory()) throw new Error(`${dir} exists and is not a directory`);
      return;
    }
    const parent = path.dirname(dir);
    if (code !== 'ENOENT' || parent === dir) throw e;
    ensureDir(parent);
    try {
      fs.mkdirSync(dir);
    } catch (again) {
      if ((again as NodeJS.ErrnoException).code !== 'EEXIST') throw again;
    }
  }
}
