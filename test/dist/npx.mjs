// The npm package installed offline into PREFIX: `npx retrieve version`, and
// a tools/list through `npx retrieve serve --stdio` with the official
// TypeScript SDK client (pinned in test/mcpclient). Usage: node npx.mjs PREFIX
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import assert from "node:assert/strict";

const prefix = process.argv[2];
if (!prefix) { console.error("usage: node npx.mjs PREFIX"); process.exit(2); }
const env = { ...process.env, npm_config_offline: "true", npm_config_update_notifier: "false" };

const version = execFileSync("npx", ["--offline", "retrieve", "version", "--json"], { cwd: prefix, env, encoding: "utf8" });
const info = JSON.parse(version);
assert.match(info.version, /^\d+\.\d+\.\d+/, `npx retrieve version: ${version}`);
assert.match(info.commit, /^[0-9a-f]{7,40}$/, `commit of a release build: ${version}`);
console.log(`npx retrieve version: ${info.version} (commit ${info.commit.slice(0, 12)}, built ${info.date})`);

const root = mkdtempSync(join(tmpdir(), "retrieve-npx-"));
writeFileSync(join(root, "a.txt"), "one\ntwo\n");
const client = new Client({ name: "retrieve-npx-check", version: "1.0.0" });
await client.connect(new StdioClientTransport({ command: "npx", args: ["--offline", "retrieve", "--root", root, "serve", "--stdio"], cwd: prefix, env }));
try {
  assert.equal(client.getServerVersion()?.version, info.version, "serverInfo.version is retrieve version's");
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  for (const want of ["retrieve", "verify", "quote", "log", "show"]) assert.ok(names.includes(want), `${want} missing from ${names}`);
  const r = await client.callTool({ name: "retrieve", arguments: { target: "a.txt", lines: "2" } });
  assert.equal(r.structuredContent?.retrieved?.data, "two\n", JSON.stringify(r));
  console.log(`npx retrieve serve --stdio: ${tools.length} tools listed, retrieve called`);
} finally {
  await client.close();
}
