#!/usr/bin/env bash
# Runs release binaries of other platforms as a user would, on this machine:
# natively, or under qemu-user (linux/arm64), wine (windows/amd64) or Rosetta
# (darwin/amd64 on an arm64 Mac). Each binary comes from a folder laid out as
# test/dist/prebuilt.sh collect writes it: DIR/<goos>_<goarch>/retrieve[.exe].
#
#   test/dist/cross.sh DIR TARGET...
#
# TARGET is <goos>_<goarch> (built and run: fails if this machine cannot run
# it), or <goos>_<goarch>:file (only its file format and build settings are
# checked: for a target nothing here can run). Per binary: the build info
# (GOOS, GOARCH, CGO_ENABLED) when `go` is here, `version` and `--version`,
# `get --lines`, the outlines of a TypeScript and a Python file (tree-sitter
# through cgo) and of a Go file — or, for the pure-Go windows/arm64 build,
# UNSUPPORTED_FORMAT with its hint for TypeScript — and `serve --http` on
# 127.0.0.1 answering /healthz. Loopback only. `make dist-cross` runs it.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
dir=$(cd "${1:?usage: cross.sh DIR TARGET...}" && pwd); shift
[ $# -gt 0 ] || { echo "usage: cross.sh DIR TARGET..."; exit 2; }

work=$(mktemp -d); srv=""
cleanup() {
  if [ -n "$srv" ]; then kill "$srv" 2>/dev/null || true; fi
  if [ -n "${WINEPREFIX:-}" ] && command -v wineserver >/dev/null 2>&1; then wineserver -k 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

host_os=$(uname -s); host_arch=$(uname -m)
case "$host_os" in Linux) host_os=linux ;; Darwin) host_os=darwin ;; MINGW* | MSYS* | CYGWIN*) host_os=windows ;; esac
case "$host_arch" in x86_64 | amd64) host_arch=amd64 ;; aarch64 | arm64) host_arch=arm64 ;; esac
# Git Bash may itself run emulated on Windows 11 on Arm: ask Windows.
if [ "$host_os" = windows ]; then
  case "$(powershell -NoProfile -Command '[System.Runtime.InteropServices.RuntimeInformation]::OSArchitecture' | tr -d '\r')" in
    Arm64) host_arch=arm64 ;; X64) host_arch=amd64 ;;
  esac
fi

# runner TARGET: prints the command prefix that runs TARGET's binary here
# ("" for natively), or fails.
runner() {
  local goos=${1%_*} goarch=${1#*_}
  if [ "$goos" = "$host_os" ] && [ "$goarch" = "$host_arch" ]; then echo ""; return; fi
  case "$host_os/$1" in
    linux/linux_arm64) command -v qemu-aarch64-static >/dev/null && { echo qemu-aarch64-static; return; }
                       command -v qemu-aarch64 >/dev/null && { echo qemu-aarch64; return; } ;;
    linux/linux_amd64) command -v qemu-x86_64-static >/dev/null && { echo qemu-x86_64-static; return; } ;;
    linux/windows_amd64) command -v wine >/dev/null && { echo wine; return; } ;;
    darwin/darwin_amd64) echo "arch -x86_64"; return ;;
    windows/windows_amd64) [ "$host_arch" = arm64 ] && { echo ""; return; } ;;
  esac
  return 1
}

fail() { echo "FAIL $target: $*" >&2; exit 1; }

# The workspace a user would have: a text file and source files.
ws="$work/ws"; mkdir -p "$ws/src"
cp extract/code/testdata/user.ts extract/code/testdata/models.py extract/code/testdata/sample.go "$ws/src/"
printf 'one\ntwo\nthree\n' > "$ws/notes.txt"

