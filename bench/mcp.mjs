// The MCP comparisons of bench/peers.sh, with one client (the official
// TypeScript SDK) over stdio, in one run:
//   - a head read: 50 lines of BIG (a large file), retrieve's `retrieve` tool
//     (warm: the whole-source hash is cached) against the filesystem
//     server's read_text_file with head: 50;
//   - a small read, retrieve recorded in the ledger against no_record.
// Usage: node mcp.mjs RETRIEVE_BINARY ROOT BIG SMALL [N]
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { join, dirname } from "node:path";
import { createRequire } from "node:module";

const [bin, root, big, small] = process.argv.slice(2, 6);
const N = Number(process.argv[6] || 300);
if (!small) { console.error("usage: node mcp.mjs RETRIEVE_BINARY ROOT BIG SMALL [N]"); process.exit(2); }

async function time(label, transport, call) {
  const c = new Client({ name: "bench-peers", version: "1.0.0" });
  await c.connect(transport);
  for (let i = 0; i < 20; i++) await call(c);
  const t = [];
  for (let i = 0; i < N; i++) {
    const s = process.hrtime.bigint();
    const r = await call(c);
    t.push(Number(process.hrtime.bigint() - s) / 1e6);
    if (r.isError) throw new Error(label + ": " + JSON.stringify(r).slice(0, 500));
  }
  await c.close();
  t.sort((a, b) => a - b);
  const p = (q) => t[Math.floor(q * (t.length - 1))];
  console.log(`${label.padEnd(44)} p50 ${p(0.5).toFixed(3)} ms  p95 ${p(0.95).toFixed(3)} ms  (n=${N})`);
  return p(0.5);
}

// interleaved times N calls of each [label, transport, call], alternating,
// and returns the p50 of each.
async function interleaved(cases) {
  const cs = [];
  for (const [label, transport, call] of cases) {
    const c = new Client({ name: "bench-peers", version: "1.0.0" });
    await c.connect(transport);
    for (let i = 0; i < 20; i++) await call(c);
    cs.push({ label, call, c, t: [] });
  }
  for (let i = 0; i < N; i++) {
    for (const x of cs) {
      const s = process.hrtime.bigint();
      const r = await x.call(x.c);
      x.t.push(Number(process.hrtime.bigint() - s) / 1e6);
      if (r.isError) throw new Error(x.label + ": " + JSON.stringify(r).slice(0, 500));
    }
  }
  return Promise.all(cs.map(async (x) => {
    await x.c.close();
    x.t.sort((a, b) => a - b);
    const p = (q) => x.t[Math.floor(q * (x.t.length - 1))];
    console.log(`${x.label.padEnd(44)} p50 ${p(0.5).toFixed(3)} ms  p95 ${p(0.95).toFixed(3)} ms  (n=${N}, interleaved)`);
    return p(0.5);
  }));
}

const require = createRequire(import.meta.url);
const fsServer = join(dirname(require.resolve("@modelcontextprotocol/server-filesystem/package.json")), "dist", "index.js");
const ours = () => new StdioClientTransport({ command: bin, args: ["--root", root, "serve", "--stdio"] });

const node = await time("node server-filesystem head 50 of BIG", new StdioClientTransport({ command: process.execPath, args: [fsServer, root], stderr: "ignore" }),
  (c) => c.callTool({ name: "read_text_file", arguments: { path: join(root, big), head: 50 } }));
const head = await time("retrieve lines 1-50 of BIG (warm)", ours(),
  (c) => c.callTool({ name: "retrieve", arguments: { target: big, lines: "1-50" } }));
console.log(`RATIO head-read retrieve/node-filesystem p50: ${(head / node).toFixed(2)} (target <= 2, p50 <= 1 ms)`);
// The small reads alternate between two servers, one call each in turn, so
// that a change of the machine's load during the run weighs on both alike.
const [norec, rec] = await interleaved([
  ["retrieve small read (no_record)", ours(), (c) => c.callTool({ name: "retrieve", arguments: { target: small, no_record: true } })],
  ["retrieve small read (recorded)", ours(), (c) => c.callTool({ name: "retrieve", arguments: { target: small } })],
]);
console.log(`RATIO small-read recorded/no_record p50: ${(rec / norec).toFixed(2)} (target <= 1.3)`);
