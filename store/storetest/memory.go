package storetest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve/memory"
)

// MemoryOpener returns a new, empty memory index for one test.
type MemoryOpener func(t *testing.T) memory.Index

// MemoryCorpus is a fixed corpus of notes; MemoryQueries are searches of
// it with the note each must rank first. Both stores are held to them,
// so that their rankings agree on the top result.
var MemoryCorpus = []memory.IndexNote{
	{Path: "semantic/postgres.md", Tier: "semantic", ID: "postgres", Title: "PostgreSQL deployment", Tags: []string{"database", "ops"},
		Body: "Run the replicas behind a load balancer. The pool size is eight connections per replica."},
	{Path: "semantic/sqlite.md", Tier: "semantic", ID: "sqlite", Title: "SQLite store", Tags: []string{"database"},
		Body: "One file in WAL mode. The busy timeout is thirty seconds; PostgreSQL is for teams."},
	{Path: "episodic/2026-01-02.md", Tier: "episodic", ID: "e1", Title: "Outage review", Tags: []string{"incident"},
		Body: "PostgreSQL restarted at noon; the replicas reconnected on their own. The load balancer kept serving."},
	{Path: "procedural/deploy.md", Tier: "procedural", ID: "deploy", Title: "How to deploy", Tags: []string{"ops", "release"},
		Body: "Build the binary, run the migrations, then roll the replicas one by one."},
	{Path: "semantic/citations.md", Tier: "semantic", ID: "cite", Title: "Citations", Tags: []string{"ledger"},
		Body: "Every citation carries a sha256 hash of the bytes it quotes and can be verified later."},
}

// MemoryCorpusIntl is the multilingual part of the corpus: Chinese,
// Japanese, Korean, German, French, Russian, right-to-left and mixed notes.
var MemoryCorpusIntl = []memory.IndexNote{
	{Path: "semantic/回滚.md", Tier: "semantic", ID: "zh1", Title: "部署回滚", Tags: []string{"运维"},
		Body: "回滚时先检查证书，然后重启服务。证书过期会让服务中断。"},
	{Path: "episodic/内存泄漏.md", Tier: "episodic", ID: "zh2", Title: "内存泄漏事故", Tags: []string{"事故"},
		Body: "内存泄漏导致服务崩溃，重启后恢复。"},
	{Path: "semantic/サービス停止.md", Tier: "semantic", ID: "ja1", Title: "サービス停止の原因", Tags: []string{"障害"},
		Body: "データベースの接続が切れてサービスが停止しました。再起動で復旧します。"},
	{Path: "semantic/장애.md", Tier: "semantic", ID: "ko1", Title: "서비스 장애 대응", Tags: []string{"운영"},
		Body: "인증서가 만료되면 서비스 장애가 발생합니다. 인증서를 먼저 확인하세요."},
	{Path: "semantic/straße.md", Tier: "semantic", ID: "de1", Title: "Größe der Datenbank", Tags: []string{"Datenbank"},
		Body: "Die Größe der Tabellen wächst täglich; prüfen Sie die Straße der Sicherungen."},
	{Path: "semantic/résumé.md", Tier: "semantic", ID: "fr1", Title: "Résumé de l'incident", Tags: []string{"incident"},
		Body: "Le serveur a redémarré après la mise à jour du certificat. Déjà vu en février."},
	{Path: "semantic/сервер.md", Tier: "semantic", ID: "ru1", Title: "Ошибки сервера", Tags: []string{"сервер"},
		Body: "Сервер перезапускается после ошибки памяти. Проверьте журналы сервера."},
	{Path: "semantic/mixed.md", Tier: "semantic", ID: "mx1", Title: "Deploy checklist 部署清单", Tags: []string{"deploy"},
		Body: "Before deploy, 检查证书 and run the smoke tests. שלום עולם and مرحبا stay as written."},
}

