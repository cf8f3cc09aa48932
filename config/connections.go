package config

import (
	"regexp"
	"sort"
	"sync"
	"time"

	"github.com/retrieve-dev/retrieve"
)

// Connection is a named database connection (the connections: section).
// Citations, results, logs and the ledger name it by its name only; the DSN
// stays here, and its secrets in the environment (${env:NAME}).
type Connection struct {
	// Driver is sqlite, postgres or mysql (MariaDB and MySQL).
	Driver string `yaml:"driver"`
	// DSN is the data source name: a file path (relative to the workspace
	// root) for sqlite, a postgres:// URL or key=value string for postgres,
	// user:pass@tcp(host:port)/db for mysql. ${env:NAME} references are
	// resolved when the connection is opened.
	DSN string `yaml:"dsn"`
	// Authority is the citation authority (high, medium, low); default high,
	// the system of record.
	Authority string `yaml:"authority"`
	// UpdatedColumn names a column (such as updated_at) whose latest value
	// is the data's last_modified.
	UpdatedColumn string `yaml:"updated_column"`
	// Timeout is the statement timeout (a Go duration; default 10s).
	Timeout string `yaml:"timeout"`
	// MaxRows is the connection's default row cap (default 1,000).
	MaxRows int `yaml:"max_rows"`
}

// Drivers are the database drivers a connection can name.
var Drivers = []string{"sqlite", "postgres", "mysql"}

var connName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$`) })

// ConnectionNames lists the configured connections, sorted.
func (c *Config) ConnectionNames() []string {
	names := make([]string, 0, len(c.Connections))
	for n := range c.Connections {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// StatementTimeout parses Timeout (default 10s).
func (c Connection) StatementTimeout() time.Duration {
	d, err := time.ParseDuration(c.Timeout)
	if err != nil || d <= 0 {
		return 10 * time.Second
	}
	return d
}

// validateConnections checks the connections section; it never echoes a DSN.
func (c *Config) validateConnections() error {
	for name, conn := range c.Connections {
		if !connName().MatchString(name) {
			return retrieve.Errorf(retrieve.CodeInputValidation, "connection name %q is not valid", name).
				WithHint("use letters, digits, _, . and -, starting with a letter, digit or _")
		}
		switch conn.Driver {
		case "sqlite", "postgres", "mysql":
		default:
			return retrieve.Errorf(retrieve.CodeInputValidation, "connection %s: driver %q is not supported", name, conn.Driver).
				WithHint("use one of %v", Drivers)
		}
		if conn.DSN == "" {
			return retrieve.Errorf(retrieve.CodeInputValidation, "connection %s has no dsn", name).
				WithHint("set dsn; keep secrets in the environment as ${env:NAME}")
		}
		switch conn.Authority {
		case "", "high", "medium", "low":
		default:
			return retrieve.Errorf(retrieve.CodeInputValidation, "connection %s: authority %q is not high, medium or low", name, conn.Authority)
		}
		if conn.Timeout != "" {
			if d, err := time.ParseDuration(conn.Timeout); err != nil || d <= 0 {
				return retrieve.Errorf(retrieve.CodeInputValidation, "connection %s: timeout %q is not a duration", name, conn.Timeout).
					WithHint("write it as a Go duration, for example 5s")
			}
		}
		if conn.MaxRows < 0 {
			return retrieve.Errorf(retrieve.CodeInputValidation, "connection %s: max_rows is negative", name)
		}
	}
	return nil
}
