#!/usr/bin/env bash
# Checks the release artifacts of this platform that `make dist-current` (or
# `make dist`) wrote under dist/: the binary from its archive, run in a temp
# folder as a new user would; the npm packages installed offline and run
# through npx; and what the container image is made of (no Docker daemon
# here: the Dockerfile's one stage and the binary it copies). Loopback only.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
goos=$(go env GOOS); goarch=$(go env GOARCH)
work=$(mktemp -d); srv=""
trap '{ [ -n "$srv" ] && kill "$srv" 2>/dev/null; } || true; rm -rf "$work"' EXIT

echo "-- archive: checksum, unpack, smoke test"
archive=$(ls dist/retrieve_*_"${goos}"_"${goarch}".tar.gz | head -1)
(cd dist && grep " $(basename "$archive")\$" checksums.txt | sha256sum -c --quiet -)
mkdir "$work/unpacked" && tar -xzf "$archive" -C "$work/unpacked"
bin="$work/unpacked/retrieve"
go version -m "$bin" | grep >/dev/null 'CGO_ENABLED=1' || { echo "the release binary was built without cgo: no outlines but Go's"; exit 1; }
! readelf -l "$bin" 2>/dev/null | grep >/dev/null 'INTERP' || { echo "the release binary is not static"; exit 1; }
ws="$work/ws"; mkdir -p "$ws/src"
cp extract/code/testdata/user.ts "$ws/src/user.ts"
printf 'one\ntwo\nthree\n' > "$ws/notes.txt"
cd "$ws"
"$bin" version | grep -E >/dev/null '^retrieve [0-9]+\.[0-9]+\.[0-9]+.* \(commit [0-9a-f]{12}, built 20' || { "$bin" version; echo "version line"; exit 1; }
[ "$("$bin" --version)" = "$("$bin" version)" ]
"$bin" get notes.txt --lines 2 --json | grep >/dev/null '"data": "two\\n"'
"$bin" outline src/user.ts | grep -E >/dev/null 'src/user.ts:[0-9]+-[0-9]+ +class +User$' || { "$bin" outline src/user.ts; echo "outline of a TypeScript file"; exit 1; }
cd "$repo"
node test/mcpclient/check.mjs "$bin"    # serve --stdio (and --http): tools/list and calls

echo "-- npm: pack, install offline into a temp prefix, run through npx"
main_tgz=$(ls dist/npm/retrieve-dev-retrieve-[0-9]*.tgz)
plat=$(node -p 'process.platform + "-" + process.arch')
plat_tgz=$(ls dist/npm/retrieve-dev-retrieve-"$plat"-*.tgz)
prefix="$work/npm"; mkdir "$prefix"
(cd "$prefix" && npm init -y >/dev/null && npm install --offline --no-audit --no-fund --loglevel=error "$repo/$main_tgz" "$repo/$plat_tgz")
ln -s "$repo/test/mcpclient/node_modules" "$work/node_modules"   # the pinned SDK for npx.mjs
cp test/dist/npx.mjs "$work/npx.mjs"
node "$work/npx.mjs" "$prefix"
# Another platform: a clear message that names the supported ones.
printf 'Object.defineProperty(process, "platform", { value: "aix" });\n' > "$work/aix.cjs"
if out=$(node --require "$work/aix.cjs" "$prefix/node_modules/@retrieve-dev/retrieve/bin/retrieve.js" version 2>&1); then
  echo "an unsupported platform ran: $out"; exit 1
fi
echo "$out" | grep >/dev/null 'no native binary for aix-' && echo "$out" | grep >/dev/null 'linux-x64' && echo "$out" | grep >/dev/null 'darwin-arm64' \
  || { echo "unsupported platform message: $out"; exit 1; }
echo "unsupported platform: $out"

echo "-- container: the Dockerfile's stage and the binary it copies (no Docker daemon here)"
[ "$(grep -c '^FROM ' Dockerfile)" = 1 ] && grep >/dev/null '^FROM scratch$' Dockerfile
grep -E >/dev/null '^USER [1-9][0-9]*:[1-9][0-9]*$' Dockerfile
grep >/dev/null '^VOLUME \["/workspace"\]$' Dockerfile
grep >/dev/null '^CMD \["serve", "--http", "0.0.0.0:8765"\]$' Dockerfile
src=$(sed -n 's/^COPY \(dist\/docker\/linux_\)${TARGETARCH}\/retrieve .*/\1/p' Dockerfile)
[ -n "$src" ] || { echo "Dockerfile: unexpected COPY"; exit 1; }
if [ "$goos" = linux ]; then
  img="$src$goarch/retrieve"
  cmp "$img" "$bin"    # the image gets the archive's binary
  uid=$(sed -n 's/^USER \([0-9]*\):.*/\1/p' Dockerfile)
  cws="$work/container-ws"; mkdir "$cws"; chown "$uid:$uid" "$cws" 2>/dev/null || chmod 777 "$cws"
  cp "$img" "$work/retrieve-img"; chmod 755 "$work/retrieve-img" "$work"
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  runas=(); [ "$(id -u)" = 0 ] && runas=(setpriv --reuid="$uid" --regid="$uid" --clear-groups)
  "${runas[@]}" "$work/retrieve-img" --root "$cws" serve --http "127.0.0.1:$port" 2>"$work/serve.log" &
  srv=$!
  for _ in $(seq 1 50); do curl -sf "http://127.0.0.1:$port/healthz" >"$work/health" 2>/dev/null && break; sleep 0.2; done
  grep >/dev/null '"status":"ok"' "$work/health" || { cat "$work/serve.log"; echo "the container binary does not serve"; exit 1; }
  echo "container binary as uid $uid: $(cat "$work/health")"
  kill "$srv"; wait "$srv" 2>/dev/null || true; srv=""
fi
echo "-- the release job's route: this binary packed again from a prebuilt folder (test/dist/prebuilt.sh)"
pre="$work/prebuilt"
bash test/dist/prebuilt.sh collect "$pre" >/dev/null
cfg="$work/goreleaser.yaml"
{ echo "dist: $work/repack"; cat .goreleaser.yaml; } > "$cfg"
pack() { RETRIEVE_TARGETS="${goos}_${goarch}" RETRIEVE_PREBUILT="$1" make --no-print-directory dist-pack \
  PACK_FLAGS="--snapshot --skip=homebrew,scoop --config $cfg" >"$work/pack.log" 2>&1; }
pack "$pre" || { cat "$work/pack.log"; echo "packing the prebuilt binary failed"; exit 1; }
mkdir "$work/repacked" && tar -xzf "$work"/repack/retrieve_*_"${goos}"_"${goarch}".tar.gz -C "$work/repacked"
cmp "$work/repacked/retrieve" "$bin"    # the archive holds the prebuilt binary itself
(cd "$work/repack" && sha256sum --quiet -c checksums.txt)
# A binary of another commit is refused: its full commit is not the one this build stamps.
commit=$(git rev-parse HEAD)
exe=$(ls "$pre"/"${goos}_${goarch}"/retrieve*)
perl -0777 -pi -e "s/$commit/$(printf '0%.0s' $(seq 1 40))/g" "$exe"
if pack "$pre"; then echo "a binary of another commit was packed"; exit 1; fi
grep >/dev/null 'built from another commit' "$work/pack.log" || { cat "$work/pack.log"; echo "no reason given for refusing it"; exit 1; }
echo "prebuilt packing: the archive holds the prebuilt binary; one of another commit is refused"
echo "dist check: OK"
