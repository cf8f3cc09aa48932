package stores

import "testing"

// TestBackendsComplete: every registered backend opens every component
// (one way each) and owns its schemes alone.
func TestBackendsComplete(t *testing.T) {
	owner := map[string]string{}
	for _, b := range backends {
		if b.Kind == "" || len(b.Schemes) == 0 || b.Parse == nil || b.Open == nil || b.OpenMemoryIndex == nil ||
			b.OpenGraph == nil || b.GraphOf == nil || b.Versions == nil {
			t.Errorf("backend %q lacks a way to open one of its components: %+v", b.Kind, b)
		}
		for _, s := range b.Schemes {
			if prev, dup := owner[s]; dup {
				t.Errorf("scheme %s is owned by %s and %s", s, prev, b.Kind)
			}
			owner[s] = b.Kind
			if got, ok := backendOf(s); !ok || got.Kind != b.Kind {
				t.Errorf("backendOf(%s) = %q, %v", s, got.Kind, ok)
			}
		}
	}
	if _, ok := backendOf("s3"); ok {
		t.Error("backendOf(s3) found a backend")
	}
}
