package stores_test

import (
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve/store/stores"
)

// FuzzParse: a store spec comes from flags, the environment and the
// configuration file. Parsing never panics, and what is shown of a
// postgres URL never holds its password.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"", "a.db", "sqlite:///x.db", "sqlite://", "postgres://u:pw@h:5432/d?sslmode=require",
		"postgresql://u:pw@h/d?password=pw2", "postgres://[::1]:5432/d", "postgres://u:p%40ss@h/d",
		"mysql://x", "${env:HOME}", "postgres://u:pw@h/d?search_path=a,b", "postgres://%zz",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		tg, err := stores.Parse(spec, "/ws")
		if err != nil {
			return
		}
		shown := tg.String()
		if tg.Kind == stores.KindPostgres {
			if i := strings.Index(tg.URL, "://"); i >= 0 {
				rest := tg.URL[i+3:]
				at := strings.LastIndex(rest, "@")
				if at > 0 {
					if _, pw, ok := strings.Cut(rest[:at], ":"); ok && len(pw) >= 4 && !strings.Contains("xxxxx", pw) && strings.Contains(shown, pw) {
						t.Fatalf("%q shows its password %q: %q", spec, pw, shown)
					}
				}
			}
		}
	})
}
