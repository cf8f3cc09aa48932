// Stdio wire time of one small-file read: retrieve's `retrieve` tool
// (recorded and no_record) against the official filesystem MCP server's
// read_text_file on the same file, and of ten small files in one call:
// retrieve_many against read_multiple_files, with the same client, in the
// same run. Usage: npm ci (with the optional server-filesystem, pinned in
// package-lock.json), then
//   node bench.mjs RETRIEVE_BINARY [N]
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync, rmSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { createRequire } from "node:module";

const bin = process.argv[2];
const N = Number(process.argv[3] || 2000);
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

async function time(label, transport, call) {
  const c = new Client({ name: "bench", version: "1.0.0" });
  await c.connect(transport);
  for (let i = 0; i < 200; i++) await call(c);
  const t = [];
  for (let i = 0; i < N; i++) {
    const s = process.hrtime.bigint();
    const r = await call(c);
    t.push(Number(process.hrtime.bigint() - s) / 1e6);
    if (r.isError) throw new Error(label + ": " + JSON.stringify(r));
  }
  await c.close();
  t.sort((a, b) => a - b);
  const p = (q) => t[Math.floor(q * (t.length - 1))];
  console.log(`${label.padEnd(48)} p50 ${p(0.5).toFixed(3)} ms  p95 ${p(0.95).toFixed(3)} ms  (n=${N})`);
  return p(0.5);
}

const require = createRequire(import.meta.url);
const fsServer = join(dirname(require.resolve("@modelcontextprotocol/server-filesystem/package.json")), "dist", "index.js");
try {
  const fs = await time("node server-filesystem read_text_file", new StdioClientTransport({ command: process.execPath, args: [fsServer, root], stderr: "ignore" }),
    (c) => c.callTool({ name: "read_text_file", arguments: { path: file } }));
  const norec = await time("retrieve (no_record)", new StdioClientTransport({ command: bin, args: ["--root", root, "serve", "--stdio"] }),
    (c) => c.callTool({ name: "retrieve", arguments: { target: "small.md", no_record: true } }));
  const rec = await time("retrieve (recorded in the ledger)", new StdioClientTransport({ command: bin, args: ["--root", root, "serve", "--stdio"] }),
    (c) => c.callTool({ name: "retrieve", arguments: { target: "small.md" } }));
  console.log(`ratio p50 retrieve/filesystem: no_record ${(norec / fs).toFixed(2)}, recorded ${(rec / fs).toFixed(2)}`);
  const fsMany = await time("node server-filesystem read_multiple_files (10)", new StdioClientTransport({ command: process.execPath, args: [fsServer, root], stderr: "ignore" }),
    (c) => c.callTool({ name: "read_multiple_files", arguments: { paths: ten.map((n) => join(root, n)) } }));
  const manyNorec = await time("retrieve_many (10, no_record)", new StdioClientTransport({ command: bin, args: ["--root", root, "serve", "--stdio"] }),
    (c) => c.callTool({ name: "retrieve_many", arguments: { targets: ten, no_record: true, budget: BUDGET } }));
  const manyRec = await time("retrieve_many (10, recorded)", new StdioClientTransport({ command: bin, args: ["--root", root, "serve", "--stdio"] }),
    (c) => c.callTool({ name: "retrieve_many", arguments: { targets: ten, budget: BUDGET } }));
  console.log(`ratio p50 retrieve_many/read_multiple_files: no_record ${(manyNorec / fsMany).toFixed(2)}, recorded ${(manyRec / fsMany).toFixed(2)}`);
} finally {
  rmSync(root, { recursive: true, force: true });
}