// MemoryQueries pairs a text query (as a user types it; the memory
// service's plan, memory.SearchIndex, runs it) with the path that must rank
// first.
var MemoryQueries = []struct{ Text, Tier, Top string }{
	{"postgresql", "", "semantic/postgres.md"}, // title beats body
	{"busy", "", "semantic/sqlite.md"},
	{"pool replica", "", "semantic/postgres.md"},
	{"replicas", "episodic", "episodic/2026-01-02.md"}, // tier filter
	{"deploy migrations", "", "procedural/deploy.md"},  // deploy/deployment stem alike
	{"sha256", "", "semantic/citations.md"},
	{"verif", "", "semantic/citations.md"}, // prefix
	{"zebra citation", "", "semantic/citations.md"},
	{"证书", "", "semantic/回滚.md"},
	{"什么导致服务崩溃?", "", "episodic/内存泄漏.md"},
	{"内存泄漏", "", "episodic/内存泄漏.md"},
	{"回滚", "", "semantic/回滚.md"},
	{"サービス停止", "", "semantic/サービス停止.md"},
	{"ｻｰﾋﾞｽ", "", "semantic/サービス停止.md"}, // half-width katakana
	{"停止", "", "semantic/サービス停止.md"},
	{"인증서", "", "semantic/장애.md"},
	{"서비스 장애", "", "semantic/장애.md"},
	{"grosse", "", "semantic/straße.md"},
	{"STRASSE", "", "semantic/straße.md"},
	{"resume", "", "semantic/résumé.md"},
	{"redemarre certificat", "", "semantic/résumé.md"},
	{"ошибка сервера", "", "semantic/сервер.md"},
	{"检查 证书 smoke", "", "semantic/mixed.md"},
	{"部署清单", "", "semantic/mixed.md"},
	{"שלום", "", "semantic/mixed.md"},
	{"ＤＥＰＬＯＹ checklist", "", "semantic/mixed.md"}, // full-width letters
}

// RunMemory runs the conformance suite of memory.Index.
func RunMemory(t *testing.T, open MemoryOpener) {
	ctx := context.Background()
	t.Run("Memory/OK", func(t *testing.T) {
		m := open(t)
		if err := m.MemoryUpsert(ctx, "memory", slices.Concat(MemoryCorpus, MemoryCorpusIntl)); err != nil {
			t.Fatal(err)
		}
		if err := m.MemoryUpsert(ctx, "other", MemoryCorpus[:1]); err != nil {
			t.Fatal(err)
		}
		st, err := m.MemoryStates(ctx, "memory")
		if err != nil || len(st) != len(MemoryCorpus)+len(MemoryCorpusIntl) {
			t.Fatalf("states: %d, %v", len(st), err)
		}
		for _, q := range MemoryQueries {
			hits, err := memory.SearchIndex(ctx, m, memory.IndexQuery{Dir: "memory", Tier: q.Tier}, q.Text)
			if err != nil {
				t.Fatalf("%s: %v", q.Text, err)
			}
			if len(hits) == 0 || hits[0].Path != q.Top {
				t.Errorf("%s (tier %q): top %v, want %s", q.Text, q.Tier, paths(hits), q.Top)
				continue
			}
			if hits[0].Score <= 0 || hits[0].Snippet == "" || hits[0].Title == "" || len(hits[0].Tags) == 0 {
				t.Errorf("%s: hit %+v lacks a score, snippet, title or tags", q.Text, hits[0])
			}
			for i := 1; i < len(hits); i++ {
				if hits[i].Score > hits[i-1].Score {
					t.Errorf("%s: hits not best first: %v", q.Text, hits)
				}
			}
		}
		// The snippet is the original text around the hit, right-to-left
		// and mixed scripts byte-exact.
		hits, _ := memory.SearchIndex(ctx, m, memory.IndexQuery{Dir: "memory"}, "证书")
		if len(hits) == 0 || !strings.Contains(hits[0].Snippet, "检查证书") {
			t.Errorf("snippet of 证书: %+v", hits)
		}
		hits, _ = memory.SearchIndex(ctx, m, memory.IndexQuery{Dir: "memory"}, "שלום")
		if len(hits) == 0 || !strings.Contains(hits[0].Snippet, "שלום עולם and مرحبا") {
			t.Errorf("snippet of שלום: %+v", hits)
		}
		// Update: the new text is searched, the old is not.
		n := MemoryCorpus[4]
		n.Body = "Nothing about hashes any more: zebras."
		if err := m.MemoryUpsert(ctx, "memory", []memory.IndexNote{n}); err != nil {
			t.Fatal(err)
		}
		if hits, _ := memory.SearchIndex(ctx, m, memory.IndexQuery{Dir: "memory"}, "sha256"); len(hits) != 0 {
			t.Errorf("the old text is still found: %v", paths(hits))
		}
		if hits, _ := memory.SearchIndex(ctx, m, memory.IndexQuery{Dir: "memory"}, "zebras"); len(hits) != 1 {
			t.Errorf("the new text is not found: %v", paths(hits))
		}
		if err := m.MemoryDelete(ctx, "memory", []string{"semantic/postgres.md", "absent.md"}); err != nil {
			t.Fatal(err)
		}
		if hits, _ := memory.SearchIndex(ctx, m, memory.IndexQuery{Dir: "memory"}, "pool"); len(hits) != 0 {
			t.Errorf("a deleted note is found: %v", paths(hits))
		}
		if err := m.MemoryReset(ctx, "memory"); err != nil {
			t.Fatal(err)
		}
		if st, _ := m.MemoryStates(ctx, "memory"); len(st) != 0 {
			t.Errorf("%d notes after reset", len(st))
		}
		if st, _ := m.MemoryStates(ctx, "other"); len(st) != 1 {
			t.Errorf("reset of one folder touched another: %d notes", len(st))
		}
	})
	// The best hits of a store holding one folder (SQLite ranks those
	// without joining every match) and of a store holding two are the
	// same: score first, then path, even when more notes tie than the
	// limit keeps.
	t.Run("Memory/TiesAtTheLimit", func(t *testing.T) { testMemoryTies(t, open) })
	t.Run("Memory/EvidenceAndMarks", func(t *testing.T) { testMemoryMarks(t, open) })
	t.Run("Memory/Counts", func(t *testing.T) { testMemoryCounts(t, open) })
	t.Run("Memory/Versions", func(t *testing.T) { testMemoryVersions(t, open) })
}

