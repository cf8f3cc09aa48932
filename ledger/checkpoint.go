package ledger

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

// Sentinel errors; the CLI translates them into typed errors.
var (
	// ErrNoKey: no signing key was given.
	ErrNoKey = errors.New("no ledger signing key")
	// ErrBadKey: the key is not a note key of this package's form.
	ErrBadKey = errors.New("bad ledger key")
	// ErrBadCheckpoint: the checkpoint does not parse or its signature
	// does not verify with the public key.
	ErrBadCheckpoint = errors.New("bad checkpoint")
)

// Checkpoint is a tree head: the log's origin (the key's name), its size,
// its root and when it was taken.
type Checkpoint struct {
	Origin string    `json:"origin"`
	Size   int64     `json:"size"`
	Root   tlog.Hash `json:"root"`
	Time   time.Time `json:"time"`
}

// Text is the checkpoint body in the C2SP tlog-checkpoint format: origin,
// size, base64 root, then one extension line with the time.
func (c Checkpoint) Text() string {
	return fmt.Sprintf("%s\n%d\n%s\ntime %s\n", c.Origin, c.Size,
		base64.StdEncoding.EncodeToString(c.Root[:]), c.Time.UTC().Format(time.RFC3339Nano))
}

// GenerateKey makes an ed25519 key pair named name: the private key (a
// note signer key, "PRIVATE+KEY+name+…") and the public key ("name+…").
func GenerateKey(name string) (private, public string, err error) {
	private, public, err = note.GenerateKey(rand.Reader, name)
	if err != nil {
		return "", "", fmt.Errorf("%w: %v", ErrBadKey, err)
	}
	return private, public, nil
}

// PublicKey derives the public key of a private key made by GenerateKey.
func PublicKey(private string) (string, error) {
	// PRIVATE+KEY+<name>+<hash>+<base64(alg || seed)>
	parts := strings.SplitN(strings.TrimSpace(private), "+", 5) // base64 has "+"s
	if len(parts) != 5 || parts[0] != "PRIVATE" || parts[1] != "KEY" {
		return "", fmt.Errorf("%w: not a PRIVATE+KEY+… note key", ErrBadKey)
	}
	raw, err := base64.StdEncoding.DecodeString(parts[4])
	if err != nil || len(raw) != 1+ed25519.SeedSize || raw[0] != 1 {
		return "", fmt.Errorf("%w: not an ed25519 key", ErrBadKey)
	}
	pub := ed25519.NewKeyFromSeed(raw[1:]).Public().(ed25519.PublicKey)
	v, err := note.NewEd25519VerifierKey(parts[2], pub)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrBadKey, err)
	}
	return v, nil
}

// Sign returns the signed note of c, signed with private; c.Origin is set
// to the key's name.
func Sign(c Checkpoint, private string) ([]byte, Checkpoint, error) {
	if strings.TrimSpace(private) == "" {
		return nil, c, ErrNoKey
	}
	s, err := note.NewSigner(strings.TrimSpace(private))
	if err != nil {
		return nil, c, fmt.Errorf("%w: %v", ErrBadKey, err)
	}
	c.Origin = s.Name()
	msg, err := note.Sign(&note.Note{Text: c.Text()}, s)
	if err != nil {
		return nil, c, fmt.Errorf("%w: %v", ErrBadKey, err)
	}
	return msg, c, nil
}

// Open verifies a signed checkpoint with public and parses it.
func Open(msg []byte, public string) (Checkpoint, error) {
	v, err := note.NewVerifier(strings.TrimSpace(public))
	if err != nil {
		return Checkpoint{}, fmt.Errorf("%w: %v", ErrBadKey, err)
	}
	n, err := note.Open(msg, note.VerifierList(v))
	if err != nil {
		return Checkpoint{}, fmt.Errorf("%w: %v", ErrBadCheckpoint, err)
	}
	return ParseText(n.Text)
}

// ParseText parses a checkpoint body (Text's format).
func ParseText(text string) (Checkpoint, error) {
	lines := strings.Split(text, "\n")
	if len(lines) < 4 || lines[len(lines)-1] != "" {
		return Checkpoint{}, fmt.Errorf("%w: want origin, size and root lines", ErrBadCheckpoint)
	}
	c := Checkpoint{Origin: lines[0]}
	size, err := strconv.ParseInt(lines[1], 10, 64)
	if err != nil || size < 0 || lines[0] == "" {
		return Checkpoint{}, fmt.Errorf("%w: bad size %q", ErrBadCheckpoint, lines[1])
	}
	c.Size = size
	root, err := base64.StdEncoding.DecodeString(lines[2])
	if err != nil || len(root) != tlog.HashSize {
		return Checkpoint{}, fmt.Errorf("%w: bad root %q", ErrBadCheckpoint, lines[2])
	}
	copy(c.Root[:], root)
	for _, l := range lines[3 : len(lines)-1] {
		if t, ok := strings.CutPrefix(l, "time "); ok {
			if c.Time, err = time.Parse(time.RFC3339Nano, t); err != nil {
				return Checkpoint{}, fmt.Errorf("%w: bad time %q", ErrBadCheckpoint, t)
			}
		}
	}
	return c, nil
}
