// Package config reads the workspace configuration, .retrieve/config.yaml.
// Every part of retrieve reads its own section; secrets are written as
// ${env:NAME} and resolved only when used, with Expand.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/workspace"
	"go.yaml.in/yaml/v3"
)

// Dir is the workspace's state directory; File is the configuration file in it.
const (
	Dir  = ".retrieve"
	File = "config.yaml"
)

// Config is the workspace configuration. The zero value is the default.
type Config struct {
	// Record turns the ledger on or off (default on).
	Record *bool `yaml:"record"`
	// Retention is how long ledger entries are kept by `retrieve gc`
	// (a Go duration such as 720h; empty keeps them forever).
	Retention string `yaml:"retention"`
	// Store is where the ledger and snapshots live: empty for the embedded
	// SQLite file, a SQLite path or sqlite:// URL, or a postgres:// URL
	// (see store/stores); ${env:NAME} keeps the password out of the file.
	Store string `yaml:"store"`
	// Deny adds deny patterns (gitignore syntax) to the built-in list.
	Deny []string `yaml:"deny"`
	// StaleAfter is the time-to-live of volatile sources (default 24h).
	StaleAfter string `yaml:"stale_after"`
	// SelectMaxInput caps, in bytes, the structured text that a jq
	// expression other than a plain path (.[1000], .a.b) parses and runs
	// on (default 16 MiB); a plain path is streamed whatever the size.
	SelectMaxInput int64 `yaml:"select_max_input"`
	// Connections are the named databases of the sql: source (connections.go).
	Connections map[string]Connection `yaml:"connections"`
	// Web and API configure the web and api sources (config/web.go).
	Web Web `yaml:"web"`
	API API `yaml:"api"`
	// Provenance configures session recording and the end-of-turn check
	// (docs/sessions.md).
	Provenance Provenance `yaml:"provenance"`
}

// Provenance is the provenance: section.
type Provenance struct {
	// CheckOnStop makes `retrieve hook claude-code` check the citations of
	// the agent's final answer on the Stop event and block the turn when
	// one fails (default off).
	CheckOnStop bool `yaml:"check_on_stop"`
}

// MaxConfigBytes caps the configuration file read (a FIFO or a device is
// refused; docs/SECURITY.md).
const MaxConfigBytes = 1 << 20

// Path returns the configuration file of the workspace root.
func Path(root string) string { return filepath.Join(root, Dir, File) }

// Load reads the configuration of the workspace root; a missing file is the
// default configuration. Unknown keys are refused so that a typo does not
// silently change nothing.
func Load(root string) (*Config, error) {
	b, err := workspace.ReadRegular(Path(root), MaxConfigBytes, false)
	if errors.Is(err, os.ErrNotExist) {
		return &Config{}, nil
	}
	if err != nil {
		return nil, retrieve.Errorf(retrieve.CodeInputValidation, "cannot read %s", Path(root)).WithErr(err).
			WithHint("check the file's permissions")
	}
	var c Config
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil && !errors.Is(err, io.EOF) {
		return nil, retrieve.Errorf(retrieve.CodeInputValidation, "%s is not valid: %v", Path(root), err).
			WithHint("compare it with the commented file that `retrieve init` writes")
	}
	if _, err := c.RetentionDuration(); err != nil {
		return nil, err
	}
	if err := c.validateConnections(); err != nil {
		return nil, err
	}
	if _, _, err := c.Web.Durations(); err != nil {
		return nil, err
	}
	return &c, nil
}

// Recording reports whether retrievals are recorded.
func (c *Config) Recording() bool { return c.Record == nil || *c.Record }

// RetentionDuration parses Retention; zero means keep forever.
func (c *Config) RetentionDuration() (time.Duration, error) {
	if c.Retention == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(c.Retention)
	if err != nil || d < 0 {
		return 0, retrieve.Errorf(retrieve.CodeInputValidation, "retention %q is not a duration", c.Retention).
			WithHint("write it as a Go duration, for example 720h for 30 days")
	}
	return d, nil
}

