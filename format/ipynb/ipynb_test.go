package ipynb_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve/format"
	"github.com/retrieve-dev/retrieve/format/formattest"
	"github.com/retrieve-dev/retrieve/format/ipynb"
)

// notebook builds an nbformat 4 notebook of cells.
func notebook(cells ...map[string]any) []byte {
	b, _ := json.Marshal(map[string]any{
		"nbformat": 4, "nbformat_minor": 5, "cells": cells,
		"metadata": map[string]any{"language_info": map[string]any{"name": "python"}},
	})
	return b
}

func md(src ...string) map[string]any {
	return map[string]any{"cell_type": "markdown", "metadata": map[string]any{}, "source": src}
}

func code(src string, outputs ...map[string]any) map[string]any {
	return map[string]any{"cell_type": "code", "metadata": map[string]any{}, "source": src, "outputs": outputs, "execution_count": 1}
}

var png = base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{0x89, 'P', 'N', 'G'}, 3000))

var sample = notebook(
	md("# Analysis\n", "\n", "We load the data first."),
	code("import pandas as pd\nprint('rows loaded')", map[string]any{"output_type": "stream", "name": "stdout", "text": []string{"rows loaded\n"}}),
	md("## Plot\n", "The plot shows the trend clearly."),
	code("df.plot()", map[string]any{"output_type": "display_data", "data": map[string]any{"image/png": png, "text/plain": "<Figure size 640x480>"}}),
	md("# Appendix\n", "Nothing more to say here."),
)

func TestFormat(t *testing.T) {
	var cells []map[string]any
	for i := 0; len(cells) < 4800; i++ {
		cells = append(cells, md(fmt.Sprintf("## Step %d\n", i), "Some prose that explains the step in a sentence or two, long enough to weigh on the scale of a mebibyte: the sample must pass one mebibyte with fewer cells than the ten thousand parts a document may have, so each cell carries some words."),
			code(fmt.Sprintf("x%d = compute(%d)\nprint(x%d)", i, i, i), map[string]any{"output_type": "execute_result", "data": map[string]any{"text/plain": fmt.Sprint(i * i)}}))
	}
	large := notebook(cells...)
	if len(large) < 1<<20 {
		t.Fatalf("large sample is %d bytes", len(large))
	}
	formattest.Run(t, ipynb.New(), []formattest.Sample{
		{Name: "analysis.ipynb", Data: sample, Phrase: "The plot shows the trend clearly."},
		{Name: "large.ipynb", Data: large, Phrase: "x7 = compute(7)", Large: true},
	})
}

func TestRender(t *testing.T) {
	txt, err := ipynb.New().Extract(context.Background(), bytes.NewReader(sample), int64(len(sample)), format.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(txt.Parts) != 5 || txt.Parts[3].Fragment != "cell=4" {
		t.Fatalf("parts %+v, want 5 cells, the fourth cell=4", txt.Parts)
	}
	cell2 := txt.Text[txt.Parts[1].Start:txt.Parts[1].End]
	if want := "```python\nimport pandas as pd\nprint('rows loaded')\n```\n\nOutput (stdout):\n```text\nrows loaded\n```\n\n"; cell2 != want {
		t.Errorf("cell 2: got %q, want %q", cell2, want)
	}
	cell4 := txt.Text[txt.Parts[3].Start:txt.Parts[3].End]
	if !strings.Contains(cell4, "[image/png output, 12 KB]") || strings.Contains(cell4, png[:40]) {
		t.Errorf("cell 4: the image is not summarised: %q", cell4)
	}
	var got []string
	for _, s := range txt.Sections {
		got = append(got, fmt.Sprintf("%s:%d:%s", s.Title, s.Level, strings.SplitN(txt.Text[s.Start:s.End], "\n", 2)[0]))
	}
	if want := "Analysis:1:# Analysis|Plot:2:## Plot|Appendix:1:# Appendix"; strings.Join(got, "|") != want {
		t.Errorf("sections %q, want %q", strings.Join(got, "|"), want)
	}
	if s := txt.Sections[0]; txt.Text[s.Start:s.End] != txt.Text[:txt.Parts[4].Start] {
		t.Errorf("section Analysis should span cells 1-4: %q", txt.Text[s.Start:s.End])
	}
}

func FuzzExtract(f *testing.F) {
	formattest.Fuzz(f, ipynb.New(), sample, []byte(`{"nbformat":4,"cells":[{"cell_type":"code","source":1}]}`), []byte(`{"nbformat":3,"cells":[]}`))
}
