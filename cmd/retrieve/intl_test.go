package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve/internal/pgtest"
	"github.com/retrieve-dev/retrieve/internal/testws"
	"github.com/retrieve-dev/retrieve/intl"
)

// The four failures of issue 22, as a new user meets them, on SQLite and
// on PostgreSQL: a Chinese word inside a note, a Chinese question to the
// graph, a Chinese wiki title, accents on PostgreSQL; plus JSON and YAML
// that keep the text, an invalid UTF-8 note flagged, right-to-left text
// byte-exact.
func TestIntlCLI(t *testing.T) {
	for _, store := range []string{"sqlite", "postgres"} {
		t.Run(store, func(t *testing.T) {
			ws := testws.New(t)
			args := []string{"--root", ws.Root}
			if store == "postgres" {
				args = append(args, "--store", pgtest.URL(t, "postgres_intl"))
			}
			run := func(want int, a ...string) string {
				t.Helper()
				out, errOut, code := runCLI(t, append(args, a...)...)
				if code != want {
					t.Fatalf("%v: exit %d, want %d\nstdout %s\nstderr %s", a, code, want, out, errOut)
				}
				return out
			}
			run(ExitOK, "memory", "init")
			out := run(ExitOK, "memory", "create", "--type", "semantic", "--title", "部署", "--content", "回滚时先检查证书，然后重启服务。\n", "--json")
			if !strings.Contains(out, `"memory/semantic/部署.md"`) {
				t.Errorf("create: %s", out)
			}
			run(ExitOK, "memory", "create", "--type", "semantic", "--title", "Résumé de l'incident", "--content", "Le serveur a redémarré.\n")
			rtl := "שלום world مرحبا 123 \u202Bembedded\u202C end\n"
			run(ExitOK, "memory", "create", "--type", "episodic", "--title", "שלום", "--content", rtl)
			ws.Write("memory/semantic/bad.md", "---\ntitle: bad\n---\n证书 in bad bytes \xff\xfe here\n")

			// 1. A word inside a Chinese sentence.
			out = run(ExitOK, "memory", "overview", "证书", "--json")
			var env struct {
				Result struct {
					SourceMap []struct{ Path, Snippet string } `json:"source_map"`
				} `json:"result"`
				Errors []struct{ Code, Message string } `json:"errors"`
			}
			if err := json.Unmarshal([]byte(out), &env); err != nil || len(env.Result.SourceMap) != 2 {
				t.Fatalf("overview 证书: %v %s", err, out)
			}
			if env.Result.SourceMap[0].Path != "memory/semantic/部署.md" && env.Result.SourceMap[1].Path != "memory/semantic/部署.md" {
				t.Errorf("overview 证书: %s", out)
			}
			if strings.Contains(out, `\u`) || !strings.Contains(out, "检查证书") {
				t.Errorf("JSON escapes the text: %s", out)
			}
			// Invalid UTF-8: read, found, flagged.
			flagged := false
			for _, e := range env.Errors {
				flagged = flagged || e.Code == "PARSE_FAILED" && strings.Contains(e.Message, "bad.md") && strings.Contains(e.Message, "not valid UTF-8")
			}
			if !flagged {
				t.Errorf("invalid UTF-8 not flagged: %s", out)
			}
			yml := run(ExitOK, "memory", "overview", "证书", "--yaml")
			if !strings.Contains(yml, "memory/semantic/部署.md") || strings.Contains(yml, `\u`) || strings.Contains(yml, `\x`) {
				t.Errorf("YAML escapes the text: %s", yml)
			}
			// 4. Accents folded and stems on both stores.
			out = run(ExitOK, "memory", "overview", "resume redemarrer", "--json")
			if !strings.Contains(out, "résumé-de-l-incident.md") {
				t.Errorf("overview resume: %s", out)
			}
			// Right-to-left text byte-exact.
			out = run(ExitOK, "memory", "read", "memory/episodic/שלום.md", "--json")
			var note struct {
				Note struct {
					Body string `json:"content"`
				} `json:"note"`
			}
			if err := json.Unmarshal([]byte(out), &note); err != nil || !strings.Contains(note.Note.Body, rtl) {
				t.Errorf("read RTL: %v %s", err, out)
			}

			// 3. A Chinese wiki title; a title of emoji refused.
			out = run(ExitOK, "wiki", "write", "--category", "entity", "--title", "内存泄漏", "--content", "内存泄漏导致[[服务崩溃]]。", "--json")
			if !strings.Contains(out, `"wiki:entity/内存泄漏"`) {
				t.Errorf("wiki write: %s", out)
			}
			_, errOut, code := runCLI(t, append(args, "wiki", "write", "--category", "topic", "--title", "🎉🎉", "--content", "x")...)
			if code == ExitOK || !strings.Contains(errOut, "letters of any script") {
				t.Errorf("emoji title: exit %d %s", code, errOut)
			}

			// 2. A Chinese question to the graph.
			ws.Write("notes/事故.md", "事故报告：缓存服务的内存泄漏导致服务崩溃。\n")
			x := ws.Write("x.json", `{"entities":[{"name":"内存泄漏","type":"bug","supporting_text":"内存泄漏"},{"name":"服务崩溃","type":"event","supporting_text":"服务崩溃"}],
"relations":[{"source":"内存泄漏","target":"服务崩溃","type":"causes","confidence":0.9,"supporting_text":"内存泄漏导致服务崩溃"}]}`)
			run(ExitOK, "graph", "ingest", "--doc-id", "doc_zh", "--file", "notes/事故.md", "--extraction", x)
			out = run(ExitOK, "graph", "evidence", "什么导致服务崩溃?", "--json")
			if !strings.Contains(out, `"evidence_chain": "内存泄漏 --[causes]--> 服务崩溃"`) {
				t.Errorf("graph evidence: %s", out)
			}
			exp := filepath.Join(t.TempDir(), "export")
			run(ExitOK, "graph", "export", exp)
			if b, err := os.ReadFile(filepath.Join(exp, "wiki", "entities", "内存泄漏.md")); err != nil || !bytes.Contains(b, []byte("服务崩溃")) {
				t.Errorf("export of the wiki page: %v", err)
			}
		})
	}
}

// Terminal tables count East Asian wide characters as two cells.
func TestTableWide(t *testing.T) {
	var b bytes.Buffer
	tw := newTable(&b, 2, 2)
	tw.Write([]byte("内存泄漏\tbug\tx\nab\tevent\ty\nCafe\u0301\tissue\tz\n"))
	if err := tw.Flush(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	for i, l := range lines {
		col := strings.Index(l, []string{"bug", "event", "issue"}[i])
		if w := intl.Width(l[:col]); w != 10 {
			t.Errorf("line %q: second column at cell %d, want 10", l, w)
		}
	}
}
