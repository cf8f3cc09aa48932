package graph

import (
	"strings"
	"time"

	"github.com/retrieve-dev/retrieve"
)

// Why a retired edge version went (Edge.Retired).
const (
	// RetiredSuperseded: a new version of its document no longer states
	// it, or states it with other evidence, or another document stated it
	// with a higher confidence.
	RetiredSuperseded = "superseded"
	// RetiredForgotten: graph forget removed its source; its text is
	// erased and as-of answers never show it again.
	RetiredForgotten = "forgotten"
)

// Micros is t as the store keeps transaction times: unix microseconds.
func Micros(t time.Time) int64 { return t.UnixMicro() }

// FromMicros is the time of a stored transaction time ("" for 0).
func FromMicros(us int64) string {
	if us == 0 {
		return ""
	}
	return time.UnixMicro(us).UTC().Format(time.RFC3339Nano)
}

// ParseAsOf reads an as-of time: RFC 3339 (2026-03-01T12:00:00Z), or a
// date (2026-03-01), which means the end of that day in UTC — what the
// store knew on that day. The answer is the transaction time in unix
// microseconds.
func ParseAsOf(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return Micros(t), nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return Micros(t.Add(24*time.Hour)) - 1, nil
	}
	return 0, retrieve.Errorf(retrieve.CodeInputValidation, "as_of %q is not a date", s).
		WithHint("give a date (2026-03-01: the end of that day, UTC) or an RFC 3339 time (2026-03-01T12:00:00Z)")
}

// CheckValidTime checks a valid time of an extraction or the writer: ""
// (unknown), a date or an RFC 3339 time; what says which field it is.
func CheckValidTime(what, s string) error {
	if s == "" {
		return nil
	}
	if _, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return nil
	}
	if _, err := time.Parse(time.DateOnly, s); err == nil {
		return nil
	}
	return retrieve.Errorf(retrieve.CodeInputValidation, "%s %q is not a date", what, s).
		WithHint("give a date (2026-03-01) or an RFC 3339 time (2026-03-01T12:00:00Z), or leave it out when unknown")
}

// IngestionTime is the transaction time of a document's ingestion_date
// (ours, 2006-01-02T15:04:05.000000+00:00, or upstream's Python
// isoformat, UTC when it has no zone), 0 when it does not parse: what the
// migration to transaction time dates a stored document, and its nodes
// and edges, by.
func IngestionTime(s string) int64 {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999", time.DateOnly} {
		if t, err := time.Parse(layout, strings.TrimSpace(s)); err == nil {
			return Micros(t)
		}
	}
	return 0
}
