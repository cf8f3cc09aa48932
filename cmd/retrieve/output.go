package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"go.yaml.in/yaml/v3"
)

// writeJSON writes v as indented JSON without HTML escaping.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// writeJSONLine writes v as one line of JSON (JSON lines).
func writeJSONLine(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// writeYAML writes v as YAML with two-space indentation. v goes through
// its JSON encoding first, so that every command's YAML has exactly the
// keys (and key order) of its JSON: Go types without yaml tags would
// otherwise show lower-cased field names (docid, nodesadded).
func writeYAML(w io.Writer, v any) error {
	j, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode yaml: %w", err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(j, &doc); err != nil {
		return fmt.Errorf("encode yaml: %w", err)
	}
	plainStyle(&doc)
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return fmt.Errorf("encode yaml: %w", err)
	}
	if err := enc.Close(); err != nil {
		return fmt.Errorf("encode yaml: %w", err)
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// plainStyle drops the JSON quoting and flow style of a decoded document,
// so that the encoder chooses YAML's own (plain scalars, literal blocks for
// text, block collections); strings that would read as another type stay
// quoted.
func plainStyle(n *yaml.Node) {
	n.Style = 0
	if n.Kind == yaml.ScalarNode && n.Tag == "!!str" {
		switch strings.ToLower(n.Value) {
		case "y", "yes", "n", "no", "on", "off":
			// YAML 1.1 readers take these for booleans.
			n.Style = yaml.DoubleQuotedStyle
		}
	}
	for _, c := range n.Content {
		plainStyle(c)
	}
}

// writeResult writes a result in the format the global flags ask for.
func writeResult(w io.Writer, g *globalOptions, v any) error {
	if g.JSON {
		return writeJSON(w, v)
	}
	return writeYAML(w, v)
}
