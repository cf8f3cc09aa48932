package intl

import "testing"

func TestPlural(t *testing.T) {
	for _, c := range []struct {
		n    int
		want string
	}{{0, "0 notes"}, {1, "1 note"}, {2, "2 notes"}, {-1, "-1 notes"}} {
		if got := Plural(c.n, "note"); got != c.want {
			t.Errorf("Plural(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}
