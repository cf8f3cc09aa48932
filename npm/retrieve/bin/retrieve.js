#!/usr/bin/env node
// The npm command `retrieve`: runs the native binary of this platform, which
// npm installed from one of the optional dependencies listed in
// platforms.json (the esbuild/biome pattern: nothing is downloaded at
// install or run time). Arguments, standard streams, signals and the exit
// status pass through unchanged, so `npx -y @retrieve-dev/retrieve serve
// --stdio` is an MCP server.
"use strict";

const { spawn } = require("node:child_process");
const path = require("node:path");

const platforms = require("../platforms.json");
const key = `${process.platform}-${process.arch}`;
const pkg = platforms[key];

function fail(message) {
  process.stderr.write(`retrieve: ${message}\n`);
  process.exit(1);
}

if (!pkg) {
  fail(
    `no native binary for ${key}. Supported platforms: ${Object.keys(platforms).join(", ")}. ` +
      "Build from source instead: go install github.com/retrieve-dev/retrieve/cmd/retrieve@latest"
  );
}

let binary;
try {
  const exe = process.platform === "win32" ? "retrieve.exe" : "retrieve";
  binary = path.join(path.dirname(require.resolve(`${pkg}/package.json`)), "bin", exe);
} catch {
  fail(
    `the package ${pkg} (the binary for ${key}) is not installed. ` +
      "It is an optional dependency: reinstall without --no-optional / --omit=optional, " +
      "and make sure the install ran on this platform."
  );
}

const child = spawn(binary, process.argv.slice(2), { stdio: "inherit", windowsHide: true });
for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(sig, () => {
    if (!child.killed) child.kill(sig);
  });
}
child.on("error", (err) => fail(`cannot run ${binary}: ${err.message}`));
child.on("exit", (code, signal) => {
  if (signal) {
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code ?? 1);
});