func testMemoryTies(t *testing.T, open MemoryOpener) {
	ctx := context.Background()
	m := open(t)
	var notes []memory.IndexNote
	// More ties than SQLite's first try keeps past the limit (64).
	for i := range 100 {
		notes = append(notes, memory.IndexNote{Path: fmt.Sprintf("semantic/tie-%03d.md", 99-i), Tier: "semantic", ID: fmt.Sprintf("sem-20260101-%03d", i+1),
			Title: "Same note", Tags: []string{"x"}, Body: "The quokka is here.", Size: 1, ModTime: 1, Hash: "h"})
	}
	for i := range 3 {
		notes = append(notes, memory.IndexNote{Path: fmt.Sprintf("episodic/best-%d.md", i), Tier: "episodic", ID: fmt.Sprintf("epi-20260101-%03d", i+1),
			Title: "Quokka", Tags: []string{"x"}, Body: "The quokka is here.", Size: 1, ModTime: 1, Hash: "h"})
	}
	if err := m.MemoryUpsert(ctx, "memory", notes); err != nil {
		t.Fatal(err)
	}
	want := []string{"episodic/best-0.md", "episodic/best-1.md", "episodic/best-2.md"}
	for i := range 97 {
		want = append(want, fmt.Sprintf("semantic/tie-%03d.md", i))
	}
	for _, other := range []bool{false, true} {
		if other {
			if err := m.MemoryUpsert(ctx, "other", notes[:5]); err != nil {
				t.Fatal(err)
			}
		}
		for _, limit := range []int{20, 90, 3, 2} {
			hits, err := memory.SearchIndex(ctx, m, memory.IndexQuery{Dir: "memory", Limit: limit}, "quokka")
			if err != nil {
				t.Fatal(err)
			}
			if got := paths(hits); !slices.Equal(got, want[:limit]) {
				t.Errorf("second folder %v, limit %d: %v, want %v", other, limit, got, want[:limit])
			}
		}
	}
}

func paths(hs []memory.IndexHit) []string {
	var out []string
	for _, h := range hs {
		out = append(out, h.Path)
	}
	return out
}
