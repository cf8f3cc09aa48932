package postgres

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/retrieve-dev/retrieve/internal/pgtest"
)

// The tsvector a note is written with (tsvectorValue, binary) is the one
// its text literal (tsvectorLiteral) reads as on the server: the same
// lexemes, positions and weights, for quotes, backslashes, NUL, invalid
// UTF-8, repeated terms, more than 256 positions of one term and positions
// past 16383.
func TestTSVectorValueEqualsLiteral(t *testing.T) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, pgtest.BaseURL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	long := strings.Repeat("body more words ", 6000) + "last"
	cases := [][]weightedTerms{
		{{"deploy staging", 'A'}, {"ops", 'B'}, {"deploy the staging cache deploy", 'D'}},
		{{"it's", 'A'}, {`back\slash o'neil`, 'B'}, {"nul\x00here bad\xffutf8", 'D'}},
		{{"", 'A'}, {"", 'B'}, {"", 'D'}},
		{{"title term", 'A'}, {"tag", 'B'}, {long, 'D'}},
		{{"证书 书签", 'A'}, {"ünïcode", 'B'}, {strings.Repeat("same ", 300), 'D'}},
	}
	for i, c := range cases {
		var fromLiteral, fromValue string
		var equal bool
		err := conn.QueryRow(ctx, `SELECT $1::text::tsvector::text, $2::tsvector::text, $1::text::tsvector = $2::tsvector`,
			stripNUL(tsvectorLiteral(c...)), tsvectorValue(c...)).Scan(&fromLiteral, &fromValue, &equal)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if !equal || fromLiteral != fromValue {
			t.Errorf("case %d: the binary tsvector differs from the literal's:\n%.300s\n%.300s", i, fromValue, fromLiteral)
		}
	}
	// A term of NULs alone (an empty lexeme in the literal, which the
	// server refuses) is left out.
	var got string
	if err := conn.QueryRow(ctx, `SELECT $1::tsvector::text`, tsvectorValue(weightedTerms{"a \x00 b", 'D'})).Scan(&got); err != nil || got != "'a':1 'b':3" {
		t.Errorf("a NUL term: %q, %v", got, err)
	}
}

// BenchmarkTSVectorValue builds the tsvector of a note of 360 terms, of
// 25 distinct words (the bench/peers.sh notes) and of mostly distinct ones;
// Literal is the text the store sent before, which pgx then parsed.
func BenchmarkTSVectorValue(b *testing.B) {
	words := strings.Fields("deploy staging cache index ledger snapshot replica budget token schema tenant queue worker retry timeout backup restore metric alert rollout canary shard vacuum analyze latency")
	var few, many strings.Builder
	for i := range 360 {
		few.WriteString(words[(i*7)%len(words)] + " ")
		many.WriteString(words[i%len(words)] + strings.Repeat("x", i%13) + " ")
	}
	for _, c := range []struct{ name, body string }{{"few", few.String()}, {"many", many.String()}} {
		fields := []weightedTerms{{"deploy staging 12", 'A'}, {"canary", 'B'}, {c.body, 'D'}}
		b.Run(c.name+"/Value", func(b *testing.B) {
			for b.Loop() {
				tsvectorValue(fields...)
			}
		})
		b.Run(c.name+"/Literal", func(b *testing.B) {
			for b.Loop() {
				tsvectorLiteral(fields...)
			}
		})
	}
}
