// duckdb_convert.mjs: the DuckDB side of bench/compare.sh's conversion pairs.
// Usage: node interop/duckdb_convert.mjs json|csv INPUT OUT.parquet
// Prints the number of rows written on stdout, and on stderr the seconds
// the COPY statement itself took ("copy_s 0.123", timed in this process,
// so without Node.js's and DuckDB's start-up: bench/compare.sh reports it).
import { DuckDBInstance } from "@duckdb/node-api";

const [kind, input, out] = process.argv.slice(2);
const lit = (s) => "'" + s.replaceAll("'", "''") + "'";
const db = await (await DuckDBInstance.create(":memory:")).connect();
const src = kind === "json" ? `read_json_auto(${lit(input)}, format='newline_delimited')` : `read_csv(${lit(input)}, header=true)`;
const t0 = performance.now();
await db.run(`COPY (SELECT * FROM ${src}) TO ${lit(out)} (FORMAT parquet, COMPRESSION zstd)`);
const copyS = (performance.now() - t0) / 1000;
const rows = await db.runAndReadAll(`SELECT count(*)::BIGINT AS n FROM read_parquet(${lit(out)})`);
console.log(String(rows.getRowObjectsJS()[0].n));
console.error(`copy_s ${copyS.toFixed(4)}`);
