package retrieve

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/gowebpki/jcs"
)

// HashBytes returns sha256:<hex> of b.
func HashBytes(b []byte) string {
	s := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(s[:])
}

// CanonicalJSON encodes v as RFC 8785 canonical JSON.
func CanonicalJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encode data: %w", err)
	}
	out, err := jcs.Transform(bytes.TrimRight(buf.Bytes(), "\n"))
	if err != nil {
		return nil, fmt.Errorf("canonicalize data: %w", err)
	}
	return out, nil
}

// HashData returns the contract hash of returned data: the bytes of a
// string, or the canonical JSON of anything else.
func HashData(data any) (string, error) {
	if s, ok := data.(string); ok {
		return HashBytes([]byte(s)), nil
	}
	b, err := CanonicalJSON(data)
	if err != nil {
		return "", err
	}
	return HashBytes(b), nil
}
