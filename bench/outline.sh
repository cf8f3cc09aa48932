#!/usr/bin/env bash
# retrieve outline against universal-ctags on 10k-line files of public code
# (issue 31 point 4), interleaved per round, medians of ROUNDS, CPU
# (user+sys, from getrusage) beside wall, load printed:
#   bench/outline.sh [RETRIEVE_BINARY...]   (bench/peers.sh runs it)
# Several binaries (main's build and a branch's) are run in the same
# rounds, one after the other in each, each with its own store.
# Cold: the outline cache holds nothing for the file (its rows are deleted
# before each run), so retrieve parses; warm: the file's outline is cached.
# Files: net/http/h2_bundle.go of the Go toolchain (12k lines); Python's
# _pydecimal.py + typing.py (9.8k); zod's v3/types.ts + v4/core/schemas.ts
# (10.4k; bench/package-lock.json pins zod, `npm ci` in bench/ fetches it).
# Targets: cold <= 2x ctags CPU, warm <= 0.2x.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-7}
for tool in ctags python3 sqlite3; do
  command -v "$tool" >/dev/null || { echo "bench/outline.sh needs $tool (apt-get install universal-ctags python3 sqlite3)" >&2; exit 2; }
done
ctags --version 2>/dev/null | grep -q Universal || { echo "bench/outline.sh needs universal-ctags" >&2; exit 2; }
scratch=$(mktemp -d "${TMPDIR:-/tmp}/retrieve-outline-XXXXXX")
[ "${KEEP:-}" = 1 ] || trap 'rm -rf "$scratch"' EXIT
bins=("$@")
if [ ${#bins[@]} = 0 ]; then
  bins=("$scratch/retrieve")
  go build -o "${bins[0]}" ./cmd/retrieve
fi
ws="$scratch/ws"
mkdir -p "$ws"
cp "$(go env GOROOT)/src/net/http/h2_bundle.go" "$ws/big.go"
# The Python files as internal/codecorpus finds them (the benchmarks').
py=""
for d in $(ls -d /usr/lib/python3.* 2>/dev/null | sort) $(ls -d "$HOME"/.pyenv/versions/*/lib/python3.* 2>/dev/null | sort); do
  [ -f "$d/_pydecimal.py" ] && [ -f "$d/typing.py" ] && py=$d && break
done
[ -n "$py" ] || { echo "bench/outline.sh: no Python standard library with _pydecimal.py" >&2; exit 2; }
cat "$py/_pydecimal.py" "$py/typing.py" > "$ws/big.py"
zod=""
for d in bench/node_modules/zod/src test/mcpclient/node_modules/zod/src; do
  [ -f "$d/v3/types.ts" ] && zod=$d && break
done
if [ -z "$zod" ]; then
  (cd bench && npm ci --no-audit --no-fund --loglevel=error) && zod=bench/node_modules/zod/src
fi
cat "$zod/v3/types.ts" "$zod/v4/core/schemas.ts" > "$ws/big.ts"
# One workspace a binary (the same files), so that each has its own store.
wss=()
for i in "${!bins[@]}"; do
  [ "$i" = 0 ] || cp -r "$ws" "$scratch/ws$i"
  w=$ws; [ "$i" = 0 ] || w="$scratch/ws$i"
  wss+=("$w")
  "${bins[$i]}" --root "$w" outline big.go >/dev/null   # creates the store and the cache table
done

echo "== outline of 10k-line files: retrieve vs universal-ctags, median of $ROUNDS rounds, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
args=()
for i in "${!bins[@]}"; do args+=("${bins[$i]}" "${wss[$i]}"); done
python3 - "$ROUNDS" "${args[@]}" <<'PY'
import resource, statistics, subprocess, sys, time
rounds = int(sys.argv[1])
runs = list(zip(sys.argv[2::2], sys.argv[3::2]))  # (binary, workspace)
def run(cmd):
    b = resource.getrusage(resource.RUSAGE_CHILDREN); t = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    w = time.perf_counter() - t; a = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode:
        sys.exit(f"{cmd}: exit {p.returncode}: {p.stderr[:300]!r}")
    return (a.ru_utime + a.ru_stime) - (b.ru_utime + b.ru_stime), w
def forget(ws):
    subprocess.run(["sqlite3", f"{ws}/.retrieve/retrieve.db", "DELETE FROM outline_cache"], check=True)
def ms(v):
    return statistics.median(x[0] for x in v) * 1000, statistics.median(x[1] for x in v) * 1000
for ext, lang in (("py", "Python"), ("ts", "TypeScript"), ("go", "Go")):
    f = f"big.{ext}"
    lines = sum(1 for _ in open(f"{runs[0][1]}/{f}", "rb"))
    ctags, cold, warm = [], [[] for _ in runs], [[] for _ in runs]
    for _ in range(rounds):
        ctags.append(run(["ctags", "-f", "/dev/null", "--fields=+ne", f"{runs[0][1]}/{f}"]))
        for i, (bin, ws) in enumerate(runs):
            forget(ws)
            cold[i].append(run([bin, "--root", ws, "outline", f]))
            warm[i].append(run([bin, "--root", ws, "outline", f]))
    c = ms(ctags)
    print(f"{lang:10s} {lines:6d} lines  ctags cpu {c[0]:6.1f} ms wall {c[1]:6.1f} ms")
    for i, (bin, _) in enumerate(runs):
        co, wa = ms(cold[i]), ms(warm[i])
        name = f" [{bin}]" if len(runs) > 1 else ""
        print(f"  retrieve{name} cold cpu {co[0]:6.1f} ms wall {co[1]:6.1f} ms | warm cpu {wa[0]:5.1f} ms wall {wa[1]:5.1f} ms")
        print(f"RATIO outline {lang} / ctags{name}: cold cpu {co[0]/c[0]:.2f} wall {co[1]/c[1]:.2f} (target <= 2); "
              f"warm cpu {wa[0]/c[0]:.2f} wall {wa[1]/c[1]:.2f} (target <= 0.2)")
PY
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
