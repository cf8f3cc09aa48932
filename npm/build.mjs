// Builds the npm packages from GoReleaser's output (make dist):
//   dist/npm/retrieve-dev-retrieve-<version>.tgz          the command `retrieve`
//   dist/npm/retrieve-dev-retrieve-<os>-<cpu>-<version>.tgz  one per binary
// The main package lists every platform package as an optional dependency
// with os/cpu fields, so npm installs only the one that fits.
//
// usage: node npm/build.mjs [DIST] [--current]   (--current: only this platform's package)
import { execFileSync } from "node:child_process";
import { chmodSync, copyFileSync, cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const dist = path.resolve(args.find((a) => !a.startsWith("--")) ?? "dist");
const currentOnly = args.includes("--current");

const scope = "@retrieve-dev";
const goos = { linux: "linux", darwin: "darwin", windows: "win32" };
const goarch = { amd64: "x64", arm64: "arm64" };

const metadata = JSON.parse(readFileSync(path.join(dist, "metadata.json"), "utf8"));
// npm drops build metadata (+abc1234); the optional dependencies must match exactly.
const version = metadata.version.replace(/\+.*$/, "");
const artifacts = JSON.parse(readFileSync(path.join(dist, "artifacts.json"), "utf8"));
const binaries = artifacts.filter((a) => a.type === "Binary" && goos[a.goos] && goarch[a.goarch]);
if (binaries.length === 0) {
  throw new Error(`no binaries in ${dist}/artifacts.json: run make dist first`);
}

const out = path.join(dist, "npm");
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

function pack(dir) {
  const name = execFileSync("npm", ["pack", "--silent", "--pack-destination", out], { cwd: dir, encoding: "utf8" }).trim();
  console.log(path.join(out, name.split("\n").pop()));
}

// Every platform of a release (.goreleaser.yaml), built here or not: the
// main package names them all.
const platforms = {};
for (const os of Object.values(goos)) {
  for (const cpu of Object.values(goarch)) platforms[`${os}-${cpu}`] = `${scope}/retrieve-${os}-${cpu}`;
}
const built = new Set(binaries.map((b) => `${goos[b.goos]}-${goarch[b.goarch]}`));
const missing = Object.keys(platforms).filter((k) => !built.has(k));
if (!currentOnly && missing.length > 0) {
  throw new Error(`no binary for ${missing.join(", ")} in ${dist}: run make dist`);
}
for (const b of binaries) {
  const key = `${goos[b.goos]}-${goarch[b.goarch]}`;
  const name = platforms[key];
  if (currentOnly && key !== `${process.platform}-${process.arch}`) continue;
  const dir = path.join(out, "src", `retrieve-${key}`);
  mkdirSync(path.join(dir, "bin"), { recursive: true });
  const exe = b.goos === "windows" ? "retrieve.exe" : "retrieve";
  copyFileSync(path.resolve(b.path), path.join(dir, "bin", exe));
  chmodSync(path.join(dir, "bin", exe), 0o755);
  writeFileSync(
    path.join(dir, "package.json"),
    JSON.stringify(
      {
        name,
        version,
        description: `The retrieve binary for ${key} (installed by ${scope}/retrieve).`,
        homepage: "https://github.com/retrieve-dev/retrieve",
        repository: { type: "git", url: "git+https://github.com/retrieve-dev/retrieve.git" },
        os: [goos[b.goos]],
        cpu: [goarch[b.goarch]],
        files: [`bin/${exe}`],
        preferUnplugged: true,
      },
      null,
      2
    ) + "\n"
  );
  pack(dir);
}

const main = path.join(out, "src", "retrieve");
cpSync(path.join(here, "retrieve"), main, { recursive: true });
const pj = JSON.parse(readFileSync(path.join(main, "package.json"), "utf8"));
pj.version = version;
pj.optionalDependencies = Object.fromEntries(Object.values(platforms).sort().map((n) => [n, version]));
writeFileSync(path.join(main, "package.json"), JSON.stringify(pj, null, 2) + "\n");
writeFileSync(path.join(main, "platforms.json"), JSON.stringify(platforms, null, 2) + "\n");
pack(main);
