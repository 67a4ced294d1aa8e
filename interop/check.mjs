// check.mjs: read the tables rdeval wrote with independent readers and
// compare them with what rdeval says they hold.
//
// Usage: node interop/check.mjs EXPECTED.json
// EXPECTED.json: {"tables": [{"path": "...", "format": "parquet"|"arrow",
//   "rows": N, "columns": [{"name", "duckdb_type" | "arrow_type", "nulls"}],
//   "mean_score_by_agent": {"agent": mean, ...}}]}   (the last only for runs)
// Parquet files are read with DuckDB (@duckdb/node-api), Arrow IPC files
// with apache-arrow. Exit 1 with one line per mismatch.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { DuckDBInstance } from "@duckdb/node-api";
import { tableFromIPC } from "apache-arrow";

const exp = JSON.parse(readFileSync(process.argv[2], "utf8"));
const problems = [];
const near = (a, b) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));

// digest spells a column's values as valueDigest in
// cmd/rdeval/internal/interop/interop_test.go does and hashes them: one line
// per row, "N" for null, else "V" + the value (doubles as IEEE-754 bits in
// hex, timestamps as integer microseconds, lists as count + \x01-joined
// elements). kind is "double", "list" or "plain".
const bits = (x) => {
  const dv = new DataView(new ArrayBuffer(8));
  dv.setFloat64(0, x);
  return dv.getBigUint64(0).toString(16).padStart(16, "0");
};
const digest = (kind, values) => {
  const h = createHash("sha256");
  for (const v of values) {
    if (v === null || v === undefined) { h.update("N\n"); continue; }
    let s;
    if (kind === "double") s = bits(v);
    else if (kind === "list") s = [String(v.length), ...v].join("\x01");
    else s = String(v);
    h.update("V" + s + "\n");
  }
  return h.digest("hex");
};
const kindOf = (type) => (/^(DOUBLE|Float64)$/.test(type) ? "double" : /(\[\]$|^List<)/.test(type) ? "list" : "plain");

const instance = await DuckDBInstance.create(":memory:");
const db = await instance.connect();
const q = async (sql) => (await db.runAndReadAll(sql)).getRowObjectsJS();
const lit = (s) => "'" + s.replaceAll("'", "''") + "'";

