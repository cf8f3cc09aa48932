package ui_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve/memory"
)

// The note page shows the evidence chain with each citation's status now,
// the stale mark with the diff that made it so, and links to a "forget this
// source" dry run, which changes nothing until its box is ticked.
func TestMemoryEvidencePages(t *testing.T) {
	e := newEnv(t)
	w := e.call(t, "memory_write", map[string]any{"memory_type": "semantic", "title": "Greek letters", "content": "alpha comes first.",
		"evidence": []string{"notes.txt:1-2", "README.md:3"}})
	id, _ := w["memory_entry_id"].(string)
	e.WS.Write("notes.txt", "ALPHA\nbeta\ngamma\ndelta\n")
	if _, err := e.Memory.Verify(context.Background(), memory.VerifyInput{By: "test"}); err != nil {
		t.Fatal(err)
	}
	code, _, body := e.get(t, "/ui/memory/note?id="+id)
	if code != http.StatusOK {
		t.Fatalf("status %d: %s", code, body)
	}
	for _, want := range []string{`<span class="badge changed" title="since`, ">stale</span>", "notes.txt:1-2", `<span class="badge changed">changed</span>`,
		`<span class="badge verified">verified</span>`, `<span class="add">&#43;ALPHA</span>`, "The change that made it stale",
		`href="/ui/memory/forget?source=notes.txt"`, "its evidence changed", "History"} {
		if !strings.Contains(body, want) {
			t.Errorf("note page lacks %q:\n%s", want, body)
		}
	}
	// The overview marks it stale and says why it ranks last.
	if _, _, body := e.get(t, "/ui/memory?q=alpha"); !strings.Contains(body, ">stale</span>") || !strings.Contains(body, "ranked after the fresh ones") {
		t.Errorf("overview lacks the stale mark:\n%s", body)
	}
	// The dry run lists the note and changes nothing.
	code, _, body = e.get(t, "/ui/memory/forget?source=notes.txt")
	if code != http.StatusOK || !strings.Contains(body, "Dry run: nothing has changed. 1 notes derive from it") || !strings.Contains(body, `name="confirm"`) {
		t.Fatalf("dry run %d:\n%s", code, body)
	}
	if _, _, body := e.get(t, "/ui/memory?q=alpha"); !strings.Contains(body, "Greek letters") {
		t.Fatal("the dry run forgot the note")
	}
	// Posting without the box ticked forgets nothing.
	code, body = e.post(t, "/ui/memory/forget", url.Values{"source": {"notes.txt"}})
	if code != http.StatusOK || !strings.Contains(body, "Tick the box to confirm") {
		t.Fatalf("unconfirmed post %d:\n%s", code, body)
	}
	if _, _, body := e.get(t, "/ui/memory?q=alpha"); !strings.Contains(body, "Greek letters") {
		t.Fatal("an unconfirmed post forgot the note")
	}
	code, body = e.post(t, "/ui/memory/forget", url.Values{"source": {"notes.txt"}, "confirm": {"yes"}})
	if code != http.StatusOK || !strings.Contains(body, "1 notes forgotten") || !strings.Contains(body, "Ledger entry") {
		t.Fatalf("confirmed post %d:\n%s", code, body)
	}
	if _, _, body := e.get(t, "/ui/memory?q=alpha"); strings.Contains(body, "Greek letters") {
		t.Fatal("the forgotten note is still found")
	}
	if _, _, body := e.get(t, "/ui/memory/note?id="+id); !strings.Contains(body, ">forgotten</span>") {
		t.Errorf("the forgotten note's page lacks the mark:\n%s", body)
	}
}
