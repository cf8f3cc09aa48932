// Package retrieve is the contract and the engine of retrieve: it fetches a
// known thing from a known place and returns the data with a citation that
// can be checked again later (reference, version, sha256 hash, timestamp,
// freshness, what was cut, and how sure we are).
//
// The root package holds the request and result types, the error codes, the
// Source interface and the Engine; sources, extractors, policy, stores and
// servers live in their own packages. See docs/ARCHITECTURE.md.
package retrieve

// Version is the version of retrieve, also sent as the User-Agent.
const Version = "0.1.0-dev"
