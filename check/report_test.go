package check_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve/check"
)

// TestWriteTableCounts: the footer counts in words a reader expects
// ("1 citation", "2 citations").
func TestWriteTableCounts(t *testing.T) {
	for n, want := range map[int]string{1: "answer.md: 1 citation, 1 ok, 0 failed, 0 refused\n", 2: "answer.md: 2 citations, 2 ok, 0 failed, 0 refused\n"} {
		var b bytes.Buffer
		if err := check.WriteTable(&b, &check.Report{Document: "answer.md", Citations: n, OK: n}); err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(b.String(), want) {
			t.Errorf("%d citations: footer of %q, want %q", n, b.String(), want)
		}
	}
}
