#!/usr/bin/env bash
# Peak RSS of `retrieve serve` answering one whole-file read, against the
# bytes it returned (issue 18, target 6: RSS ≤ 3× the returned bytes).
# Not a timed test: it reads VmHWM from /proc/PID/status once the reply is
# in, before the server exits, and prints the ratios.
#
#   bash bench/rss.sh [BIN...]          # default: a fresh build of ./cmd/retrieve
#   MODE=v1 MIB=200 bash bench/rss.sh /tmp/old /tmp/new
#
# MODE: stdio (MCP over `serve --stdio`, the default), v1 (`POST /v1/retrieve`
# on `serve --http 127.0.0.1:PORT`) or mcp-http (MCP streamable HTTP at /mcp
# on the same). MIB: size of the file (default 200). BUDGET: --max-budget
# and the call's budget (default 4×MIB MiB: over MCP the data travels twice,
# in the text block and in structuredContent, escaped). With a smaller budget
# the reply is the first part of the file: data_bytes prints "part" and the
# ratio is against the message. RECORD=1 records the call in the ledger
# (default no_record). PEER=1 adds the official Node filesystem MCP server
# (bench/package.json; npm ci in bench/) reading the same file whole. Traffic stays on this machine: stdio, or 127.0.0.1.
set -euo pipefail

MIB=${MIB:-200}
BUDGET=${BUDGET:-$((MIB * 4 * 1048576))}
RECORD=${RECORD:-0}
MODE=${MODE:-stdio}
here=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d /tmp/retrieve-rss-XXXXXX)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT

