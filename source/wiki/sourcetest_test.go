package wiki_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/internal/testws"
	"github.com/retrieve-dev/retrieve/source/sourcetest"
	wikisrc "github.com/retrieve-dev/retrieve/source/wiki"
	"github.com/retrieve-dev/retrieve/wiki"
)

func TestContract(t *testing.T) {
	sourcetest.Run(t, func(t *testing.T) sourcetest.Fixture {
		ws := testws.New(t)
		ws.Write(".env", "TOKEN=wiki-SECRET-1\n")
		w := &wiki.Wiki{Dir: filepath.Join(ws.Root, "wiki")}
		ref, err := w.Write(context.Background(), wiki.WriteInput{Category: "entities", Title: "Payments API", Content: "The payments API takes cards.\n"})
		if err != nil {
			t.Fatal(err)
		}
		return sourcetest.Fixture{
			Source:  wikisrc.New(w),
			Targets: []string{ref.Citation},
			Missing: "wiki:entities/no-such-page", MissingCode: retrieve.CodeNotFound,
			Secret: "wiki-SECRET-1", SecretTargets: []string{"wiki:../.env", "wiki:entities/../../.env", "wiki:.env"},
		}
	})
}
