// Paging through MCP with the official TypeScript SDK client (pinned in
// package-lock.json): a 5 MB file read completely by following
// extraction.next, 20,000 memory notes, a 300-edge graph answer and a
// directory of 200 source files by following next_cursor. Every
// part's hash must verify, the parts must join to the whole, and no message
// may exceed the server's budget. Usage: node paging.mjs RETRIEVE_BINARY
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, writeFileSync, mkdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import assert from "node:assert/strict";

const BUDGET = 40000; // the server's default (retrieve serve --budget)
const bin = process.argv[2];
if (!bin) { console.error("usage: node paging.mjs RETRIEVE_BINARY"); process.exit(2); }
const root = mkdtempSync(join(tmpdir(), "retrieve-paging-"));

// A 5 MB file whose lines need JSON escaping (quotes, backslashes, tabs,
// non-ASCII), so that the budget is tested on more than plain ASCII.
const lines = [];
let size = 0;
for (let i = 1; size < 5 * 1024 * 1024; i++) {
  const l = `${i}\t"quoted" \\ back-slashed, naïve café ✓ ${"x".repeat(i % 97)}\n`;
  lines.push(l);
  size += Buffer.byteLength(l);
}
const whole = lines.join("");
writeFileSync(join(root, "big.log"), whole);
execFileSync(bin, ["--root", root, "init"], { stdio: "ignore" });
execFileSync(bin, ["--root", root, "memory", "init"], { stdio: "ignore" });
const NOTES = 20000;
for (let i = 0; i < NOTES; i++) {
  writeFileSync(join(root, "memory", "semantic", `n${String(i).padStart(5, "0")}.md`),
    `---\nmemory_entry_id: sem-20250101-${String(i).padStart(5, "0")}\ntitle: "Note ${i}"\nmemory_type: semantic\ntags: ["bulk"]\ncreated: "2025-01-01T00:00:00Z"\nupdated: "2025-01-01T00:00:00Z"\n---\n\nBody ${i}.\n`);
}

// A directory of source files for outline.
mkdirSync(join(root, "src"));
const FILES = 200;
for (let i = 0; i < FILES; i++) {
  writeFileSync(join(root, "src", `f${String(i).padStart(3, "0")}.go`),
    `package src\n\n// Run${i} runs.\nfunc Run${i}() {}\n\n// Kind${i} is a kind.\ntype Kind${i} struct{}\n`);
}

const sha = (s) => "sha256:" + createHash("sha256").update(s, "utf8").digest("hex");

