package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/ops"
)

// readable is how results print on a terminal without --json or --yaml, in
// the conventions of gh and kubectl: what was asked for first (the data),
// framed by a short citation header and, when the data was cut, the next
// part; the full envelope comes with --yaml or --json (and always when the
// output is piped).
func readable(io *Streams, g *globalOptions) bool {
	return io.OutTTY && !g.JSON && !g.YAML
}

// writeReadable writes a result for a person: a header line with the
// reference, the short hash, the version, the freshness and the confidence,
// the data, then what was cut and the assumptions. Structured data prints
// as YAML; binary data (no text) says how to get it.
func writeReadable(w io.Writer, p palette, res *retrieve.Result) error {
	if res.Error != nil {
		fmt.Fprintf(w, "%s %s: %s\n", p.red("error"), res.Error.Code, res.Error.Message)
		if res.Error.Hint != "" {
			fmt.Fprintf(w, "%s %s\n", p.dim("hint:"), ops.HintFor("cli", res.Error.Hint))
		}
		return nil
	}
	head := []string{p.bold(res.Citation.Reference)}
	if h := res.Citation.Hash; h != nil {
		head = append(head, shortHash(*h))
	}
	if v := res.Citation.Version; v != nil && *v != "" {
		head = append(head, shortHash(*v))
	}
	head = append(head, p.status(string(res.Provenance.Freshness)), fmt.Sprintf("confidence %.2f", res.Confidence))
	fmt.Fprintln(w, p.dim("# ")+strings.Join(head, p.dim(" · ")))
	switch d := res.Retrieved.Data.(type) {
	case nil:
		fmt.Fprintln(w, p.dim("(no text: "+res.Retrieved.Format+" data; --format binary for base64, --json for the whole result)"))
	case string:
		if _, err := io.WriteString(w, d); err != nil {
			return err
		}
		if d != "" && !strings.HasSuffix(d, "\n") {
			fmt.Fprintln(w)
		}
	default:
		if err := writeYAML(w, d); err != nil {
			return err
		}
	}
	if n := res.Extraction.Next; n != nil && *n != "" {
		fmt.Fprintln(w, p.yellow("# cut: the next part is ")+*n)
	}
	for _, a := range res.Assumptions {
		fmt.Fprintln(w, p.dim("# "+a))
	}
	return nil
}

// shortHash keeps a hash or a version readable: "sha256:1a2b3c4d5e6f",
// "git:0123456789ab".
func shortHash(h string) string {
	scheme, hex, ok := strings.Cut(h, ":")
	if !ok || len(hex) <= 12 {
		return h
	}
	return scheme + ":" + hex[:12]
}
