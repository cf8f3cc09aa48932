.PHONY: build test lint bench bench-peers fuzz ci

# The tree-sitter grammars retrieve parses (extract/code): without these tags
# the grammars package embeds all 206 of its grammars (docs/ARCHITECTURE.md).
GRAMMAR_TAGS := grammar_subset grammar_subset_typescript grammar_subset_tsx grammar_subset_javascript grammar_subset_python grammar_subset_java grammar_subset_rust grammar_subset_c grammar_subset_cpp grammar_subset_c_sharp grammar_subset_ruby

build:
	CGO_ENABLED=0 go build -trimpath -tags "$(GRAMMAR_TAGS)" -o bin/retrieve ./cmd/retrieve

test:
	go test ./...

lint:
	go vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (gofmt -l $$(git ls-files '*.go'); exit 1)

bench:
	go test -run '^$$' -bench . -benchmem ./...

# Ours against the peers (openssl, rg, the Node MCP filesystem server), with ratios.
bench-peers:
	bench/peers.sh

fuzz:
	go test -run '^$$' -fuzz FuzzReferenceRoundTrip -fuzztime 30s .
	go test -run '^$$' -fuzz FuzzParseRanges -fuzztime 30s ./extract
	go test -run '^$$' -fuzz FuzzSections -fuzztime 30s ./extract
	go test -run '^$$' -fuzz FuzzLines -fuzztime 30s ./extract

ci:
	CI=true bash .ci/run
