package retrieve

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestReadBuild(t *testing.T) {
	stamped := func(version string, settings ...string) func() (*debug.BuildInfo, bool) {
		return func() (*debug.BuildInfo, bool) {
			info := &debug.BuildInfo{Main: debug.Module{Path: "github.com/retrieve-dev/retrieve", Version: version}}
			for i := 0; i+1 < len(settings); i += 2 {
				info.Settings = append(info.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
			}
			return info, true
		}
	}
	none := func() (*debug.BuildInfo, bool) { return nil, false }
	for _, tc := range []struct {
		name    string
		v, c, d string
		read    func() (*debug.BuildInfo, bool)
		want    BuildInfo
	}{
		{"release ldflags win", "1.2.3", "abc", "2026-11-24T09:00:00Z", stamped("v9.9.9", "vcs.revision", "zzz", "vcs.time", "2000-01-01T00:00:00Z"),
			BuildInfo{Version: "1.2.3", Commit: "abc", Date: "2026-11-24T09:00:00Z"}},
		{"go install module@version", "", "", "", stamped("v1.4.0"),
			BuildInfo{Version: "1.4.0", Commit: "unknown", Date: "unknown"}},
		{"clone with a VCS stamp", "", "", "", stamped("v0.0.0-20261124090000-0123456789ab+dirty", "vcs.revision", "0123456789abcdef", "vcs.time", "2026-11-24T09:00:00Z", "vcs.modified", "true"),
			BuildInfo{Version: "0.0.0-20261124090000-0123456789ab", Commit: "0123456789abcdef", Date: "2026-11-24T09:00:00Z", Dirty: true}},
		{"devel without stamp", "", "", "", stamped("(devel)"),
			BuildInfo{Version: "devel", Commit: "unknown", Date: "unknown"}},
		{"no build info", "", "", "", none,
			BuildInfo{Version: "devel", Commit: "unknown", Date: "unknown"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := readBuild(tc.v, tc.c, tc.d, tc.read)
			if got.Go == "" || !strings.Contains(got.Platform, "/") {
				t.Errorf("Go %q, Platform %q", got.Go, got.Platform)
			}
			got.Go, got.Platform = "", ""
			if got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
	b := BuildInfo{Version: "1.2.3", Commit: "0123456789abcdef", Date: "d", Dirty: true, Go: "go1", Platform: "linux/amd64"}
	if s := b.String(); s != "1.2.3 (commit 0123456789ab, dirty, built d, go1 linux/amd64)" {
		t.Errorf("String() = %q", s)
	}
	if Build().Version != Version || Version == "" {
		t.Errorf("Version %q, Build %+v", Version, Build())
	}
}
