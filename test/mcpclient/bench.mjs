// Stdio wire time of one small-file read: retrieve's `retrieve` tool
// (recorded and no_record) against the official filesystem MCP server's
// read_text_file on the same file, and of ten small files in one call:
// retrieve_many against read_multiple_files, with the same client, in the
// same run. Usage: npm ci (with the optional server-filesystem, pinned in
// package-lock.json), then
//   node bench.mjs RETRIEVE_BINARY [N]
// The servers are called in turn, one call each (interleaved).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync, readFileSync, rmSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { createRequire } from "node:module";

const bin = process.argv[2];
const N = Number(process.argv[3] || 2000);
// ONLY ("one" or "many") runs one of the two comparisons.
const only = process.env.ONLY;
// A budget that holds the ten files whole (twice over MCP, with their
// citations), as read_multiple_files returns them: the same work.
const BUDGET = 100000;
const root = realpathSync(mkdtempSync(join(tmpdir(), "retrieve-bench-")));
const file = join(root, "small.md");
writeFileSync(file, "# Small\n\n" + "A line of a small markdown file used to time one read.\n".repeat(30));
const ten = [];
for (let i = 0; i < 10; i++) {
  const name = `f${i}.md`;
  writeFileSync(join(root, name), `# File ${i}\n\n` + `Line of small file ${i}, read with nine others in one call.\n`.repeat(20 + i));
  ten.push(name);
}
execFileSync(bin, ["--root", root, "init"], { stdio: "ignore" });

// interleaved times N calls of each [label, transport, call], one call of
// each in turn, so that a change of the machine's load during the run
// weighs on all alike, and returns the p50 of each.
async function interleaved(cases) {
  const cs = [];
  for (const [label, transport, call] of cases) {
    const c = new Client({ name: "bench", version: "1.0.0" });
    await c.connect(transport);
    for (let i = 0; i < 200; i++) await call(c);
    cs.push({ label, call, c, t: [] });
  }
  for (let i = 0; i < N; i++) {
    for (const x of cs) {
      const s = process.hrtime.bigint();
      const r = await x.call(x.c);
      x.t.push(Number(process.hrtime.bigint() - s) / 1e6);
      if (r.isError) throw new Error(x.label + ": " + JSON.stringify(r));
    }
  }
  return Promise.all(cs.map(async (x) => {
    await x.c.close();
    x.t.sort((a, b) => a - b);
    const p = (q) => x.t[Math.floor(q * (x.t.length - 1))];
    console.log(`${x.label.padEnd(48)} p50 ${p(0.5).toFixed(3)} ms  p95 ${p(0.95).toFixed(3)} ms  (n=${N}, interleaved)`);
    return p(0.5);
  }));
}

const require = createRequire(import.meta.url);
const fsServer = join(dirname(require.resolve("@modelcontextprotocol/server-filesystem/package.json")), "dist", "index.js");
try {
  console.log(`load ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}`);
  const fsT = () => new StdioClientTransport({ command: process.execPath, args: [fsServer, root], stderr: "ignore" });
  const ours = () => new StdioClientTransport({ command: bin, args: ["--root", root, "serve", "--stdio"] });
  if (!only || only === "one") {
    const [fs, norec, rec] = await interleaved([
      ["node server-filesystem read_text_file", fsT(), (c) => c.callTool({ name: "read_text_file", arguments: { path: file } })],
      ["retrieve (no_record)", ours(), (c) => c.callTool({ name: "retrieve", arguments: { target: "small.md", no_record: true } })],
      ["retrieve (recorded in the ledger)", ours(), (c) => c.callTool({ name: "retrieve", arguments: { target: "small.md" } })],
    ]);
    console.log(`ratio p50 retrieve/filesystem: no_record ${(norec / fs).toFixed(2)}, recorded ${(rec / fs).toFixed(2)}`);
  }
  if (!only || only === "many") {
    const [fsMany, manyNorec, manyRec] = await interleaved([
      ["node server-filesystem read_multiple_files (10)", fsT(), (c) => c.callTool({ name: "read_multiple_files", arguments: { paths: ten.map((n) => join(root, n)) } })],
      ["retrieve_many (10, no_record)", ours(), (c) => c.callTool({ name: "retrieve_many", arguments: { targets: ten, no_record: true, budget: BUDGET } })],
      ["retrieve_many (10, recorded)", ours(), (c) => c.callTool({ name: "retrieve_many", arguments: { targets: ten, budget: BUDGET } })],
    ]);
    console.log(`ratio p50 retrieve_many/read_multiple_files: no_record ${(manyNorec / fsMany).toFixed(2)}, recorded ${(manyRec / fsMany).toFixed(2)}`);
  }
  console.log(`load ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}`);
} finally {
  rmSync(root, { recursive: true, force: true });
}
