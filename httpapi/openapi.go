package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/ops"
	"go.yaml.in/yaml/v3"
)

// errorSchema is the body of every failure without a result envelope.
const errorSchema = `{
  "type": "object",
  "required": ["error"],
  "properties": {"error": {"type": "object", "required": ["code", "message", "hint", "alternatives"],
    "properties": {"code": {"type": "string"}, "message": {"type": "string"}, "hint": {"type": "string"}, "alternatives": {"type": "array", "items": {"type": "string"}}}}}
}`

// OpenAPI returns the OpenAPI 3.1 document of the API t generates, as YAML.
// docs/openapi.yaml is this document; a test keeps them equal.
func OpenAPI(t *ops.Table) ([]byte, error) {
	paths := map[string]any{}
	schemas := map[string]any{"Error": raw(errorSchema)}
	for _, op := range t.Ops() {
		in, out := op.Name+"Input", op.Name+"Output"
		schemas[in] = raw(string(op.Input))
		schemas[out] = raw(string(op.Output))
		failure := map[string]any{"anyOf": []any{ref(out), ref("Error")}}
		responses := map[string]any{
			"200":     map[string]any{"description": "The operation's output.", "content": jsonContent(ref(out))},
			"default": map[string]any{"description": "A failure: the result envelope with error set (result ops), or {error}. The status comes from the error code (see docs/servers.md).", "content": jsonContent(failure)},
		}
		o := map[string]any{
			"operationId": op.Name,
			"summary":     op.Title,
			"description": op.Description,
			"responses":   responses,
			"security":    []any{map[string]any{}, map[string]any{"bearer": []any{}}},
		}
		if op.Method == http.MethodGet {
			var params []any
			types := fieldTypes(op.Input)
			names := make([]string, 0, len(types))
			for k := range types {
				names = append(names, k)
			}
			sort.Strings(names)
			for _, k := range names {
				params = append(params, map[string]any{"name": k, "in": "query", "schema": map[string]any{"$ref": "#/components/schemas/" + in + "/properties/" + k}})
			}
			o["parameters"] = params
		} else {
			o["requestBody"] = map[string]any{"required": true, "content": jsonContent(ref(in))}
		}
		paths["/v1/"+op.Name] = map[string]any{lower(op.Method): o}
		for _, alias := range op.Aliases {
			// A former name: the same operation, deprecated.
			d := map[string]any{}
			for k, v := range o {
				d[k] = v
			}
			d["operationId"], d["deprecated"] = alias, true
			d["description"] = "Former name of " + op.Name + "."
			paths["/v1/"+alias] = map[string]any{lower(op.Method): d}
		}
	}
	text := map[string]any{"text/plain": map[string]any{"schema": map[string]any{"type": "string"}}}
	str := map[string]any{"type": "string"}
	health := map[string]any{"type": "object", "required": []any{"status", "version", "commit", "date"},
		"properties": map[string]any{"status": map[string]any{"const": "ok"}, "version": str, "commit": str, "date": str}}
	paths["/healthz"] = map[string]any{"get": map[string]any{"operationId": "healthz", "summary": "Liveness and the build (version, commit, date)", "security": []any{}, "responses": map[string]any{"200": map[string]any{"description": "The process serves.", "content": jsonContent(health)}}}}
	paths["/readyz"] = map[string]any{"get": map[string]any{"operationId": "readyz", "summary": "Readiness (503 while draining)", "security": []any{}, "responses": map[string]any{"200": map[string]any{"description": "Ready.", "content": text}, "503": map[string]any{"description": "Draining.", "content": text}}}}
	paths["/metrics"] = map[string]any{"get": map[string]any{"operationId": "metrics", "summary": "Prometheus metrics", "responses": map[string]any{"200": map[string]any{"description": "Prometheus text format 0.0.4.", "content": text}}}}
	var codes []string
	for _, c := range retrieve.Codes {
		codes = append(codes, fmt.Sprintf("%s=%d", c, Status(c)))
	}
	doc := map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{
			"title":       "retrieve HTTP JSON API",
			"version":     "1",
			"description": "Every operation of the MCP server, as JSON over HTTP. Generated from the ops table; do not edit (go test ./httpapi -run TestOpenAPI -update). Error statuses: " + fmt.Sprint(codes),
		},
		"jsonSchemaDialect": "https://json-schema.org/draft/2020-12/schema",
		"servers":           []any{map[string]any{"url": "http://127.0.0.1:8765"}},
		"paths":             paths,
		"components": map[string]any{
			"schemas":         schemas,
			"securitySchemes": map[string]any{"bearer": map[string]any{"type": "http", "scheme": "bearer", "description": "Required when the server has a token (RETRIEVE_TOKEN), always when it binds a non-loopback address."}},
		},
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("encode openapi: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("encode openapi: %w", err)
	}
	return buf.Bytes(), nil
}

func raw(s string) any {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		panic("openapi: bad schema: " + err.Error())
	}
	return v
}

func ref(name string) any { return map[string]any{"$ref": "#/components/schemas/" + name} }

func jsonContent(schema any) any {
	return map[string]any{"application/json": map[string]any{"schema": schema}}
}

func lower(m string) string {
	b := []byte(m)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 32
		}
	}
	return string(b)
}