var envRef = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}`) })

// EnvRefs returns the names of the ${env:NAME} references in s, and s
// with them removed.
func EnvRefs(s string) (names []string, rest string) {
	for _, m := range envRef().FindAllStringSubmatch(s, -1) {
		names = append(names, m[1])
	}
	return names, envRef().ReplaceAllString(s, "")
}

// Expand resolves ${env:NAME} references in s. A reference to an unset
// variable is an error that names the variable, never its value.
func Expand(s string) (string, error) {
	var missing []string
	out := envRef().ReplaceAllStringFunc(s, func(m string) string {
		name := envRef().FindStringSubmatch(m)[1]
		v, ok := os.LookupEnv(name)
		if !ok {
			missing = append(missing, name)
		}
		return v
	})
	if len(missing) > 0 {
		return "", retrieve.Errorf(retrieve.CodeInputValidation, "environment variable %s is not set", missing[0]).
			WithHint("export it before running retrieve; the configuration refers to it as ${env:%s}", missing[0])
	}
	return out, nil
}

// Template is the commented configuration that `retrieve init` writes.
const Template = `# retrieve workspace configuration.
# Every key is optional; the values shown commented out are the defaults.

# Record every retrieval in the ledger (.retrieve/retrieve.db) and keep the
# source bytes as content-addressed snapshots. --no-record opts out per call.
# record: true

# How long ledger entries are kept by ` + "`retrieve gc`" + ` (a duration such as 720h).
# Empty keeps them forever.
# retention: ""

# Where the ledger and snapshots live: empty for .retrieve/retrieve.db, another
# SQLite file, or a PostgreSQL database shared by many replicas (docs/store.md).
# Keep the password out of this file: ${env:NAME} is read from the environment.
# --store and RETRIEVE_STORE override it.
# store: "postgres://retrieve:${env:RETRIEVE_PG_PASSWORD}@db:5432/retrieve?sslmode=verify-full"

# Extra deny patterns (gitignore syntax), on top of the built-in list and
# .retrieveignore. Denied paths are never read.
# deny:
#   - "*.sqlite"
#   - "private/"

# Time-to-live of volatile sources (web, api, database) served from a snapshot.
# stale_after: 24h

# The most structured text (bytes) a jq --select other than a plain path runs on;
# a plain path such as .[1000] or .a.b is streamed whatever the size.
# select_max_input: 16777216

# Named databases for sql: targets (docs/sql.md). Secrets stay in the
# environment; citations and the ledger show the name only.
# connections:
#   app:
#     driver: postgres            # sqlite, postgres or mysql (MariaDB/MySQL)
#     dsn: postgres://reader:${env:APP_DB_PASSWORD}@127.0.0.1:5432/app
#     updated_column: updated_at  # optional: last_modified from this column
#     authority: high             # optional: high (default), medium, low
#     timeout: 10s                # statement timeout
#     max_rows: 1000
` + WebTemplate + `
# Agent sessions (docs/sessions.md): with check_on_stop, the Claude Code Stop
# hook checks every citation of the agent's final answer and sends the turn
# back to the agent when one fails.
# provenance:
#   check_on_stop: false
`

// EnsureDir creates the state directory of root with a .gitignore that
// keeps the store and temporary files out of git (config.yaml may be
// committed).
func EnsureDir(root string) error {
	dir := filepath.Join(root, Dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	gi := filepath.Join(dir, ".gitignore")
	if _, err := os.Stat(gi); errors.Is(err, os.ErrNotExist) {
		_ = os.WriteFile(gi, []byte("# retrieve's store and temporary files; config.yaml may be committed.\nretrieve.db*\ntmp/\nsessions/\nhook.log\n"), 0o644)
	}
	return nil
}

// Init creates the state directory and a commented configuration file
// when there is none. It reports whether it wrote the file.
func Init(root string) (bool, error) {
	if err := EnsureDir(root); err != nil {
		return false, err
	}
	p := Path(root)
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, os.ErrExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("create %s: %w", p, err)
	}
	if _, err := f.WriteString(Template); err != nil {
		f.Close()
		return false, fmt.Errorf("write %s: %w", p, err)
	}
	return true, f.Close()
}
