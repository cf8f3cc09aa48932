package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve"
)

func writeConfig(t *testing.T, body string) string {
	t.Helper()
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, Dir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(Path(root), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

func TestConnections(t *testing.T) {
	root := writeConfig(t, `connections:
  app:
    driver: postgres
    dsn: postgres://reader:${env:APP_PW}@db:5432/app
    updated_column: updated_at
    timeout: 3s
  local:
    driver: sqlite
    dsn: data/app.db
`)
	c, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(c.ConnectionNames(), ","); got != "app,local" {
		t.Errorf("names %s", got)
	}
	if d := c.Connections["app"].StatementTimeout(); d.Seconds() != 3 {
		t.Errorf("timeout %v", d)
	}
	if d := c.Connections["local"].StatementTimeout(); d.Seconds() != 10 {
		t.Errorf("default timeout %v", d)
	}
	for name, body := range map[string]string{
		"driver":    "connections:\n  a:\n    driver: oracle\n    dsn: x\n",
		"dsn":       "connections:\n  a:\n    driver: sqlite\n",
		"name":      "connections:\n  \"bad name\":\n    driver: sqlite\n    dsn: x\n",
		"authority": "connections:\n  a:\n    driver: sqlite\n    dsn: x\n    authority: total\n",
		"timeout":   "connections:\n  a:\n    driver: sqlite\n    dsn: x\n    timeout: soon\n",
		"unknown":   "connections:\n  a:\n    driver: sqlite\n    dsn: x\n    passwrd: y\n",
	} {
		_, err := Load(writeConfig(t, body))
		if retrieve.ErrorCode(err) != retrieve.CodeInputValidation {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if strings.Contains(err.Error(), "postgres://") {
			t.Errorf("%s: the error shows a DSN", name)
		}
	}
}
