import pg from 'pg';
import fs from 'node:fs';
const dir = process.argv[2];
const pw = fs.readFileSync(`${dir}/pg-password`, 'utf8').trim();
const l = fs.readFileSync(`${dir}/pg/postmaster.pid`, 'utf8').split('\n');
(async () => {
  const c = new pg.Client({ host: l[4].trim(), port: Number(l[3]), user: 'postgres', password: pw, database: 'postgres' });
  await c.connect();
  console.log((await c.query(`select name, prepare_position::text from projection_checkpoints`)).rows);
  console.log((await c.query(process.argv[3] ?? `select count(*) from catalog_filings`)).rows);
  await c.end();
})();
