package web_test

import (
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve"
)

// TestJSONAnchorsAreTargets: JSON read from the web is anchored by targets
// that give the same data again — the URL for its text, the select form
// for parsed data and selections — never by a text fragment of the body
// (issue 28): every anchor re-retrieves to the citation's hash.
func TestJSONAnchorsAreTargets(t *testing.T) {
	srv, _ := server(t)
	eng := newEngine(t, nil, 0)
	for _, req := range []retrieve.Request{
		{Target: srv.URL + "/data.json"},
		{Target: srv.URL + "/data.json", Format: "json"},
		{Target: srv.URL + "/data.json", Constraints: retrieve.Constraints{Select: ".a.b[1:]"}},
	} {
		res, err := get(t, eng, req)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.EvidenceAnchors) != 1 {
			t.Fatalf("%+v: anchors %v, want one", req, res.EvidenceAnchors)
		}
		for _, a := range res.EvidenceAnchors {
			if strings.Contains(a, "#:~:text=") {
				t.Errorf("%+v: anchor %s is a text fragment of the JSON body", req, a)
			}
			again, err := get(t, eng, retrieve.Request{Target: a})
			if err != nil || *again.Citation.Hash != *res.Citation.Hash {
				t.Errorf("%+v: anchor %s does not re-retrieve hash %s (%v)", req, a, *res.Citation.Hash, err)
			}
		}
	}
}
