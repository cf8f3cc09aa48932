package ui_test

import (
	"net/http"
	"strings"
	"testing"
)

// Without a log (a store that keeps none) the ledger page has no log panel
// and /ui/export says why.
func TestExportWithoutLog(t *testing.T) {
	e := newEnv(t)
	e.retrieveID(t, "README.md", nil)
	code, _, body := e.get(t, "/ui/export?op=get")
	if code != http.StatusNotFound || !strings.Contains(body, "keeps no tamper-evident log") {
		t.Errorf("export without a log: %d\n%s", code, body)
	}
	if _, _, page := e.get(t, "/ui/ledger"); strings.Contains(page, "log-state") || strings.Contains(page, "/ui/export") {
		t.Error("the ledger page offers a log it does not have")
	}
}
