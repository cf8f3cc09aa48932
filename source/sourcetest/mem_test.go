package sourcetest_test

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/source/sourcetest"
)

// memSource is a toy source of a new scheme, mem://<folder>/<name>, over
// notes held in memory. It proves what adding a source takes: this file and
// the one line that registers it (Fixture.Source below; in the CLI, one line
// of source/sources.New). The engine routes mem:// to it by its Schemes, and
// cites, hashes and checks it like any other.
type memSource struct{ notes map[string]string }

func (s *memSource) Kind() string      { return "mem" }
func (s *memSource) Schemes() []string { return []string{"mem"} }

func (s *memSource) Fetch(ctx context.Context, req *retrieve.Request) (*retrieve.Document, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	name := strings.TrimPrefix(req.Target, "mem://")
	if strings.HasPrefix(name, "secret/") {
		return nil, retrieve.Errorf(retrieve.CodeSensitivePath, "%s is a secret note", req.Target).
			WithHint("secret notes are never read")
	}
	text, ok := s.notes[name]
	if !ok {
		return nil, retrieve.Errorf(retrieve.CodePathNotFound, "no note %s", req.Target).
			WithHint("the notes are mem://notes/a and mem://notes/b")
	}
	return &retrieve.Document{
		Body: io.NopCloser(strings.NewReader(text)), Size: int64(len(text)),
		Name: name + ".md", Locator: req.Target, Label: "mem:" + name,
	}, nil
}

func TestMemToySource(t *testing.T) {
	sourcetest.Run(t, func(t *testing.T) sourcetest.Fixture {
		src := &memSource{notes: map[string]string{
			"notes/a": "# A\n\nfirst note\n", "notes/b": "plain text\n", "secret/token": "tok-SECRET-42\n",
		}}
		return sourcetest.Fixture{
			Source:  src,
			Targets: []string{"mem://notes/a", "mem://notes/b"},
			Missing: "mem://notes/zzz", MissingCode: retrieve.CodePathNotFound,
			Secret: "tok-SECRET-42", SecretTargets: []string{"mem://secret/token"},
		}
	})
}
