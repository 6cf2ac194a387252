// duckdb_stats.mjs — the DuckDB baseline for bench/run.sh (through the npm package
// @duckdb/node-api): per column whose header matches REGEX, count / mean / max of the numeric
// cells, printed as "name<TAB>count<TAB>mean<TAB>max" like the mawk baseline.
//   node duckdb_stats.mjs FILE REGEX   (run from a directory whose node_modules has the package)
import { DuckDBInstance } from '@duckdb/node-api';
import { openSync, readSync, closeSync } from 'node:fs';

const [path, rx] = process.argv.slice(2);
const re = new RegExp(rx);
// the header line, to pick the columns (DuckDB's names are the header cells as written)
const fd = openSync(path, 'r');
const chunks = [];
const b = Buffer.alloc(1 << 20);
for (;;) {
  const n = readSync(fd, b, 0, b.length, null);
  if (n <= 0) break;
  const nl = b.subarray(0, n).indexOf(10);
  chunks.push(Buffer.from(b.subarray(0, nl < 0 ? n : nl)));
  if (nl >= 0) break;
}
closeSync(fd);
const cells = Buffer.concat(chunks).toString('latin1').replace(/\r$/, '').split('","')
  .map((c) => c.replace(/^"/, '').replace(/",?$/, '').replace(/,$/, ''));
const names = cells.slice(1).filter((c) => c !== '' && re.test(c));
const q = (s) => '"' + s.replace(/"/g, '""') + '"';
const lit = (s) => "'" + s.replace(/'/g, "''") + "'";
const agg = names.map((n, i) => {
  const v = `TRY_CAST(${q(n)} AS DOUBLE)`;
  return `count(${v}) AS c${i}, avg(${v}) AS a${i}, max(${v}) AS m${i}`;
}).join(', ');
const inst = await DuckDBInstance.create(':memory:');
const con = await inst.connect();
const sql = `SELECT ${agg} FROM read_csv(${lit(path)}, header = true, all_varchar = true, delim = ',', ` +
  `quote = '"', escape = '"', max_line_size = 100000000, sample_size = 1, null_padding = true)`;
const row = (await con.runAndReadAll(sql)).getRows()[0];
const out = [];
const g = (x) => (x === null ? 'nan' : Number(x).toPrecision(10).replace(/\.?0+$/, '').replace(/\.?0+e/, 'e'));
names.forEach((n, i) => {
  const c = Number(row[3 * i]);
  out.push(c ? `${n}\t${c}\t${g(row[3 * i + 1])}\t${g(row[3 * i + 2])}` : `${n}\t0\tnan\tnan`);
});
process.stdout.write(out.join('\n') + (out.length ? '\n' : ''));
