.PHONY: build test lint bench bench-pdf bench-peers fuzz fuzz-all ci dist dist-current dist-docker

# As the release builds it (.goreleaser.yaml): cgo (tree-sitter's C runtime
# outlines nine languages: a C compiler is needed), no symbol table or DWARF
# (-s -w). Without cgo the binary builds too, and outlines Go only.
build:
	go build -trimpath -ldflags "-s -w" -tags "netgo osusergo" -o bin/retrieve ./cmd/retrieve

# GoReleaser, pinned in tools/go.mod (a separate module: its dependency graph
# stays out of retrieve's go.mod).
# In a clone without a remote (GoReleaser then reads no commit at all), the
# project's URL is given through git's environment; the clone is not changed.
GORELEASER := $(if $(shell git remote 2>/dev/null),,GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=remote.origin.url GIT_CONFIG_VALUE_0=https://github.com/retrieve-dev/retrieve.git) go tool -modfile=tools/go.mod goreleaser

# Release artifacts under dist/: archives for linux, macOS and Windows on
# amd64 and arm64, checksums.txt, the Homebrew formula and the Scoop manifest
# (nothing is published), the npm packages (dist/npm/*.tgz) and the
# container's binaries (dist/docker/, for the Dockerfile). A version comes
# from the git tag; without one on HEAD it is a snapshot.
dist:
	$(GORELEASER) release --clean $(if $(shell git describe --tags --exact-match 2>/dev/null),,--snapshot)
	node npm/build.mjs dist
	$(MAKE) dist-docker

# Only this machine's platform (what CI checks): its binary, archive and
# checksum, the main npm package and this platform's, the container binary.
# The Homebrew formula and Scoop manifest need the macOS and Windows
# archives: make dist writes them. It is built with this machine's C
# compiler (RETRIEVE_CC: no zig needed).
dist-current:
	@cfg=$$(mktemp --suffix=.yaml) && \
	sed -e "s/goos: \[linux, darwin, windows\]/goos: [$$(go env GOOS)]/" \
	    -e "s/goarch: \[amd64, arm64\]/goarch: [$$(go env GOARCH)]/" .goreleaser.yaml > $$cfg && \
	RETRIEVE_CC="$$(go env CC)" $(GORELEASER) release --clean --snapshot --skip=homebrew,scoop --config $$cfg; \
	rc=$$?; rm -f $$cfg; exit $$rc
	node npm/build.mjs dist --current
	$(MAKE) dist-docker

dist-docker:
	@for arch in amd64 arm64; do \
	  src=$$(ls -d dist/retrieve_linux_$${arch}*/ 2>/dev/null | head -1); \
	  if [ -n "$$src" ]; then mkdir -p dist/docker/linux_$$arch && cp $$src/retrieve dist/docker/linux_$$arch/retrieve; fi; \
	done

test:
	go test ./...

# go vet, gofmt, staticcheck (pinned in tools/go.mod, like GoReleaser) and
# the cyclomatic ceiling of 30 (internal/lint: split a function past it into
# named steps; lexers and generated tables are on its allow-list).
lint:
	go vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (gofmt -l $$(git ls-files '*.go'); exit 1)
	go tool -modfile=tools/go.mod staticcheck ./...
	go test -count=1 -run 'TestCyclomatic' ./internal/lint/

bench:
	go test -run '^$$' -bench . -benchmem ./...

# The PDF extractor against pdftotext on a fetched corpus (docs/documents.md).
bench-pdf:
	bench/pdfcorpus.sh

# Ours against the peers (openssl, rg, the Node MCP filesystem server), with ratios.
bench-peers:
	bench/peers.sh

fuzz:
	go test -run '^$$' -fuzz FuzzReferenceRoundTrip -fuzztime 30s .
	go test -run '^$$' -fuzz FuzzParseRanges -fuzztime 30s ./extract
	go test -run '^$$' -fuzz FuzzSections -fuzztime 30s ./extract
	go test -run '^$$' -fuzz FuzzLines -fuzztime 30s ./extract
	go test -run '^$$' -fuzz FuzzExtract -fuzztime 30s ./format/pdf

# Every fuzz target of the module, 60 s each (FUZZTIME=10s for less);
# docs/SECURITY.md.
fuzz-all:
	tools/fuzz-all.sh $(or $(FUZZTIME),60s)

ci:
	CI=true bash .ci/run