for arg in "$@"; do
  target=${arg%:file}; only_file=""; [ "$arg" != "$target" ] && only_file=1
  goos=${target%_*}; goarch=${target#*_}
  exe=retrieve; [ "$goos" = windows ] && exe=retrieve.exe
  bin="$dir/$target/$exe"
  [ -f "$bin" ] || fail "no binary at $bin"
  echo "== $target: $bin ($(wc -c <"$bin" | tr -d ' ') bytes)"

  # What the file is, and how it was built.
  if command -v file >/dev/null; then
    ft=$(file -b "$bin"); echo "   file: $ft"
    case "$target" in
      linux_amd64) want='ELF 64-bit LSB executable, x86-64.*statically linked' ;;
      linux_arm64) want='ELF 64-bit LSB executable, ARM aarch64.*statically linked' ;;
      windows_amd64) want='PE32\+ executable.*x86-64' ;;
      windows_arm64) want='PE32\+ executable.*(Aarch64|ARM64)' ;;
      darwin_amd64) want='Mach-O 64-bit.*x86_64' ;;
      darwin_arm64) want='Mach-O 64-bit.*arm64' ;;
      *) fail "unknown target" ;;
    esac
    grep -Eq "$want" <<<"$ft" || fail "file format: want /$want/"
  fi
  # A Windows user has no mingw runtime: only system DLLs may be imported.
  if [ "$target" = windows_amd64 ] && command -v x86_64-w64-mingw32-objdump >/dev/null; then
    dlls=$(x86_64-w64-mingw32-objdump -p "$bin" | sed -n 's/^[[:space:]]*DLL Name: //p' | sort -u | tr '\n' ' ')
    echo "   imports: $dlls"
    if grep -Eqi '(^| )lib[^ ]*\.dll' <<<"$dlls"; then fail "imports a mingw runtime DLL: $dlls"; fi
  fi
  cgo=1; [ "$target" = windows_arm64 ] && cgo=0    # .goreleaser.yaml: the pure-Go build
  if command -v go >/dev/null; then
    meta=$(go version -m "$bin")
    for kv in "GOOS=$goos" "GOARCH=$goarch" "CGO_ENABLED=$cgo" "-trimpath=true" "-tags=netgo,osusergo"; do
      grep -Eq "^[[:space:]]*build[[:space:]]+$kv\$" <<<"$meta" || fail "build info has no $kv"
    done
    echo "   build info: GOOS=$goos GOARCH=$goarch CGO_ENABLED=$cgo -trimpath -tags=netgo,osusergo"
  fi
  if [ -n "$only_file" ]; then echo "   not run: nothing on this machine runs $target"; continue; fi

  run=$(runner "$target") || fail "this machine ($host_os/$host_arch) cannot run it (qemu-user-static, wine?)"
  echo "   run with: ${run:-the host}"
  cp "$bin" "$work/$exe"; chmod 755 "$work/$exe"
  if [[ "$run" == wine* ]]; then
    export WINEPREFIX="$work/wine" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
    wineboot --init >/dev/null 2>&1 || true
    # Wine < 8.13 has no bcryptprimitives.dll (ProcessPrng), which Go's
    # runtime loads: a stand-in built here, in this throwaway prefix only.
    wv=$(wine --version 2>/dev/null | sed -n 's/^wine-\([0-9]*\)\.\([0-9]*\).*/\1 \2/p')
    # shellcheck disable=SC2086 # "8 0" is two arguments
    if [ -n "$wv" ] && [ "$(printf '%d%03d' $wv)" -lt 8013 ]; then
      x86_64-w64-mingw32-gcc -O2 -shared -o "$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll" \
        test/dist/wine-processprng.c -ladvapi32 || fail "cannot build the ProcessPrng stand-in for wine $wv"
      echo "   wine ${wv/ /.}: ProcessPrng from test/dist/wine-processprng.c"
    fi
  fi
  r() { (cd "$ws" && $run "$work/$exe" "$@") 2>"$work/stderr"; }
  # Windows writes CRLF only where a program asks; strip CRs anyway.
  v=$(r version | tr -d '\r') || { cat "$work/stderr"; fail "version"; }
  grep -Eq '^retrieve [0-9]+\.[0-9]+\.[0-9]+.* \(commit ' <<<"$v" || fail "version line: $v"
  [ "$(r --version | tr -d '\r')" = "$v" ] || fail "--version differs from version"
  echo "   version: $v"
  g=$(r get notes.txt --lines 2 --json | tr -d '\r') || { cat "$work/stderr"; fail "get"; }
  grep -q '"data": "two\\n"' <<<"$g" || fail "get --lines 2: $g"
  echo "   get notes.txt --lines 2: ok"
  o=$(r outline src/sample.go | tr -d '\r') || { cat "$work/stderr"; fail "outline of a Go file"; }
  grep -Eq 'src/sample.go:[0-9]+-[0-9]+ +struct +Store$' <<<"$o" || fail "outline src/sample.go: $o"
  echo "   outline src/sample.go: $(($(grep -c . <<<"$o") - 1)) symbols"
  if [ "$cgo" = 1 ]; then
    o=$(r outline src/user.ts | tr -d '\r') || { cat "$work/stderr"; fail "outline of a TypeScript file"; }
    grep -Eq 'src/user.ts:[0-9]+-[0-9]+ +class +User$' <<<"$o" || fail "outline src/user.ts: $o"
    echo "   outline src/user.ts (tree-sitter, cgo): $(($(grep -c . <<<"$o") - 1)) symbols"
    o=$(r outline src/models.py | tr -d '\r') || { cat "$work/stderr"; fail "outline of a Python file"; }
    grep -Eq 'src/models.py:[0-9]+-[0-9]+ +method +User.Meta.describe$' <<<"$o" || fail "outline src/models.py: $o"
    echo "   outline src/models.py (tree-sitter, cgo): $(($(grep -c . <<<"$o") - 1)) symbols"
  else
    if o=$(r outline src/user.ts --json | tr -d '\r'); then fail "a pure-Go build outlined TypeScript: $o"; fi
    o="$o$(tr -d '\r' <"$work/stderr")"
    if ! grep -q 'UNSUPPORTED_FORMAT' <<<"$o" || ! grep -q 'CGO_ENABLED=1' <<<"$o"; then
      fail "outline src/user.ts without cgo: $o"
    fi
    echo "   outline src/user.ts (no cgo): UNSUPPORTED_FORMAT with its hint"
  fi
  (cd "$ws" && exec $run "$work/$exe" serve --http 127.0.0.1:0) 2>"$work/serve.log" &
  srv=$!
  base=""
  for _ in $(seq 1 150); do
    base=$(grep -Eo 'http://127\.0\.0\.1:[0-9]+' "$work/serve.log" | head -1) && [ -n "$base" ] && break
    sleep 0.2
  done
  [ -n "$base" ] || { cat "$work/serve.log"; fail "serve --http 127.0.0.1:0 did not say where it listens"; }
  h=""
  for _ in $(seq 1 50); do h=$(curl -sf "$base/healthz" 2>/dev/null) && break; sleep 0.2; done
  grep -q '"status":"ok"' <<<"$h" || { cat "$work/serve.log"; fail "$base/healthz: $h"; }
  echo "   serve --http $base: /healthz $h"
  kill "$srv" 2>/dev/null || true
  [ "$host_os" = windows ] && [ -f "/proc/$srv/winpid" ] && { taskkill //F //PID "$(cat "/proc/$srv/winpid")" >/dev/null 2>&1 || true; }
  wait "$srv" 2>/dev/null || true; srv=""
  if [ -n "${WINEPREFIX:-}" ]; then wineserver -k 2>/dev/null || true; unset WINEPREFIX; fi
  echo "   $target: OK"
done
cd "$repo"
echo "cross check: OK ($*)"
