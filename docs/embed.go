// Package docs embeds the machine-readable documents of the project, so that
// tests and servers use the very files that are published.
package docs

import _ "embed"

// ResultSchema is the JSON Schema (2020-12) of a retrieval result.
//
//go:embed result.schema.json
var ResultSchema []byte

// OpenAPI is the OpenAPI 3.1 document of the HTTP JSON API, generated from
// the ops table (go test ./httpapi -run TestOpenAPI -update).
//
//go:embed openapi.yaml
var OpenAPI []byte
