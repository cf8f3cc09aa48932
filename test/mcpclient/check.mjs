// A real MCP client from npm (the official TypeScript SDK, pinned in
// package-lock.json) against the built retrieve binary, over stdio and over
// streamable HTTP. Usage: node check.mjs RETRIEVE_BINARY
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import assert from "node:assert/strict";

const bin = process.argv[2];
if (!bin) { console.error("usage: node check.mjs RETRIEVE_BINARY"); process.exit(2); }
const root = mkdtempSync(join(tmpdir(), "retrieve-mcpclient-"));
writeFileSync(join(root, "a.txt"), "one\ntwo\nthree\n");
execFileSync(bin, ["--root", root, "init"], { stdio: "ignore" });

async function exercise(client, label) {
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name).sort();
  for (const want of ["retrieval_log", "check_quote", "retrieve", "retrieve_many", "show_retrieval", "verify_citation", "outline"]) assert.ok(names.includes(want), `${label}: ${want} missing from ${names}`);
  for (const t of tools) {
    assert.equal(t.inputSchema.type, "object", `${label}: ${t.name} input schema`);
    if (["retrieve", "verify_citation", "check_quote", "retrieval_log", "show_retrieval", "wiki_read", "graph_query", "outline"].includes(t.name)) assert.ok(t.annotations?.readOnlyHint, `${label}: ${t.name} readOnlyHint`);
    if (t.name === "outline") assert.equal(t.annotations?.openWorldHint, false, `${label}: outline reads only the workspace`);
  }
  for (const want of ["wiki_write", "wiki_read", "memory_list", "graph_evidence"]) assert.ok(names.includes(want), `${label}: ${want} missing`);
  // The SDK validates structuredContent against the tool's outputSchema here.
  const ok = await client.callTool({ name: "retrieve", arguments: { target: "a.txt", lines: "2" } });
  assert.ok(!ok.isError, `${label}: retrieve failed: ${JSON.stringify(ok)}`);
  assert.equal(ok.structuredContent.retrieved.data, "two\n", `${label}: data`);
  assert.match(ok.structuredContent.citation.hash, /^sha256:[0-9a-f]{64}$/);
  const bad = await client.callTool({ name: "retrieve", arguments: { target: "missing.txt" } });
  assert.ok(bad.isError, `${label}: a missing file must be an isError result`);
  assert.equal(bad.structuredContent.error.code, "PATH_NOT_FOUND");
  const v = await client.callTool({ name: "verify_citation", arguments: { retrieval_id: ok.structuredContent.retrieval_id } });
  assert.equal(v.structuredContent.status, "verified", `${label}: verify`);
  const w = await client.callTool({ name: "wiki_write", arguments: { category: "topic", title: "CI page " + label, content: "# CI\n\nWritten by the TypeScript client.\n" } });
  assert.ok(!w.isError, `${label}: wiki_write: ${JSON.stringify(w)}`);
  const r = await client.callTool({ name: "wiki_read", arguments: { slug: w.structuredContent.slug } });
  assert.match(r.structuredContent.content, /TypeScript client/);
  const m = await client.callTool({ name: "memory_list", arguments: {} });
  // retrieve init made the memory folder: an empty list.
  assert.ok(!m.isError && Array.isArray(m.structuredContent.entries), `${label}: memory_list: ${JSON.stringify(m)}`);
  // What a host surfaces: prompts as slash commands, resources to @-mention.
  const { prompts } = await client.listPrompts();
  const pnames = prompts.map((p) => p.name);
  for (const want of ["cite_span", "check_citations", "verify_session", "ask_graph"]) assert.ok(pnames.includes(want), `${label}: prompt ${want} missing from ${pnames}`);
  const p = await client.getPrompt({ name: "cite_span", arguments: { target: "a.txt:2" } });
  assert.match(p.messages[0].content.text, /a\.txt:2/, `${label}: cite_span text`);
  const { resources } = await client.listResources();
  const uris = resources.map((x) => x.uri);
  assert.ok(uris.includes("retrieve://retrieval/" + ok.structuredContent.retrieval_id), `${label}: the recorded retrieval is not a resource: ${uris}`);
  assert.ok(uris.some((u) => u.startsWith("retrieve://wiki/topic/")), `${label}: the wiki page is not a resource: ${uris}`);
  const rr = await client.readResource({ uri: "retrieve://retrieval/" + ok.structuredContent.retrieval_id });
  assert.equal(JSON.parse(rr.contents[0].text).citation.reference, ok.structuredContent.citation.reference, `${label}: the retrieval resource`);
  console.log(`${label}: ${tools.length} tools, ${prompts.length} prompts, ${resources.length} resources listed; retrieve, error, verify, wiki, memory, prompts and resources OK`);
}

try {
  // The default tool list: the toolsets read, ledger and memory only.
  const def = new Client({ name: "retrieve-ci-default", version: "1.0.0" });
  await def.connect(new StdioClientTransport({ command: bin, args: ["--root", root, "serve", "--stdio"] }));
  const defNames = (await def.listTools()).tools.map((t) => t.name);
  assert.ok(defNames.includes("retrieve") && defNames.includes("memory_list") && !defNames.includes("wiki_write") && !defNames.includes("graph_ingest"), `default tool list: ${defNames}`);
  const defPrompts = (await def.listPrompts()).prompts.map((p) => p.name);
  assert.ok(defPrompts.includes("cite_span") && !defPrompts.includes("ask_graph"), `default prompts: ${defPrompts}`);
  await def.close();

  const stdio = new Client({ name: "retrieve-ci", version: "1.0.0" });
  await stdio.connect(new StdioClientTransport({ command: bin, args: ["--root", root, "serve", "--stdio", "--toolsets", "all"] }));
  await exercise(stdio, "stdio");
  await stdio.close();

  const token = "ci-" + Math.random().toString(36).slice(2);
  const srv = spawn(bin, ["--root", root, "serve", "--http", "127.0.0.1:0"], { env: { ...process.env, RETRIEVE_TOKEN: token, RETRIEVE_TOOLSETS: "all" } });
  const base = await new Promise((resolve, reject) => {
    let buf = "";
    srv.stderr.on("data", (d) => {
      buf += d;
      const m = buf.match(/api=http:\/\/([^/ ]+)\/v1\//);
      if (m) resolve("http://" + m[1]);
    });
    srv.on("exit", (c) => reject(new Error("server exited " + c + ": " + buf)));
    setTimeout(() => reject(new Error("server did not start: " + buf)), 15000);
  });
  const http = new Client({ name: "retrieve-ci", version: "1.0.0" });
  await http.connect(new StreamableHTTPClientTransport(new URL(base + "/mcp"), { requestInit: { headers: { Authorization: "Bearer " + token } } }));
  await exercise(http, "http");
  await http.close();
  const denied = await fetch(base + "/mcp", { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" });
  assert.equal(denied.status, 401, "no token must be refused");
  srv.kill("SIGTERM");
  console.log("mcpclient: OK");
} finally {
  rmSync(root, { recursive: true, force: true });
}