bins=("$@")
if [ ${#bins[@]} -eq 0 ]; then
	(cd "$here" && go build -o "$tmp/retrieve" ./cmd/retrieve)
	bins=("$tmp/retrieve")
fi

mkdir -p "$tmp/ws"
# Text lines with characters JSON escapes (quotes, backslashes, tabs, HTML).
LC_ALL=C awk -v n=$((MIB * 1024 * 1024)) 'BEGIN { s = 0; i = 0; while (s < n) { l = sprintf("line %d \"quoted\" back\\slash\ttab <a&b> héllo", i++); print l; s += length(l) + 1 } }' >"$tmp/ws/big.txt"
size=$(stat -c %s "$tmp/ws/big.txt")
norec=true
[ "$RECORD" = 1 ] && norec=false
args=$(printf '{"target":"big.txt","no_record":%s,"budget":%d,"max_bytes":%d}' "$norec" "$BUDGET" "$size")
init='{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"rss","version":"1"}}}'
initialized='{"jsonrpc":"2.0","method":"notifications/initialized"}'
call='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"retrieve","arguments":'"$args"'}}'

# stdio: the reply is the second line of the server's stdout. Arguments:
# the tools/call line, then the server's command.
run_stdio() {
	local callmsg=$1
	shift
	mkfifo "$tmp/in"
	(cd "$tmp/ws" && exec "$@" <"$tmp/in" >"$tmp/out.raw" 2>"$tmp/err") &
	pid=$!
	exec 3>"$tmp/in"
	printf '%s\n%s\n%s\n' "$init" "$initialized" "$callmsg" >&3
	# complete with its newline (the data's newlines are escaped)
	until [ "$(tail -c 1 "$tmp/out.raw" 2>/dev/null | od -An -c | tr -d ' ')" = '\n' ] && [ "$(wc -l <"$tmp/out.raw")" -ge 2 ]; do
		kill -0 "$pid" 2>/dev/null || { echo "server exited: $(cat "$tmp/err")" >&2; exit 1; }
		sleep 0.2
	done
	hwm=$(awk '/^VmHWM/ {print $2}' /proc/"$pid"/status)
	exec 3>&-
	wait "$pid" || true
	pid=
	tail -n 1 "$tmp/out.raw" >"$tmp/out"
}

# http: serve on a free loopback port, one request with curl, then stop.
run_http() {
	local bin=$1 port
	port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	(cd "$tmp/ws" && exec "$bin" serve --http "127.0.0.1:$port" --max-budget "$BUDGET" >/dev/null 2>"$tmp/err") &
	pid=$!
	until curl -sf "http://127.0.0.1:$port/healthz" >/dev/null; do
		kill -0 "$pid" 2>/dev/null || { echo "server exited: $(cat "$tmp/err")" >&2; exit 1; }
		sleep 0.1
	done
	if [ "$MODE" = v1 ]; then
		curl -sS -o "$tmp/out" -H 'Content-Type: application/json' -d "$args" "http://127.0.0.1:$port/v1/retrieve"
	else
		local h=(-H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream')
		curl -sS -D "$tmp/hdr" -o /dev/null "${h[@]}" -d "$init" "http://127.0.0.1:$port/mcp"
		local sid
		sid=$(awk -F': ' 'tolower($1) == "mcp-session-id" { sub(/\r$/, "", $2); print $2 }' "$tmp/hdr")
		h+=(-H "Mcp-Session-Id: $sid" -H 'MCP-Protocol-Version: 2025-06-18')
		curl -sS -o /dev/null "${h[@]}" -d "$initialized" "http://127.0.0.1:$port/mcp"
		curl -sS -o "$tmp/out" "${h[@]}" -d "$call" "http://127.0.0.1:$port/mcp"
	fi
	hwm=$(awk '/^VmHWM/ {print $2}' /proc/"$pid"/status)
	kill "$pid"
	wait "$pid" || true
	pid=
}

# PEER=1: the official Node filesystem MCP server reading the same file whole
# (read_text_file), over stdio, after the binaries (bench/: npm ci).
if [ "${PEER:-0}" = 1 ]; then
	fs=$here/bench/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js
	[ -f "$fs" ] || { echo "no $fs: run npm ci in bench/" >&2; exit 2; }
fi

printf '%-6s %-32s %12s %12s %12s %9s %9s\n' mode binary data_bytes reply_bytes peak_rss_kib rss/data rss/reply
[ "${PEER:-0}" = 1 ] && bins+=(node-server-filesystem)
for bin in "${bins[@]}"; do
	if [ "$bin" = node-server-filesystem ]; then
		rm -rf "$tmp/in" "$tmp/out" "$tmp/out.raw" "$tmp/err"
		nodecall='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"'"$tmp/ws/big.txt"'"}}}'
		run_stdio "$nodecall" node "$fs" "$tmp/ws"
		reply=$(stat -c %s "$tmp/out")
		awk -v b="$bin" -v d="$size" -v r="$reply" -v h="$hwm" 'BEGIN { printf "%-6s %-32s %12d %12d %12d %9.2f %9.2f\n", "stdio", b, d, r, h, h * 1024 / d, h * 1024 / r }'
		continue
	fi
	rm -rf "$tmp/in" "$tmp/out" "$tmp/out.raw" "$tmp/err" "$tmp/ws/.retrieve"
	case $MODE in
	stdio) run_stdio "$call" "$bin" serve --stdio --max-budget "$BUDGET" --max-message 1048576 ;;
	v1 | mcp-http) run_http "$bin" ;;
	*) echo "MODE is stdio, v1 or mcp-http" >&2; exit 2 ;;
	esac
	reply=$(stat -c %s "$tmp/out")
	# whole or cut: the text block's header line says complete=…, /v1's JSON "complete":…
	head=$(head -c 4000 "$tmp/out")
	tail=$(tail -c 4000 "$tmp/out")
	case "$head$tail" in
	*'complete=true'* | *'"complete":true'*)
		awk -v m="$MODE" -v b="$bin" -v d="$size" -v r="$reply" -v h="$hwm" 'BEGIN { printf "%-6s %-32s %12d %12d %12d %9.2f %9.2f\n", m, b, d, r, h, h * 1024 / d, h * 1024 / r }' ;;
	*'complete=false'* | *'"complete":false'*)
		awk -v m="$MODE" -v b="$bin" -v r="$reply" -v h="$hwm" 'BEGIN { printf "%-6s %-32s %12s %12d %12d %9s %9.2f\n", m, b, "part", r, h, "-", h * 1024 / r }' ;;
	*)
		echo "$bin: no result: ${head:0:400}" >&2
		exit 1 ;;
	esac
done
