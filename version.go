// Package retrieve is the contract of retrieve, which fetches a known thing
// from a known place and returns the data with a citation that can be
// checked again later (reference, version, sha256 hash, timestamp,
// freshness, what was cut, and how sure we are).
//
// The root package holds the request and result types, the citation, the
// error codes, references, the Source interfaces, Document and the
// Registry: the names every package needs. It sits at the bottom of the
// module and imports none of it but two leaves; the pipeline is the package
// engine (engine.New), and sources, extractors, policy, stores and servers
// live in their own packages. See docs/ARCHITECTURE.md.
package retrieve

import (
	"runtime"
	"runtime/debug"
	"strings"
)

// Set at link time by release builds (make dist, .goreleaser.yaml):
//
//	-X github.com/retrieve-dev/retrieve.version=1.2.3
//	-X github.com/retrieve-dev/retrieve.commit=<sha>
//	-X github.com/retrieve-dev/retrieve.date=<RFC 3339>
//
// Left empty, they come from the module version and the VCS stamp Go
// records in the binary (debug.ReadBuildInfo).
var version, commit, date string

// BuildInfo says which retrieve this is.
type BuildInfo struct {
	// Version is the release version without its "v" (1.2.3), the module
	// version of `go install …@v1.2.3`, a pseudo-version of a build in a
	// clone (0.0.0-20261124090000-abcdef123456), or "devel" when Go
	// recorded none.
	Version string `json:"version"`
	// Commit is the VCS revision, "unknown" when the build has no stamp.
	Commit string `json:"commit"`
	// Date is when the build or its commit was made (RFC 3339), "unknown"
	// without a stamp.
	Date string `json:"date"`
	// Dirty is set when the work tree had uncommitted changes.
	Dirty bool `json:"dirty"`
	// Go is the Go version the binary was built with.
	Go string `json:"go"`
	// Platform is GOOS/GOARCH.
	Platform string `json:"platform"`
}

// String is the one-line form `retrieve version` prints:
// "1.2.3 (commit abc1234, built 2026-11-24T09:00:00Z, go1.26.8 linux/amd64)".
func (b BuildInfo) String() string {
	c := b.Commit
	if len(c) > 12 {
		c = c[:12]
	}
	if b.Dirty {
		c += ", dirty"
	}
	return b.Version + " (commit " + c + ", built " + b.Date + ", " + b.Go + " " + b.Platform + ")"
}

// Build returns the build information of this binary.
func Build() BuildInfo { return build }

var build = readBuild(version, commit, date, debug.ReadBuildInfo)

// Version is the version of retrieve (BuildInfo.Version), also sent in the
// User-Agent and reported as the MCP serverInfo.version and by /healthz.
var Version = build.Version

// readBuild merges the link-time values with what Go stamped in the binary.
func readBuild(v, c, d string, read func() (*debug.BuildInfo, bool)) BuildInfo {
	b := BuildInfo{Version: v, Commit: c, Date: d, Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if info, ok := read(); ok {
		if b.Version == "" && info.Main.Version != "" && info.Main.Version != "(devel)" {
			b.Version = info.Main.Version
		}
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				if b.Commit == "" {
					b.Commit = s.Value
				}
			case "vcs.time":
				if b.Date == "" {
					b.Date = s.Value
				}
			case "vcs.modified":
				b.Dirty = s.Value == "true"
			}
		}
		if strings.HasSuffix(b.Version, "+dirty") {
			b.Version = strings.TrimSuffix(b.Version, "+dirty")
			b.Dirty = true
		}
	}
	b.Version = strings.TrimPrefix(b.Version, "v")
	if b.Version == "" {
		b.Version = "devel"
	}
	if b.Commit == "" {
		b.Commit = "unknown"
	}
	if b.Date == "" {
		b.Date = "unknown"
	}
	return b
}
