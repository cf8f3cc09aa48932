package ledger

import (
	"bytes"
	"crypto"
	"crypto/sha256"
	"errors"
	"fmt"
	"time"

	"github.com/digitorus/timestamp"
)

// ErrBadWitness: a timestamp authority's answer is not a valid RFC 3161
// token over the checkpoint.
var ErrBadWitness = errors.New("bad checkpoint timestamp")

// Witness is an RFC 3161 timestamp of a checkpoint: a timestamp authority
// (TSA) signed that the checkpoint's bytes (the signed note, hashed with
// SHA-256) existed at Time.
type Witness struct {
	// TSA is the subject of the certificate that signed the token.
	TSA string `json:"tsa"`
	// Time is when the TSA says it saw the checkpoint.
	Time time.Time `json:"time"`
	// Serial is the token's serial number, in decimal.
	Serial string `json:"serial"`
	// File is where the token is kept (set by the caller).
	File string `json:"file,omitempty"`
}

// TimestampRequest is the DER RFC 3161 request for note (a signed
// checkpoint): its SHA-256, asking for the TSA's certificate in the
// token so that it can be checked offline.
func TimestampRequest(note []byte) ([]byte, error) {
	return timestamp.CreateRequest(bytes.NewReader(note), &timestamp.RequestOptions{Hash: crypto.SHA256, Certificates: true})
}

// CheckTimestamp parses a TSA's DER response (TimeStampResp), checks its
// signature with the certificate it carries, and that it covers note.
// Trusting that certificate (its chain to a root the reviewer trusts) is
// the reviewer's: `openssl ts -verify -CAfile` does it with the same file.
func CheckTimestamp(resp, note []byte) (*Witness, error) {
	ts, err := timestamp.ParseResponse(resp)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadWitness, err)
	}
	if len(ts.Certificates) == 0 {
		return nil, fmt.Errorf("%w: the token carries no certificate to check its signature with", ErrBadWitness)
	}
	sum := sha256.Sum256(note)
	if ts.HashAlgorithm != crypto.SHA256 || !bytes.Equal(ts.HashedMessage, sum[:]) {
		return nil, fmt.Errorf("%w: it covers other bytes than the checkpoint", ErrBadWitness)
	}
	w := &Witness{TSA: ts.Certificates[0].Subject.String(), Time: ts.Time.UTC()}
	if ts.SerialNumber != nil {
		w.Serial = ts.SerialNumber.String()
	}
	return w, nil
}
