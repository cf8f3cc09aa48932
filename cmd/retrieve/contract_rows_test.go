package main

import (
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/internal/testws"
)

// suiteRows are the rows of the contract suite (TestContractSuite): one per
// source kind and constraint. A source or constraint added later is a row
// here — fixtures (fFile, fCommit, fPage, fSQL, fCLI), a request, the
// reference it must cite, the change that makes verify say changed.
func suiteRows() []suiteRow {
	guide := "# Guide\n\nhello world\n\n## Next\n"
	minified := strings.Repeat(`var é="1";`, 300)
	bin := "\x00\x01" + strings.Repeat("xyz", 200)
	binChanged := "\x00\x02" + strings.Repeat("xyz", 200)
	html := `<html><head><title>T</title></head><body><article><h1>Guide</h1><p>The guide's first paragraph, long enough to be the main content.</p><h2>Install</h2><p class="note">Run the installer.</p></article></body></html>`
	htmlChanged := strings.Replace(html, "Run the installer.", "Run the new installer.", 1)
	var log strings.Builder
	for i := 1; i <= 120; i++ {
		fmt.Fprintf(&log, "line %03d of the log\n", i)
	}
	longLines := "first\n" + strings.Repeat("0123456789", 300) + "\nlast\n"
	var article strings.Builder
	article.WriteString("<html><head><title>Long</title></head><body><article><h1>Long article</h1>")
	for i := 1; i <= 400; i++ {
		fmt.Fprintf(&article, "<p>Paragraph %d of the long article, with enough words in it, and commas, to be kept by readability as content.</p>", i)
	}
	article.WriteString("</article></body></html>")
	var text strings.Builder
	for i := 1; i <= 3000; i++ {
		fmt.Fprintf(&text, "row %04d of a long text served over http\n", i)
	}
	var bigCSV strings.Builder
	bigCSV.WriteString("id,name,note\n")
	for i := 0; bigCSV.Len() < 24<<20; i++ {
		fmt.Fprintf(&bigCSV, "%d,name %d,a note that makes the row longer than the id\n", i, i)
	}
	page := func(body string) suitePage { return suitePage{Body: body} }
	extraction := `{"entities":[{"name":"Cache Service","type":"service","supporting_text":"cache service"}],"relations":[]}`
	return []suiteRow{
		// Files: lines, sections, bytes, select, cuts.
		{name: "file/whole", setup: []suiteFix{fFile("{d}/guide.md", guide)},
			req: suiteReq{Target: "{d}/guide.md"}, ref: "{d}/guide.md:1-5",
			change: []suiteFix{fFile("{d}/guide.md", "# Guide\n\nhello there\n\n## Next\n")}, seen: "hello there"},
		{name: "file/lines", setup: []suiteFix{fFile("{d}/guide.md", guide)},
			req: suiteReq{Target: "{d}/guide.md", Lines: "3"}, ref: "{d}/guide.md:3-3",
			change: []suiteFix{fFile("{d}/guide.md", "# Guide\n\nhello there\n\n## Next\n")}, seen: "hello there",
			gone: []suiteFix{fRemove("{d}/guide.md")}, goneCode: retrieve.CodePathNotFound},
		{name: "file/lines-several", setup: []suiteFix{fFile("{d}/guide.md", guide)},
			req: suiteReq{Target: "{d}/guide.md", Lines: "1,3"}, ref: "{d}/guide.md:1-1,3-3",
			change: []suiteFix{fFile("{d}/guide.md", "# Guido\n\nhello world\n")}, seen: "Guido"},
		{name: "file/section", setup: []suiteFix{fFile("{d}/guide.md", guide)},
			req: suiteReq{Target: "{d}/guide.md", Sections: []string{"Next"}}, ref: "{d}/guide.md:5-5",
			change: []suiteFix{fFile("{d}/guide.md", "# Guide\n\nhello world\n\n## Later\n")}, seen: "Later"},
		{name: "file/bytes", setup: []suiteFix{fFile("{d}/guide.md", guide)},
			req: suiteReq{Target: "{d}/guide.md", Bytes: "0-6"}, ref: "{d}/guide.md#bytes=0-6",
			change: []suiteFix{fFile("{d}/guide.md", "# Guido\n")}, seen: "Guido"},
		{name: "file/bytes-several", setup: []suiteFix{fFile("{d}/guide.md", guide)},
			req: suiteReq{Target: "{d}/guide.md", Bytes: "0-1,9-13"}, ref: "{d}/guide.md#bytes=0-1,9-13",
			change: []suiteFix{fFile("{d}/guide.md", "# Guide\n\nHELLO world\n")}, seen: "HELLO"},
		{name: "file/lines-cut", setup: []suiteFix{fFile("{d}/app.log", log.String())},
			req: suiteReq{Target: "{d}/app.log", MaxBytes: 500}, ref: "{d}/app.log:1-*", page: true, cut: true, whole: log.String(),
			change: []suiteFix{fFile("{d}/app.log", "LINE 001 changed\n"+log.String()[len("line 001 of the log\n"):])}, seen: "LINE 001"},
		// A diff larger than a server's message budget is cut to fit, not
		// refused.
		{name: "file/large-diff", setup: []suiteFix{fFile("{d}/big.txt", strings.Repeat("a line of the file that changes\n", 900))},
			req: suiteReq{Target: "{d}/big.txt", MaxBytes: 16000}, ref: "{d}/big.txt:1-*",
			change: []suiteFix{fFile("{d}/big.txt", strings.Repeat("a line of the file that CHANGED\n", 900))}, seen: "CHANGED"},
		{name: "file/long-line-cut", setup: []suiteFix{fFile("{d}/min.js", minified)},
			req: suiteReq{Target: "{d}/min.js", MaxBytes: 1000}, ref: "{d}/min.js#bytes=0-999", page: true, cut: true, whole: minified,
			change: []suiteFix{fFile("{d}/min.js", "let "+minified)}, seen: "let"},
		{name: "file/line-cut-inside",
			setup: []suiteFix{fFile("{d}/long.txt", longLines)},
			req:   suiteReq{Target: "{d}/long.txt", Lines: "2-", MaxBytes: 1000}, ref: "{d}/long.txt*", page: true, cut: true,
			whole:  longLines[len("first\n"):],
			change: []suiteFix{fFile("{d}/long.txt", "first\nX"+longLines[len("first\n")+1:])}, seen: "X"},
		{name: "file/binary-cut", setup: []suiteFix{fFile("{d}/b.bin", bin)},
			req: suiteReq{Target: "{d}/b.bin", Format: "binary", MaxBytes: 100}, again: suiteReq{Format: "binary"},
			ref: "{d}/b.bin#bytes=0-99", page: true, cut: true, whole: bin,
			change: []suiteFix{fFile("{d}/b.bin", binChanged)}, seen: base64.StdEncoding.EncodeToString([]byte(binChanged[:99]))},
		{name: "file/binary-bytes", setup: []suiteFix{fFile("{d}/b.bin", bin)},
			req: suiteReq{Target: "{d}/b.bin", Bytes: "200-299", Format: "binary"}, again: suiteReq{Format: "binary"}, ref: "{d}/b.bin#bytes=200-299",
			change: []suiteFix{fFile("{d}/b.bin", binChanged[:200]+binChanged[:100])}, seen: "AAJ4"},
		// Without --format binary the data is null: the hash covers the
		// bytes, and the reference alone gives it again.
		{name: "file/binary-bytes-hash", setup: []suiteFix{fFile("{d}/b.bin", bin)},
			req: suiteReq{Target: "{d}/b.bin", Bytes: "200-299"}, ref: "{d}/b.bin#bytes=200-299",
			change: []suiteFix{fFile("{d}/b.bin", binChanged[:200]+binChanged[:100])}},
		{name: "file/select-json", setup: []suiteFix{fFile("{d}/config.json", `{"a":{"b":[1,2,3]},"c":"x"}`)},
			req: suiteReq{Target: "{d}/config.json", Select: ".a.b | map(. * 2)"}, ref: "{d}/config.json#select=*",
			change: []suiteFix{fFile("{d}/config.json", `{"a":{"b":[5]}}`)}, seen: "10"},
		{name: "file/select-lines", setup: []suiteFix{fFile("{d}/data.jsonl", "{\"n\":1}\n{\"n\":2}\n")},
			req: suiteReq{Target: "{d}/data.jsonl", Lines: "2", Select: ".[0].n"}, ref: "{d}/data.jsonl#select=.%5B0%5D.n:2-2",
			change: []suiteFix{fFile("{d}/data.jsonl", "{\"n\":1}\n{\"n\":7}\n")}, seen: "7"},
		{name: "file/select-csv", setup: []suiteFix{fFile("{d}/people.csv", "name,age\nada,36\nbob,41\n")},
			req: suiteReq{Target: "{d}/people.csv", Select: ".[1]"}, ref: "{d}/people.csv#select=.%5B1%5D",
			change: []suiteFix{fFile("{d}/people.csv", "name,age\nada,36\nbob,42\n")}, seen: "42"},
		// A plain path on a large CSV is served (in bounded memory), not a
		// TIMEOUT or TOO_LARGE that blames the expression.
		{name: "file/select-large", once: true,
			setup: []suiteFix{fFile("{d}/big.csv", bigCSV.String())},
			req:   suiteReq{Target: "{d}/big.csv", Select: ".[1000].name"}, ref: "{d}/big.csv#select=*",
			change: []suiteFix{fFile("{d}/big.csv", strings.Replace(bigCSV.String(), "\n1000,name 1000,", "\n1000,NAME 1000,", 1))}, seen: "NAME 1000"},
		{name: "file/css-select", setup: []suiteFix{fFile("{d}/page.html", html)},
			req: suiteReq{Target: "{d}/page.html", Select: "p.note"}, ref: "{d}/page.html#select=p.note",
			change: []suiteFix{fFile("{d}/page.html", htmlChanged)}, seen: "new installer"},

		// A git revision: the citation names the commit, which a new commit
		// cannot change.
		{name: "git/lines", setup: []suiteFix{fCommit("{d}/guide.md", guide)},
			req: suiteReq{Target: "git:HEAD:{d}/guide.md", Lines: "3"}, ref: "git:*",
			change: []suiteFix{fCommit("{d}/guide.md", "# Guide\n\nhello there\n")}, immutable: true},
		{name: "git/bytes", setup: []suiteFix{fCommit("{d}/guide.md", guide)},
			req: suiteReq{Target: "git:HEAD:{d}/guide.md", Bytes: "0-6"}, ref: "git:*",
			change: []suiteFix{fCommit("{d}/guide.md", "# Guido\n")}, immutable: true},
		{name: "git/select", setup: []suiteFix{fCommit("{d}/config.json", `{"a":{"b":[1,2,3]}}`)},
			req: suiteReq{Target: "git:HEAD:{d}/config.json", Select: ".a.b[1:]"}, ref: "git:*",
			change: []suiteFix{fCommit("{d}/config.json", `{"a":{"b":[9,9]}}`)}, immutable: true},
		// The working copy of a tracked file, cited at its commit.
		{name: "git/worktree", setup: []suiteFix{fCommit("{d}/guide.md", guide)},
			req: suiteReq{Target: "{d}/guide.md", Sections: []string{"Guide"}}, ref: "{d}/guide.md:1-5",
			change: []suiteFix{fFile("{d}/guide.md", "# Guide\n\nhello, dirty\n\n## Next\n")}, seen: "hello, dirty"},

		// Documents: a PDF page, a DOCX paragraph, an XLSX range, a notebook cell.
		{name: "doc/pdf-page", setup: []suiteFix{fFile("{d}/report.pdf", string(testws.MinimalPDF("First page text", "Second page\nwith two lines")))},
			req: suiteReq{Target: "{d}/report.pdf", Pages: "2"}, ref: "{d}/report.pdf#page=2",
			change: []suiteFix{fFile("{d}/report.pdf", string(testws.MinimalPDF("First page text", "Second page\nrewritten")))}, seen: "rewritten"},
		{name: "doc/pdf-lines", setup: []suiteFix{fFile("{d}/report.pdf", string(testws.MinimalPDF("First page text", "Second page\nwith two lines")))},
			req: suiteReq{Target: "{d}/report.pdf#page=2:2"}, ref: "{d}/report.pdf#page=2:2-2",
			change: []suiteFix{fFile("{d}/report.pdf", string(testws.MinimalPDF("First page text", "Second page\nrewritten")))}, seen: "rewritten"},
		{name: "doc/docx-para", setup: []suiteFix{fFile("{d}/doc.docx", string(testws.MinimalDOCX("Title line", "The second paragraph.", "A third one.")))},
			req: suiteReq{Target: "{d}/doc.docx", Pages: "para=2"}, ref: "{d}/doc.docx#para=2",
			change: []suiteFix{fFile("{d}/doc.docx", string(testws.MinimalDOCX("Title line", "The second paragraph, edited.", "A third one.")))}, seen: "edited"},
		{name: "doc/xlsx-range", setup: []suiteFix{fFile("{d}/book.xlsx", string(testws.MinimalXLSX("Sheet1", []string{"name", "n"}, []string{"ada", "1"}, []string{"bob", "2"})))},
			req: suiteReq{Target: "{d}/book.xlsx#Sheet1!A2:B2"}, ref: "{d}/book.xlsx#Sheet1!A2:B2",
			change: []suiteFix{fFile("{d}/book.xlsx", string(testws.MinimalXLSX("Sheet1", []string{"name", "n"}, []string{"adele", "1"}, []string{"bob", "2"})))}, seen: "adele"},
		{name: "doc/ipynb-cell", setup: []suiteFix{fFile("{d}/nb.ipynb", notebook)},
			req: suiteReq{Target: "{d}/nb.ipynb", Pages: "2-3"}, ref: "{d}/nb.ipynb#cell=2-3",
			change: []suiteFix{fFile("{d}/nb.ipynb", strings.Replace(notebook, "rows loaded", "rows reloaded", 2))}, seen: "rows reloaded"},

		// Web pages: with and without validators, bytes, select, a cut.
		{name: "web/text", setup: []suiteFix{fPage("notes.txt", page("alpha\nbeta\n"))},
			req: suiteReq{Target: "{u}/notes.txt"}, ref: "{u}/notes.txt",
			change: []suiteFix{fPage("notes.txt", page("alpha\nBETA\n"))}, seen: "BETA",
			gone: []suiteFix{fNoPage("notes.txt")}, goneCode: retrieve.CodeUpstreamStatus},
		{name: "web/etag", setup: []suiteFix{fPage("page.html", suitePage{Body: html, ETag: true})},
			req: suiteReq{Target: "{u}/page.html"}, ref: "{u}/page.html",
			change: []suiteFix{fPage("page.html", suitePage{Body: htmlChanged, ETag: true})}, seen: "new installer"},
		{name: "web/last-modified", setup: []suiteFix{fPage("page.html", suitePage{Body: html, LastModified: true})},
			req: suiteReq{Target: "{u}/page.html"}, ref: "{u}/page.html",
			change: []suiteFix{fPage("page.html", suitePage{Body: htmlChanged, LastModified: true})}, seen: "new installer"},
		// Lines of a page's text: a URL takes no line suffix, its lines
		// fragment (#lines=3-9) names them.
		{name: "web/lines", setup: []suiteFix{fPage("page.html", suitePage{Body: html, ETag: true})},
			req: suiteReq{Target: "{u}/page.html", Lines: "3-"}, ref: "{u}/page.html#lines=3-*",
			change: []suiteFix{fPage("page.html", suitePage{Body: htmlChanged, ETag: true})}, seen: "new installer"},
		{name: "web/section", setup: []suiteFix{fPage("page.html", page(html))},
			req: suiteReq{Target: "{u}/page.html", Sections: []string{"Install"}}, ref: "{u}/page.html#lines=*",
			change: []suiteFix{fPage("page.html", page(htmlChanged))}, seen: "new installer"},
		{name: "web/lines-cut",
			setup: []suiteFix{fPage("long.txt", page(text.String()))},
			req:   suiteReq{Target: "{u}/long.txt", Lines: "101-", MaxBytes: 5000}, ref: "{u}/long.txt#lines=101-*", page: true, cut: true,
			whole:  text.String()[100*len("row 0001 of a long text served over http\n"):],
			change: []suiteFix{fPage("long.txt", page(strings.Replace(text.String(), "row 0101 of", "ROW 0101 of", 1)))}, seen: "ROW 0101"},
		{name: "web/bytes", setup: []suiteFix{fPage("notes.txt", page("alpha\nbeta\n"))},
			req: suiteReq{Target: "{u}/notes.txt", Bytes: "6-9"}, ref: "{u}/notes.txt#bytes=6-9",
			change: []suiteFix{fPage("notes.txt", page("alpha\nBETA\n"))}, seen: "BETA"},
		{name: "web/select-json", setup: []suiteFix{fPage("data.json", page(`{"a":{"b":[1,2]}}`))},
			req: suiteReq{Target: "{u}/data.json", Select: ".a.b"}, ref: "{u}/data.json#select=.a.b",
			change: []suiteFix{fPage("data.json", page(`{"a":{"b":[42]}}`))}, seen: "42"},
		{name: "web/json-anchor",
			setup: []suiteFix{fPage("data.json", page(`{"a":{"b":[1,2]},"c":"`+strings.Repeat("x", 400)+`"}`))},
			req:   suiteReq{Target: "{u}/data.json", Select: ".a.b"}, ref: "{u}/data.json#select=.a.b", sameAnchor: true,
			change: []suiteFix{fPage("data.json", page(`{"a":{"b":[42]}}`))}, seen: "42"},
		{name: "web/css-select", setup: []suiteFix{fPage("page.html", page(html))},
			req: suiteReq{Target: "{u}/page.html", Select: "p.note"}, ref: "{u}/page.html#select=p.note",
			change: []suiteFix{fPage("page.html", page(htmlChanged))}, seen: "new installer"},
		{name: "web/text-cut",
			setup: []suiteFix{fPage("long.txt", page(text.String()))},
			req:   suiteReq{Target: "{u}/long.txt", MaxBytes: 20000}, ref: "{u}/long.txt*", page: true, cut: true, whole: text.String(),
			change: []suiteFix{fPage("long.txt", page("ROW 0001 changed\n"+text.String()[len("row 0001 of a long text served over http\n"):]))}, seen: "ROW 0001"},
		// A long article: over a server's message budget it is cut, and
		// next reaches the rest.
		{name: "web/long-article",
			setup: []suiteFix{fPage("article.html", page(article.String()))},
			req:   suiteReq{Target: "{u}/article.html"}, ref: "{u}/article.html*", page: true,
			change: []suiteFix{fPage("article.html", page(strings.Replace(article.String(), "Paragraph 1 of", "Paragraph ONE of", 1)))}, seen: "Paragraph ONE"},

		// JSON APIs: select, Link pages, headers from the config and from a flag.
		{name: "api/select", setup: []suiteFix{fPage("items.json", page(`{"items":[{"name":"a"},{"name":"b"}]}`))},
			req: suiteReq{Target: "{u}/items.json", Source: "api", Select: "[.items[].name]"}, again: suiteReq{Source: "api"},
			ref: "{u}/items.json#select=*", change: []suiteFix{fPage("items.json", page(`{"items":[{"name":"a"},{"name":"c"}]}`))}, seen: "c"},
		{name: "api/pages",
			setup: []suiteFix{fPage("p1.json", suitePage{Body: `[{"n":1}]`, Next: "p2.json"}), fPage("p2.json", suitePage{Body: `[{"n":2}]`, Next: "p3.json"}), fPage("p3.json", page(`[{"n":3}]`))},
			req:   suiteReq{Target: "{u}/p1.json", Source: "api", WebPages: 3}, again: suiteReq{Source: "api", WebPages: 3}, ref: "{u}/p1.json*",
			change: []suiteFix{fPage("p2.json", suitePage{Body: `[{"n":22}]`, Next: "p3.json"})}, seen: "22"},
		{name: "api/header-config", setup: []suiteFix{fPage("secret.json", suitePage{Body: `{"v":1}`, Auth: true})},
			req: suiteReq{Target: "{a}/secret.json", Source: "api"}, again: suiteReq{Source: "api"}, ref: "{a}/secret.json",
			change: []suiteFix{fPage("secret.json", suitePage{Body: `{"v":2}`, Auth: true})}, seen: "2"},
		{name: "api/header-flag",
			setup: []suiteFix{fPage("secret.json", suitePage{Body: `{"v":1}`, Auth: true})},
			req:   suiteReq{Target: "{u}/secret.json", Source: "api", Header: "Authorization: Bearer ${env:SUITE_TOKEN}"},
			again: suiteReq{Source: "api", Header: "Authorization: Bearer ${env:SUITE_TOKEN}"}, ref: "{u}/secret.json",
			change: []suiteFix{fPage("secret.json", suitePage{Body: `{"v":2}`, Auth: true})}, seen: "2"},

		// SQL: a record, a query with parameters, on each engine.
		{name: "sql/sqlite-record", setup: []suiteFix{fSQL("app", "CREATE TABLE {t} (id INTEGER PRIMARY KEY, name TEXT)", "INSERT INTO {t} VALUES (1, 'Ada'), (2, 'Bob')")},
			req: suiteReq{Target: "sql:app/{t}?id=2"}, ref: "sql:app/{t}?id=2",
			change: []suiteFix{fSQL("app", "UPDATE {t} SET name = 'Robert' WHERE id = 2")}, seen: "Robert",
			gone: []suiteFix{fSQL("app", "DELETE FROM {t} WHERE id = 2")}, goneCode: retrieve.CodeNotFound},
		{name: "sql/sqlite-query", setup: []suiteFix{fSQL("app", "CREATE TABLE {t} (id INTEGER PRIMARY KEY, name TEXT)", "INSERT INTO {t} VALUES (1, 'Ada'), (2, 'Bob')")},
			req: suiteReq{Target: "sql:app", Query: "SELECT id, name FROM {t} WHERE id >= ? ORDER BY id", Params: []string{"1"}, MaxRows: 1}, ref: "sql:app#*",
			change: []suiteFix{fSQL("app", "UPDATE {t} SET name = 'Adele' WHERE id = 1")}, seen: "Adele"},
		{name: "sql/postgres-query", needs: "RETRIEVE_TEST_POSTGRES",
			setup: []suiteFix{fSQL("pg", "CREATE TABLE {t} (id int PRIMARY KEY, name text)", "INSERT INTO {t} VALUES (1, 'Ada'), (2, 'Bob')")},
			req:   suiteReq{Target: "sql:pg", Query: "SELECT id, name FROM {t} WHERE id >= $1 ORDER BY id", Params: []string{"2"}}, ref: "sql:pg#*",
			change: []suiteFix{fSQL("pg", "UPDATE {t} SET name = 'Robert' WHERE id = 2")}, seen: "Robert"},
		{name: "sql/postgres-record", needs: "RETRIEVE_TEST_POSTGRES",
			setup: []suiteFix{fSQL("pg", "CREATE TABLE {t} (id int PRIMARY KEY, name text)", "INSERT INTO {t} VALUES (1, 'Ada'), (2, 'Bob')")},
			req:   suiteReq{Target: "sql:pg/{t}?id=1"}, ref: "sql:pg/{t}?id=1",
			change: []suiteFix{fSQL("pg", "UPDATE {t} SET name = 'Adele' WHERE id = 1")}, seen: "Adele"},
		{name: "sql/mariadb-query", needs: "RETRIEVE_TEST_MYSQL",
			setup: []suiteFix{fSQL("maria", "CREATE TABLE {t} (id int PRIMARY KEY, name varchar(20))", "INSERT INTO {t} VALUES (1, 'Ada'), (2, 'Bob')")},
			req:   suiteReq{Target: "sql:maria", Query: "SELECT id, name FROM {t} WHERE id >= ? ORDER BY id", Params: []string{"2"}}, ref: "sql:maria#*",
			change: []suiteFix{fSQL("maria", "UPDATE {t} SET name = 'Robert' WHERE id = 2")}, seen: "Robert"},
		// SQL: a query cut by max_rows pages by row windows (#rows=), on each engine.
		{name: "sql/sqlite-paged", setup: []suiteFix{fSQL("app", "CREATE TABLE {t} (id INTEGER PRIMARY KEY, name TEXT)", "INSERT INTO {t} VALUES (1, 'Ada'), (2, 'Bob'), (3, 'Cy'), (4, 'Di'), (5, 'Ed')")},
			req: suiteReq{Target: "sql:app", Query: "SELECT id, name FROM {t} WHERE id >= ? ORDER BY id DESC", Params: []string{"2"}, MaxRows: 2}, ref: "sql:app#*",
			page: true, cut: true, whole: sqlRowLines(5, 4, 3, 2),
			change: []suiteFix{fSQL("app", "UPDATE {t} SET name = 'Eddie' WHERE id = 5")}, seen: "Eddie"},
		{name: "sql/postgres-paged", needs: "RETRIEVE_TEST_POSTGRES",
			setup: []suiteFix{fSQL("pg", "CREATE TABLE {t} (id int PRIMARY KEY, name text)", "INSERT INTO {t} VALUES (1, 'Ada'), (2, 'Bob'), (3, 'Cy'), (4, 'Di'), (5, 'Ed')")},
			req:   suiteReq{Target: "sql:pg", Query: "SELECT id, name FROM {t} WHERE id >= $1 ORDER BY id DESC", Params: []string{"2"}, MaxRows: 2}, ref: "sql:pg#*",
			page: true, cut: true, whole: sqlRowLines(5, 4, 3, 2),
			change: []suiteFix{fSQL("pg", "UPDATE {t} SET name = 'Eddie' WHERE id = 5")}, seen: "Eddie"},
		{name: "sql/mariadb-paged", needs: "RETRIEVE_TEST_MYSQL",
			setup: []suiteFix{fSQL("maria", "CREATE TABLE {t} (id int PRIMARY KEY, name varchar(20))", "INSERT INTO {t} VALUES (1, 'Ada'), (2, 'Bob'), (3, 'Cy'), (4, 'Di'), (5, 'Ed')")},
			req:   suiteReq{Target: "sql:maria", Query: "SELECT id, name FROM {t} WHERE id >= ? ORDER BY id DESC", Params: []string{"2"}, MaxRows: 2}, ref: "sql:maria#*",
			page: true, cut: true, whole: sqlRowLines(5, 4, 3, 2),
			change: []suiteFix{fSQL("maria", "UPDATE {t} SET name = 'Eddie' WHERE id = 5")}, seen: "Eddie"},

		// Memory notes, wiki pages, graph document chunks.
		{name: "memory/note", setup: []suiteFix{fFile("memory/semantic/{id}.md", "# Note\n\nJinja2 renders templates.\n\n## Filters\n\nUse upper.\n")},
			req: suiteReq{Target: "memory:semantic/{id}.md", Sections: []string{"Filters"}}, ref: "memory:semantic/{id}.md:5-7",
			change: []suiteFix{fFile("memory/semantic/{id}.md", "# Note\n\nJinja2 renders templates.\n\n## Filters\n\nUse lower.\n")}, seen: "lower"},
		{name: "wiki/page", setup: []suiteFix{fCLI("wiki", "write", "--category", "entity", "--title", "{id}", "--content", "The cache leaks memory.")},
			req: suiteReq{Target: "wiki:entity/{id}"}, ref: "wiki:entity/{id}*",
			change: []suiteFix{fCLI("wiki", "write", "--category", "entity", "--title", "{id}", "--content", "The cache no longer leaks.")}, seen: "no longer"},
		{name: "graph/doc-chunk", setup: []suiteFix{fFile("{d}/doc.md", "The cache service depends on Redis.\n"), fFile("{d}/x.json", extraction),
			fCLI("graph", "ingest", "--doc-id", "{id}", "--file", "{d}/doc.md", "--extraction", "{d}/x.json")},
			req: suiteReq{Target: "doc:{id}#{id}_chunk_000"}, ref: "doc:{id}#{id}_chunk_000",
			// The chunk is the text as ingested (a document id is never
			// re-ingested with other text): a change of the file it came
			// from leaves the citation verified.
			change: []suiteFix{fFile("{d}/doc.md", "The cache service depends on Valkey.\n")}, immutable: true},
	}
}

// sqlRowLines is the rows of the paged SQL rows' table with these ids, in
// this order, one JSON line each (how the suite joins parts of rows).
func sqlRowLines(ids ...int) string {
	names := map[int]string{1: "Ada", 2: "Bob", 3: "Cy", 4: "Di", 5: "Ed"}
	var b strings.Builder
	for _, id := range ids {
		fmt.Fprintf(&b, "{\"id\":%d,\"name\":%q}\n", id, names[id])
	}
	return b.String()
}