for (const t of exp.tables) {
  const where = `${t.path} (${t.format})`;
  if (t.format === "parquet") {
    const src = `read_parquet(${lit(t.path)})`;
    const [{ n }] = await q(`SELECT count(*)::BIGINT AS n FROM ${src}`);
    if (Number(n) !== t.rows) problems.push(`${where}: ${n} rows, rdeval says ${t.rows}`);
    const cols = await q(`DESCRIBE SELECT * FROM ${src}`);
    const names = cols.map((c) => c.column_name);
    const want = t.columns.map((c) => c.name);
    if (JSON.stringify(names) !== JSON.stringify(want)) problems.push(`${where}: columns ${names}, rdeval says ${want}`);
    for (const c of t.columns) {
      const got = cols.find((x) => x.column_name === c.name);
      if (got && got.column_type !== c.duckdb_type) problems.push(`${where}: ${c.name} is ${got.column_type}, want ${c.duckdb_type}`);
      const [{ k }] = await q(`SELECT count(*)::BIGINT - count("${c.name}")::BIGINT AS k FROM ${src}`);
      if (Number(k) !== c.nulls) problems.push(`${where}: ${c.name} has ${k} nulls, rdeval says ${c.nulls}`);
      if (!got) continue;
      const expr = got.column_type.startsWith("TIMESTAMP") ? `epoch_us("${c.name}")::VARCHAR` : `"${c.name}"`;
      const vals = (await q(`SELECT ${expr} AS v FROM ${src}`)).map((r) => r.v);
      const d = digest(kindOf(got.column_type), vals);
      if (d !== c.digest) problems.push(`${where}: values of ${c.name} differ from what rdeval wrote (digest ${d.slice(0, 12)}, want ${c.digest.slice(0, 12)})`);
    }
    if (t.mean_score_by_agent) {
      const rows = await q(`SELECT agent, avg(score) AS m FROM ${src} WHERE score IS NOT NULL GROUP BY agent`);
      for (const r of rows) {
        const w = t.mean_score_by_agent[r.agent];
        if (w === undefined || !near(r.m, w)) problems.push(`${where}: mean score of ${r.agent} ${r.m}, rdeval says ${w}`);
      }
      if (rows.length !== Object.keys(t.mean_score_by_agent).length) problems.push(`${where}: ${rows.length} agents with scores, rdeval says ${Object.keys(t.mean_score_by_agent).length}`);
    }
    // Key-value metadata rdeval writes.
    const md = await q(`SELECT decode(key) AS k, decode(value) AS v FROM parquet_kv_metadata(${lit(t.path)})`);
    for (const key of ["rdeval.table", "rdeval.schema_version", "rdeval.version"]) {
      if (!md.some((m) => m.k === key)) problems.push(`${where}: no ${key} in the key-value metadata`);
    }
  } else if (t.format === "csv" || t.format === "jsonl") {
    // rdeval export's plain files, read by DuckDB's own CSV / JSON readers.
    const src = t.format === "csv" ? `read_csv(${lit(t.path)}, header = true)` : `read_json(${lit(t.path)}, format = 'newline_delimited')`;
    const [{ n }] = await q(`SELECT count(*)::BIGINT AS n FROM ${src}`);
    if (Number(n) !== t.rows) problems.push(`${where}: ${n} rows, rdeval says ${t.rows}`);
    const names = (await q(`DESCRIBE SELECT * FROM ${src}`)).map((c) => c.column_name);
    const want = t.columns.map((c) => c.name);
    if (JSON.stringify(names) !== JSON.stringify(want)) problems.push(`${where}: columns ${names}, rdeval says ${want}`);
    if (t.format === "jsonl") {
      for (const c of t.columns) {
        const [{ k }] = await q(`SELECT count(*)::BIGINT - count("${c.name}")::BIGINT AS k FROM ${src}`);
        if (Number(k) !== c.nulls) problems.push(`${where}: ${c.name} has ${k} nulls, rdeval says ${c.nulls}`);
      }
    }
    const ms = t.mean_score_by_agent ?? {};
    const rows = await q(`SELECT agent, avg(score::DOUBLE) AS m FROM ${src} WHERE score IS NOT NULL GROUP BY agent`);
    for (const r of rows) {
      const w = ms[r.agent];
      if (w === undefined || !near(r.m, w)) problems.push(`${where}: mean score of ${r.agent} ${r.m}, rdeval says ${w}`);
    }
    if (rows.length !== Object.keys(ms).length) problems.push(`${where}: ${rows.length} agents with scores, rdeval says ${Object.keys(ms).length}`);
  } else {
    const table = tableFromIPC(readFileSync(t.path));
    if (table.numRows !== t.rows) problems.push(`${where}: ${table.numRows} rows, rdeval says ${t.rows}`);
    const names = table.schema.fields.map((f) => f.name);
    const want = t.columns.map((c) => c.name);
    if (JSON.stringify(names) !== JSON.stringify(want)) problems.push(`${where}: columns ${names}, rdeval says ${want}`);
    for (const c of t.columns) {
      const f = table.schema.fields.find((x) => x.name === c.name);
      if (f && String(f.type) !== c.arrow_type) problems.push(`${where}: ${c.name} is ${f.type}, want ${c.arrow_type}`);
      const col = table.getChild(c.name);
      if (col && col.nullCount !== c.nulls) problems.push(`${where}: ${c.name} has ${col.nullCount} nulls, rdeval says ${c.nulls}`);
      if (!col) continue;
      const type = String(f.type);
      let vals;
      if (type.startsWith("Timestamp")) {
        // Raw 64-bit microseconds (get() would round them to milliseconds).
        vals = [];
        for (const data of col.data) {
          for (let i = 0; i < data.length; i++) vals.push(data.getValid(i) ? data.values[i] : null);
        }
      } else {
        vals = [];
        for (let i = 0; i < col.length; i++) {
          const v = col.get(i);
          vals.push(v !== null && type.startsWith("List<") ? v.toArray() : v);
        }
      }
      const d = digest(kindOf(type), vals);
      if (d !== c.digest) problems.push(`${where}: values of ${c.name} differ from what rdeval wrote (digest ${d.slice(0, 12)}, want ${c.digest.slice(0, 12)})`);
    }
    if (t.mean_score_by_agent) {
      const agent = table.getChild("agent"), score = table.getChild("score");
      const acc = {};
      for (let i = 0; i < table.numRows; i++) {
        const s = score.get(i);
        if (s === null) continue;
        const a = agent.get(i);
        (acc[a] ??= [0, 0])[0] += s;
        acc[a][1]++;
      }
      for (const [a, [s, n]] of Object.entries(acc)) {
        if (!near(s / n, t.mean_score_by_agent[a])) problems.push(`${where}: mean score of ${a} ${s / n}, rdeval says ${t.mean_score_by_agent[a]}`);
      }
    }
  }
}
if (problems.length) {
  console.log(problems.join("\n"));
  process.exit(1);
}
console.log(`interop: ${exp.tables.length} tables agree`);
