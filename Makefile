.PHONY: build test lint bench fuzz ci

build:
	go build -o bin/retrieve ./cmd/retrieve

test:
	go test ./...

lint:
	go vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (gofmt -l $$(git ls-files '*.go'); exit 1)

bench:
	go test -run '^$$' -bench . -benchmem ./...

fuzz:
	go test -run '^$$' -fuzz FuzzReferenceRoundTrip -fuzztime 30s .
	go test -run '^$$' -fuzz FuzzParseRanges -fuzztime 30s ./extract
	go test -run '^$$' -fuzz FuzzSections -fuzztime 30s ./extract
	go test -run '^$$' -fuzz FuzzLines -fuzztime 30s ./extract

ci:
	CI=true bash .ci/run
