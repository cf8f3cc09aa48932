package ops

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/retrieve-dev/retrieve"
)

// Paging. Every list that can grow (log, memory_list, wiki_search, graph
// query results, outline of a directory, verify --all) is read a page at a
// time: a page holds at most limit items and fits the message budget, and
// next_cursor (empty on the last page) asks for the next one. The CLI's
// --limit/--cursor flags take the same cursors.
//
// A cursor is opaque to callers: base64url of {list, filter fingerprint,
// offset or the key of the last item read, snapshot} and a checksum. A cursor of another list, of the same
// list with other filters, or altered by hand is INPUT_VALIDATION_FAILED.
// Cursors are not secrets and grant nothing: they only say where a page
// starts.

// Cursor is where a page starts.
type Cursor struct {
	// List names the list ("log", "memory_list" …).
	List string `json:"l"`
	// Filter is the fingerprint of the list's filters.
	Filter string `json:"f"`
	// Offset is the index of the page's first item.
	Offset int `json:"o"`
	// Until pins a growing list (the ledger) to what it held when the
	// first page was read: an RFC 3339 time, or "".
	Until string `json:"u,omitempty"`
	// After is the key of the last item of the previous page, for a list
	// read by key (the ledger: an entry id) rather than by offset, so that
	// a deep page costs what a first one does.
	After string `json:"a,omitempty"`
}

const cursorDomain = "retrieve cursor v1\x00"

// Encode returns the opaque form of c.
func (c Cursor) Encode() string {
	payload, _ := json.Marshal(c)
	sum := cursorSum(payload)
	return base64.RawURLEncoding.EncodeToString(payload) + "." + sum
}

func cursorSum(payload []byte) string {
	h := sha256.Sum256(append([]byte(cursorDomain), payload...))
	return hex.EncodeToString(h[:8])
}

// DecodeCursor reads a cursor of list made for the filters whose
// fingerprint is filter. An empty s is the first page.
func DecodeCursor(s, list, filter string) (Cursor, error) {
	if s == "" {
		return Cursor{List: list, Filter: filter}, nil
	}
	bad := func(why string) error {
		return retrieve.Errorf(retrieve.CodeInputValidation, "cursor is not valid for %s: %s", list, why).
			WithHint("pass the next_cursor of the previous page of this same list with the same filters, or no cursor for the first page")
	}
	enc, sum, ok := strings.Cut(s, ".")
	if !ok {
		return Cursor{}, bad("it is not a cursor this server made")
	}
	payload, err := base64.RawURLEncoding.DecodeString(enc)
	if err != nil || cursorSum(payload) != sum {
		return Cursor{}, bad("it was altered or is not a cursor this server made")
	}
	var c Cursor
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil || c.Offset < 0 {
		return Cursor{}, bad("it is not a cursor this server made")
	}
	if c.List != list {
		return Cursor{}, bad(fmt.Sprintf("it belongs to the %s list", c.List))
	}
	if c.Filter != filter {
		return Cursor{}, bad("it was made for other filters")
	}
	return c, nil
}

// Fingerprint identifies a list's filters: a cursor made with some
// filters is refused with others.
func Fingerprint(filters ...any) string {
	b, _ := json.Marshal(filters)
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:6])
}

// PageSpec says how to cut a list into pages.
type PageSpec struct {
	// List names the list; Filter is Fingerprint of its filters.
	List, Filter string
	// Cursor is the caller's cursor ("" for the first page).
	Cursor string
	// Limit is the caller's limit; 0 is Default. Above Max it is refused.
	Limit, Default, Max int
	// Reserve is the size of the output around the items, in bytes.
	Reserve int
	// Until is the snapshot time a first page pins its list to.
	Until string
}

// Page is one page of a list.
type Page[T any] struct {
	Items []T
	// Next is the cursor of the next page, "" on the last.
	Next string
	// Cursor is the decoded cursor of this page.
	Cursor Cursor
}

// Limit validates a page's limit: 0 is def; from 1 to max is used as is.
func Limit(limit, def, maxLimit int) (int, error) {
	switch {
	case limit == 0:
		return def, nil
	case limit < 0 || (maxLimit > 0 && limit > maxLimit):
		return 0, retrieve.Errorf(retrieve.CodeInputValidation, "limit %d is out of range", limit).
			WithHint("use 1 to %d, or leave it out for %d", maxLimit, def)
	}
	return limit, nil
}

// Start reads the spec's cursor and limit: where the page starts and how
// many items it may hold. A list that fetches only what a page needs calls
// it before fetching (a bad cursor or limit is refused before any work);
// Paginate calls it too.
func (spec PageSpec) Start() (Cursor, int, error) {
	c, err := DecodeCursor(spec.Cursor, spec.List, spec.Filter)
	if err != nil {
		return Cursor{}, 0, err
	}
	limit, err := Limit(spec.Limit, spec.Default, spec.Max)
	if err != nil {
		return Cursor{}, 0, err
	}
	return c, limit, nil
}

// Paginate cuts the page that the spec's cursor names out of all: at most
// the limit, and no more items than the call's message budget holds. A
// single item larger than the budget is TOO_LARGE.
func Paginate[T any](ctx context.Context, spec PageSpec, all []T) (*Page[T], error) {
	c, limit, err := spec.Start()
	if err != nil {
		return nil, err
	}
	if spec.Cursor == "" {
		c.Until = spec.Until
	}
	if c.Offset > len(all) {
		c.Offset = len(all)
	}
	room := pageRoom(ctx, spec.Reserve)
	p := &Page[T]{Cursor: c}
	end := c.Offset
	for end < len(all) && end-c.Offset < limit {
		size := ItemSize(ctx, all[end])
		if size > room {
			if end == c.Offset {
				return nil, itemTooLarge(end, spec.List)
			}
			break
		}
		room -= size
		end++
	}
	p.Items = all[c.Offset:end]
	if end < len(all) {
		next := c
		next.Offset = end
		p.Next = next.Encode()
	}
	return p, nil
}

// pageRoom is the room a page's items have in the call's message budget,
// reserve being the size of the output around them.
func pageRoom(ctx context.Context, reserve int) int {
	return stateOf(ctx).budget - envelopeBytes - reserve - 256
}

// itemTooLarge is the error of item i (from 0) of list, alone over the
// message budget.
func itemTooLarge(i int, list string) error {
	return retrieve.Errorf(retrieve.CodeTooLarge, "item %d of %s alone is over the message budget", i+1, list).
		WithHint("ask for a larger budget, or read the item itself with its own tool")
}
