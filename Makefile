.PHONY: build test lint bench bench-pdf bench-peers fuzz fuzz-all ci dist dist-pack dist-current dist-cross dist-darwin dist-docker

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

# A snapshot unless HEAD has a tag: then the tag is the version.
SNAPSHOT = $(if $(shell git describe --tags --exact-match 2>/dev/null),,--snapshot)

# Release artifacts under dist/: archives for linux, macOS and Windows on
# amd64 and arm64, checksums.txt, the Homebrew formula and the Scoop manifest
# (nothing is published), the npm packages (dist/npm/*.tgz) and the
# container's binaries (dist/docker/, for the Dockerfile). A version comes
# from the git tag; without one on HEAD it is a snapshot.
# It packs binaries already built and run on machines that can run them
# (no C cross compiler reaches all six): RETRIEVE_PREBUILT names a folder
# with <goos>_<goarch>/retrieve[.exe] for all six targets, from make
# dist-cross (linux, windows) and make dist-darwin (macOS), as the release
# workflow does; test/dist/prebuilt.sh checks each was built with this
# configuration and version. docs/install.md.
dist: dist-pack
	node npm/build.mjs dist
	$(MAKE) dist-docker

# make dist's GoReleaser run alone: archives, checksums, formula and
# manifest of the binaries in RETRIEVE_PREBUILT. PACK_FLAGS adds GoReleaser
# flags (test/dist/check.sh packs this machine's binary again with it).
dist-pack:
	@[ -n "$$RETRIEVE_PREBUILT" ] || { echo "make dist packs prebuilt binaries: set RETRIEVE_PREBUILT to a folder with the six <goos>_<goarch>/retrieve[.exe] of make dist-cross and make dist-darwin (docs/install.md)"; exit 1; }
	@# --clean empties dist/, where make dist-cross collects: pack from a copy.
	pre=$$(mktemp -d) && cp -R "$$RETRIEVE_PREBUILT"/. "$$pre"/ && \
	RETRIEVE_PREBUILT="$$pre" $(GORELEASER) release --clean $(SNAPSHOT) $(PACK_FLAGS); \
	rc=$$?; rm -rf "$$pre"; exit $$rc

# Only this machine's platform (what CI checks): its binary, archive and
# checksum, the main npm package and this platform's, the container binary.
# The Homebrew formula and Scoop manifest need the macOS and Windows
# archives: make dist writes them. It is built with this machine's C
# compiler (RETRIEVE_CC).
dist-current:
	RETRIEVE_TARGETS="$$(go env GOOS)_$$(go env GOARCH)" RETRIEVE_CC="$$(go env CC)" $(GORELEASER) release --clean --snapshot --skip=homebrew,scoop
	node npm/build.mjs dist --current
	$(MAKE) dist-docker

# The linux and windows binaries, built on a linux/amd64 machine with
# Debian's (or Ubuntu's) cross compilers and run there: linux/arm64 under
# qemu-user, windows/amd64 under wine; windows/arm64 (pure Go) has its
# format and build settings checked, and runs on a Windows arm64 runner.
# Needs: apt-get install gcc-aarch64-linux-gnu gcc-mingw-w64-x86-64
# qemu-user-static wine64. The binaries are collected in dist/prebuilt/.
dist-cross:
	RETRIEVE_TARGETS="linux_amd64 linux_arm64 windows_amd64 windows_arm64" $(GORELEASER) build --clean $(SNAPSHOT)
	bash test/dist/prebuilt.sh collect dist/prebuilt
	bash test/dist/cross.sh dist/prebuilt linux_amd64 linux_arm64 windows_amd64 windows_arm64:file

# The macOS binaries, on a Mac (the native clang and its SDK): built, and
# run (darwin/amd64 under Rosetta on an arm64 Mac). Collected in
# dist/prebuilt/.
dist-darwin:
	RETRIEVE_TARGETS="darwin_amd64 darwin_arm64" $(GORELEASER) build --clean $(SNAPSHOT)
	bash test/dist/prebuilt.sh collect dist/prebuilt
	bash test/dist/cross.sh dist/prebuilt darwin_arm64 darwin_amd64

dist-docker:
	@for arch in amd64 arm64; do \
	  src=$$(ls dist/linux-$${arch}_linux_$${arch}*/retrieve 2>/dev/null | head -1); \
	  if [ -n "$$src" ]; then mkdir -p dist/docker/linux_$$arch && cp $$src dist/docker/linux_$$arch/retrieve; fi; \
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