try {
  const transport = new StdioClientTransport({ command: bin, args: ["--root", root, "serve", "--stdio", "--toolsets", "all"] });
  const client = new Client({ name: "retrieve-paging", version: "1.0.0" });
  await client.connect(transport);
  // Measure every message the server sends, as it came over the wire.
  let largest = 0, messages = 0;
  const onmessage = transport.onmessage;
  transport.onmessage = (msg, extra) => {
    const n = Buffer.byteLength(JSON.stringify(msg));
    largest = Math.max(largest, n);
    messages++;
    assert.ok(n <= BUDGET, `a message of ${n} bytes exceeds the ${BUDGET}-byte budget`);
    onmessage(msg, extra);
  };

  // The file, part by part.
  let target = "big.log", parts = 0, joined = [];
  const t0 = Date.now();
  while (target) {
    const r = await client.callTool({ name: "retrieve", arguments: { target } });
    assert.ok(!r.isError, `part ${parts}: ${JSON.stringify(r.structuredContent?.error)}`);
    const res = r.structuredContent;
    assert.equal(res.citation.hash, sha(res.retrieved.data), `part ${parts}: the hash does not cover its data`);
    assert.match(res.citation.reference, /^big\.log:\d+-\d+$/, `part ${parts}: reference ${res.citation.reference}`);
    joined.push(res.retrieved.data);
    target = res.extraction.next;
    parts++;
  }
  assert.equal(joined.join(""), whole, "the parts do not join to the file");
  console.log(`file: ${(size / 1048576).toFixed(1)} MiB in ${parts} parts, each cited and verified, in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

  // The notes, page by page.
  const seen = new Set();
  let cursor = "", pages = 0;
  const t1 = Date.now();
  do {
    const args = { tags: ["bulk"], limit: 1000 };
    if (cursor) args.cursor = cursor;
    const r = await client.callTool({ name: "memory_list", arguments: args });
    assert.ok(!r.isError, `page ${pages}: ${JSON.stringify(r.structuredContent?.error)}`);
    assert.equal(r.structuredContent.total, NOTES);
    for (const e of r.structuredContent.entries) {
      assert.ok(!seen.has(e.memory_entry_id), `${e.memory_entry_id} listed twice`);
      seen.add(e.memory_entry_id);
    }
    cursor = r.structuredContent.next_cursor;
    pages++;
  } while (cursor);
  assert.equal(seen.size, NOTES, "not every note was listed");
  console.log(`memory: ${NOTES} notes in ${pages} pages in ${((Date.now() - t1) / 1000).toFixed(1)} s`);

  // A graph answer of 300 edges, page by page; every edge id is a
  // citation that retrieve resolves and verify_citation verifies.
  const EDGES = 300;
  const entities = [{ name: "hub", type: "system" }], relations = [];
  let text = "";
  for (let i = 0; i < EDGES; i++) {
    const spoke = `spoke${String(i).padStart(3, "0")}`;
    text += `The hub feeds ${spoke} through a path described at some length, number ${i}.\n`;
    entities.push({ name: spoke, type: "component" });
    relations.push({ source: "hub", target: spoke, type: "uses", confidence: 0.9, supporting_text: `hub feeds ${spoke}` });
  }
  const ing = await client.callTool({ name: "graph_ingest", arguments: { doc_id: "hub", title: "Hub", content: text, extraction: { entities, relations } } });
  assert.ok(!ing.isError && ing.structuredContent.edges_added === EDGES, `graph_ingest: ${JSON.stringify(ing.structuredContent)}`);
  const edges = new Set();
  let paths = 0;
  cursor = ""; pages = 0;
  do {
    const args = { query: "what does the hub feed?", max_nodes: 400 };
    if (cursor) args.cursor = cursor;
    const r = await client.callTool({ name: "graph_evidence", arguments: args });
    assert.ok(!r.isError, `graph page ${pages}: ${JSON.stringify(r.structuredContent?.error)}`);
    const page = r.structuredContent;
    assert.equal(page.total_edges, EDGES);
    for (const e of page.subgraph.edges) {
      assert.ok(!edges.has(e.id), `edge ${e.id} on two pages`);
      assert.ok(page.subgraph.nodes[e.source] && page.subgraph.nodes[e.target], `a page lacks the nodes of edge ${e.id}`);
      edges.add(e.id);
    }
    paths += page.paths.length;
    cursor = page.next_cursor;
    pages++;
  } while (cursor);
  assert.equal(edges.size, EDGES, "not every edge came");
  assert.equal(paths, EDGES, "not every path came");
  const [first] = edges;
  const got = await client.callTool({ name: "retrieve", arguments: { target: `graph:edge/${first}` } });
  assert.ok(!got.isError && got.structuredContent.citation.reference === `graph:edge/${first}`, `graph:edge/${first}: ${JSON.stringify(got.structuredContent?.error)}`);
  const ver = await client.callTool({ name: "verify_citation", arguments: { retrieval_id: got.structuredContent.retrieval_id } });
  assert.equal(ver.structuredContent.status, "verified", `verify graph:edge/${first}: ${JSON.stringify(ver.structuredContent)}`);
  console.log(`graph: ${EDGES} edges with their evidence in ${pages} pages; graph:edge/<id> resolves and verifies`);

  // A directory of source files, outline by outline.
  const outlined = new Set();
  cursor = ""; pages = 0;
  do {
    const args = { target: "src" };
    if (cursor) args.cursor = cursor;
    const r = await client.callTool({ name: "outline", arguments: args });
    assert.ok(!r.isError, `outline page ${pages}: ${JSON.stringify(r.structuredContent?.error)}`);
    assert.equal(r.structuredContent.files, FILES);
    for (const o of r.structuredContent.outlines) {
      assert.ok(!outlined.has(o.target), `${o.target} outlined twice`);
      assert.equal(o.symbols.length, 2, `${o.target}: ${o.symbols.length} symbols`);
      outlined.add(o.target);
    }
    cursor = r.structuredContent.next_cursor;
    pages++;
  } while (cursor);
  assert.equal(outlined.size, FILES, "not every file was outlined");
  console.log(`outline: ${FILES} files in ${pages} pages`);

  // A forged cursor is refused.
  const bad = await client.callTool({ name: "memory_list", arguments: { cursor: "eyJsIjoibG9nIn0.0000000000000000" } });
  assert.ok(bad.isError && bad.structuredContent.error.code === "INPUT_VALIDATION_FAILED", "a forged cursor must be refused");
  console.log(`paging: OK (${messages} messages, the largest ${largest} bytes, budget ${BUDGET})`);
  await client.close();
} finally {
  rmSync(root, { recursive: true, force: true });
}
