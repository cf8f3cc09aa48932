package httpapi_test

import (
	"fmt"
	"testing"

	"github.com/retrieve-dev/retrieve/httpapi"
	"github.com/retrieve-dev/retrieve/internal/testws"
)

// TestOutlineRoute: /v1/outline pages a directory's outlines by limit and
// cursor, each response valid against the OpenAPI document; a limit over
// the maximum is 400 INPUT_VALIDATION_FAILED.
func TestOutlineRoute(t *testing.T) {
	testws.NeedsCgo(t, "Python")
	env, c := start(t, httpapi.Options{})
	for i := range 5 {
		env.WS.Write(fmt.Sprintf("lib/m%d.py", i), fmt.Sprintf("class Model%d:\n    def save(self):\n        pass\n", i))
	}
	seen := map[string]bool{}
	cursor := ""
	for pages := 1; ; pages++ {
		status, m := c.call("POST", "/v1/outline", fmt.Sprintf(`{"target":"lib","limit":2,"cursor":%q}`, cursor))
		if status != 200 {
			t.Fatalf("page %d: %d %v", pages, status, m)
		}
		for _, o := range m["outlines"].([]any) {
			seen[o.(map[string]any)["target"].(string)] = true
		}
		if cursor = m["next_cursor"].(string); cursor == "" {
			if len(seen) != 5 || pages != 3 {
				t.Fatalf("%d files in %d pages, want 5 in 3", len(seen), pages)
			}
			break
		}
	}
	status, m := c.call("POST", "/v1/outline", `{"target":"lib","limit":501}`)
	if status != 400 || m["error"].(map[string]any)["code"] != "INPUT_VALIDATION_FAILED" {
		t.Errorf("limit 501: %d %v", status, m)
	}
}
