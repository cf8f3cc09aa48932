#!/usr/bin/env bash
# The tamper-evident log's cost on a recorded small read (issue 29: at most
# 10%, p50, MCP and HTTP, SQLite and PostgreSQL, same run). `retrieve serve
# --http` of this build and of BASE (default 224a26a: main just before the
# log) on loopback, each with its own SQLite workspace and its own
# PostgreSQL database (synchronous_commit at its default, on); one call at
# a time reads 20 lines of one of 1,000 small files, over POST /v1/retrieve
# (../shared/bench/loadgen, SHARED_BENCH) and over MCP (streamable HTTP,
# tools/call retrieve: bench/mcpload), both with -c 1.
# Rounds interleave every server; medians of p50 and of the server's CPU
# per call, their ratios (this build / BASE), and the load.
#   bench/logcost.sh
# Environment: BASE, ROUNDS (5), N (calls per measure, 1000), PG (a
# PostgreSQL server on loopback, default the test one; PG= skips it).
set -euo pipefail
cd "$(dirname "$0")/.."
BASE=${BASE:-224a26a}
ROUNDS=${ROUNDS:-5}
N=${N:-1000}
PG=${PG-postgres://postgres@127.0.0.1:5432/test?sslmode=disable}
case "$PG" in ""|postgres://*@127.0.0.1[:/]*) ;; *) echo "PG must be on 127.0.0.1" >&2; exit 2 ;; esac
scratch=$(mktemp -d "${TMPDIR:-/tmp}/retrieve-logcost-XXXXXX")
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; [ "${KEEP:-}" = 1 ] || rm -rf "$scratch"; }
trap cleanup EXIT
go build -o "$scratch/now" ./cmd/retrieve
mkdir "$scratch/base-src"
git archive "$BASE" | tar -x -C "$scratch/base-src"
(cd "$scratch/base-src" && go build -o "$scratch/base" ./cmd/retrieve)
shared=${SHARED_BENCH:-$(cd "$(git rev-parse --git-common-dir)/../.." && pwd)/shared/bench}
go build -C "$shared/loadgen" -o "$scratch/loadgen" .
go build -C bench/mcpload -o "$scratch/mcpload" .
# call MODE URL N: N calls, one at a time; loadgen's JSON line.
call() {
  if [ "$1" = mcp ]; then
    "$scratch/mcpload" -url "$2/mcp" -c 1 -n "$3" -args '{"target":"f%d.txt","lines":"1-20"}'
  else
    "$scratch/loadgen" -url "$2/v1/retrieve" -c 1 -n "$3" -body '{"target":"f%d.txt","lines":"1-20"}'
  fi
}
files="$scratch/files"
mkdir -p "$files"
python3 - "$files" <<'PY'
import sys
for i in range(1000):
    with open(f"{sys.argv[1]}/f{i}.txt", "w") as f:
        for l in range(1, 41): f.write(f"line {l} of file {i}, a small text file for the log's bench.\n")
PY
(cd "$files" && git init -q && git add -A && git -c user.email=b@b -c user.name=b commit -qm files)
stores="sqlite"
[ -n "$PG" ] && stores="sqlite pg"
port=9930
declare -A url pid
for v in base now; do
  for st in $stores; do
    ws="$scratch/ws-$v-$st"
    cp -r "$files" "$ws"
    store=""
    if [ "$st" = pg ]; then
      db="retrieve_logcost_$v"
      PGOPTIONS=--client-min-messages=warning psql -q "$PG" -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >/dev/null
      store=$(echo "$PG" | sed "s#/[^/?]*?#/$db?#")
    fi
    port=$((port + 1))
    RETRIEVE_STORE=$store "$scratch/$v" --root "$ws" serve --http "127.0.0.1:$port" >"$scratch/serve-$v-$st.log" 2>&1 &
    pids+=($!)
    pid[$v-$st]=$!
    url[$v-$st]="http://127.0.0.1:$port"
  done
done
sleep 2
for k in "${!url[@]}"; do   # warm up: the store exists, the files are read once
  call http "${url[$k]}" 1000 >/dev/null
  call mcp "${url[$k]}" 50 >/dev/null
done
cputicks() { awk '{print $14+$15}' "/proc/$1/stat"; }
tck=$(getconf CLK_TCK)
out="$scratch/results"
: > "$out"
for r in $(seq "$ROUNDS"); do
  for mode in http mcp; do
    for st in $stores; do
      for v in base now; do
        k=$v-$st
        before=$(cputicks "${pid[$k]}")
        res=$(call "$mode" "${url[$k]}" "$N")
        after=$(cputicks "${pid[$k]}")
        echo "$mode $st $v $(python3 -c 'import json,sys; d=json.loads(sys.argv[1]); print(d["p50_ms"], (int(sys.argv[3])-int(sys.argv[2]))*1e6/int(sys.argv[4])/d["n"], d["errors"] + d["non2xx"])' "$res" "$before" "$after" "$tck") $(cut -d' ' -f1 /proc/loadavg)" >> "$out"
      done
    done
  done
done
python3 - "$out" "$BASE" <<'PY'
import sys, statistics
rows = [l.split() for l in open(sys.argv[1])]
print("rounds (mode store build: p50 ms, server cpu us/call, load):")
for mode in ("http", "mcp"):
    for st in ("sqlite", "pg"):
        for v in ("base", "now"):
            got = [r for r in rows if r[0] == mode and r[1] == st and r[2] == v]
            if got:
                print(f"  {mode:4} {st:6} {v:4}: " + "  ".join(f"{float(r[3]):.3f}/{float(r[4]):.0f}@{float(r[6]):.0f}" for r in got))
print(f"the log's cost on a recorded small read: this build / {sys.argv[2]} (before the log), medians of rounds")
for mode in ("http", "mcp"):
    for st in ("sqlite", "pg"):
        got = {v: [r for r in rows if r[0] == mode and r[1] == st and r[2] == v] for v in ("base", "now")}
        if not got["base"]:
            continue
        p50 = {v: statistics.median(float(r[3]) for r in got[v]) for v in got}
        cpu = {v: statistics.median(float(r[4]) for r in got[v]) for v in got}
        errs = sum(int(r[5]) for v in got for r in got[v])
        loads = [float(r[6]) for v in got for r in got[v]]
        print(f"RATIO {mode:4} {st:6} p50 {p50['now']:.3f} / {p50['base']:.3f} ms = {p50['now']/p50['base']:.2f}x (target <= 1.10)"
              f"  server cpu {cpu['now']:.0f} / {cpu['base']:.0f} us/call = {cpu['now']/cpu['base']:.2f}x  errors {errs}  load {min(loads):.1f}-{max(loads):.1f}")
PY
