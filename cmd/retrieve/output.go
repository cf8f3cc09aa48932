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
	doc, err := jsonNode(j)
	if err != nil {
		return fmt.Errorf("encode yaml: %w", err)
	}
	plainStyle(doc)
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("encode yaml: %w", err)
	}
	if err := enc.Close(); err != nil {
		return fmt.Errorf("encode yaml: %w", err)
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// jsonNode is the YAML document of the JSON text j, the node tree
// yaml.Unmarshal of j gives (TestJSONNodeAsYAMLDecodes) without the YAML
// parser, whose buffers and scanner cost a cold start more than the rest of
// the output. Strings keep their !!str tag, so that the encoder quotes those
// that would read as another type; other scalars have none (the encoder
// drops a tag that matches the value's own anyway).
func jsonNode(j []byte) (*yaml.Node, error) {
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.UseNumber()
	n, err := jsonValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("JSON text goes on after its value")
	}
	return &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{n}}, nil
}

// jsonValue reads the next JSON value of dec as a YAML node.
func jsonValue(dec *json.Decoder) (*yaml.Node, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		if t == '{' {
			n = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		}
		for dec.More() {
			if n.Kind == yaml.MappingNode {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				key, _ := k.(string)
				n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key})
			}
			v, err := jsonValue(dec)
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, v)
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return nil, err
		}
		return n, nil
	case string:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: t}, nil
	case json.Number:
		return &yaml.Node{Kind: yaml.ScalarNode, Value: t.String()}, nil
	case bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Value: fmt.Sprint(t)}, nil
	default: // nil: JSON's null
		return &yaml.Node{Kind: yaml.ScalarNode, Value: "null"}, nil
	}
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
