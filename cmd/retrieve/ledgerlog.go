package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/config"
	"github.com/retrieve-dev/retrieve/ledger"
	"github.com/retrieve-dev/retrieve/store"
	"github.com/spf13/cobra"
	"golang.org/x/mod/sumdb/tlog"
)

// ledgerKeyEnv holds the private signing key itself (not a file name).
const ledgerKeyEnv = "RETRIEVE_LEDGER_KEY"

// pubKeyFile is the public key saved beside the checkpoints.
const pubKeyFile = "key.pub"

func newLedgerCmd(io *Streams, g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "ledger",
		Short: "Sign checkpoints of the ledger's tamper-evident log and audit it",
		Long: `The ledger is a Merkle log (RFC 6962): every entry has a leaf, written with it.
A checkpoint is a signed tree head (C2SP tlog-checkpoint), saved under
.retrieve/checkpoints/; audit recomputes the log and names what was altered,
inserted, removed or reordered since. See docs/ledger.md.`,
	}
	cmd.AddCommand(newLedgerKeygenCmd(io, g), newLedgerCheckpointCmd(io, g), newLedgerAuditCmd(io, g), newLedgerProofCmd(io, g), newLedgerWitnessCmd(io, g))
	return cmd
}

func newLedgerKeygenCmd(io *Streams, g *globalOptions) *cobra.Command {
	var name, out string
	cmd := &cobra.Command{
		Use:   "keygen --out FILE",
		Short: "Make an ed25519 key pair for checkpoints: the private key goes to FILE (0600), the public key is printed",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return failStartup(io, retrieve.Errorf(retrieve.CodeInputValidation, "keygen needs --out FILE").
					WithHint("keep the private key outside the store and the workspace's git"))
			}
			private, public, err := ledger.GenerateKey(name)
			if err != nil {
				return failStartup(io, ledgerError(err))
			}
			f, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
			if err != nil {
				return failStartup(io, retrieve.Errorf(retrieve.CodeWriteFailed, "cannot create %s", out).WithErr(err).
					WithHint("keygen never overwrites a key: choose another --out"))
			}
			_, werr := fmt.Fprintln(f, private)
			if err := errors.Join(werr, f.Close()); err != nil {
				return failStartup(io, retrieve.Errorf(retrieve.CodeWriteFailed, "cannot write %s", out).WithErr(err))
			}
			return writeResult(io.Out, g, map[string]string{"private_key_file": out, "public_key": public})
		},
	}
	cmd.Flags().StringVar(&name, "name", "retrieve-ledger", "the key's name, the checkpoints' origin line")
	cmd.Flags().StringVar(&out, "out", "", "the file to write the private key to (never overwritten)")
	return cmd
}

// checkpointResult is what `ledger checkpoint --json` prints.
type checkpointResult struct {
	Checkpoint ledger.Checkpoint `json:"checkpoint"`
	Note       string            `json:"note"`
	File       string            `json:"file"`
	PublicKey  string            `json:"public_key"`
}

func newLedgerCheckpointCmd(io *Streams, g *globalOptions) *cobra.Command {
	var keyFile string
	cmd := &cobra.Command{
		Use:   "checkpoint",
		Short: "Sign a tree head of the ledger's log (key from --key FILE or $" + ledgerKeyEnv + "), print it and save it",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			private, err := signingKey(keyFile)
			if err != nil {
				return failStartup(io, err)
			}
			public, err := ledger.PublicKey(private)
			if err != nil {
				return failStartup(io, ledgerError(err))
			}
			a, err := openApp(ctx, g, storeRequired)
			if err != nil {
				return failStartup(io, err)
			}
			defer a.Close()
			leaves, err := logLeaves(ctx, a.Store)
			if err != nil {
				return failStartup(io, err)
			}
			msg, c, file, err := signCheckpoint(a.Root, leaves, private, public)
			if err != nil {
				return failStartup(io, err)
			}
			if !g.JSON {
				_, err := io.Out.Write(msg)
				return err
			}
			return writeJSON(io.Out, checkpointResult{Checkpoint: c, Note: string(msg), File: file, PublicKey: public})
		},
	}
	cmd.Flags().StringVar(&keyFile, "key", "", "the file holding the private key (default: $"+ledgerKeyEnv+", the key itself)")
	return cmd
}

func newLedgerAuditCmd(io *Streams, g *globalOptions) *cobra.Command {
	var pubFile string
	cmd := &cobra.Command{
		Use:   "audit",
		Short: "Recompute the ledger's log and check it against the last checkpoint (exit 7 when it was tampered with)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			a, err := openApp(ctx, g, storeRequired)
			if err != nil {
				return failStartup(io, err)
			}
			defer a.Close()
			last, err := lastCheckpoint(checkpointDir(a.Root), pubFile)
			if err != nil {
				return failStartup(io, err)
			}
			rep, err := auditStore(ctx, a.Store, last, publishedLeaves(checkpointDir(a.Root), last))
			if err != nil {
				return failStartup(io, err)
			}
			checkWitness(checkpointDir(a.Root), rep)
			if err := writeResult(io.Out, g, rep); err != nil {
				return err
			}
			if !rep.Consistent {
				return &exitError{code: exitCode(retrieve.CodeChanged)}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&pubFile, "pubkey", "", "the public key file that checks the checkpoint (default: .retrieve/checkpoints/"+pubKeyFile+"; give one kept elsewhere for an independent audit)")
	return cmd
}

// auditStore audits s's log against last and the leaf hashes published
// with it.
func auditStore(ctx context.Context, s store.Store, last *ledger.Checkpoint, published []tlog.Hash) (*ledger.Report, error) {
	sc, ok := s.(ledger.LogScanner)
	if !ok {
		_, err := logLeaves(ctx, s) // the typed error
		return nil, err
	}
	rep, err := ledger.AuditLogWith(ctx, sc, ledger.AuditOptions{Checkpoint: last, Published: published})
	if err != nil && retrieve.ErrorCode(err) == "" {
		return nil, retrieve.Errorf(retrieve.CodeInternal, "%v", err)
	}
	return rep, err
}

// signCheckpoint signs the tree head of leaves with private and saves the
// note under the workspace's checkpoints with public beside it.
func signCheckpoint(root string, leaves []ledger.Leaf, private, public string) ([]byte, ledger.Checkpoint, string, error) {
	hashes := make([]tlog.Hash, len(leaves))
	for i, l := range leaves {
		hashes[i] = l.Hash
	}
	t, err := ledger.NewTree(hashes)
	if err != nil {
		return nil, ledger.Checkpoint{}, "", retrieve.Errorf(retrieve.CodeInternal, "%v", err)
	}
	head, err := t.Root(t.Size())
	if err != nil {
		return nil, ledger.Checkpoint{}, "", retrieve.Errorf(retrieve.CodeInternal, "%v", err)
	}
	msg, c, err := ledger.Sign(ledger.Checkpoint{Size: t.Size(), Root: head, Time: time.Now().UTC()}, private)
	if err != nil {
		return nil, c, "", ledgerError(err)
	}
	dir := checkpointDir(root)
	file := filepath.Join(dir, fmt.Sprintf("%s-%012d.note", c.Time.Format("20060102T150405.000000000Z"), c.Size))
	if err := saveCheckpoint(dir, file, msg, public); err != nil {
		return nil, c, "", err
	}
	if err := publishLeaves(dir, file, hashes); err != nil {
		return nil, c, "", err
	}
	return msg, c, file, nil
}

// signingKey reads the private key from file, or from the environment.
func signingKey(file string) (string, error) {
	if file == "" {
		if k := strings.TrimSpace(os.Getenv(ledgerKeyEnv)); k != "" {
			return k, nil
		}
		return "", ledgerError(ledger.ErrNoKey)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", retrieve.Errorf(retrieve.CodeInputValidation, "cannot read the key file %s", file).WithErr(err)
	}
	return strings.TrimSpace(string(b)), nil
}

// logLeaves reads the log of a store that keeps one.
func logLeaves(ctx context.Context, s store.Store) ([]ledger.Leaf, error) {
	ls, ok := s.(ledger.LeafStore)
	if !ok {
		return nil, retrieve.Errorf(retrieve.CodeInvalidOperation, "this store keeps no tamper-evident log").
			WithHint("the SQLite and PostgreSQL stores keep one (docs/ledger.md)")
	}
	return ls.Leaves(ctx)
}

func checkpointDir(root string) string { return filepath.Join(root, config.Dir, "checkpoints") }

// saveCheckpoint writes the signed note to file and the public key beside it.
func saveCheckpoint(dir, file string, msg []byte, public string) error {
	err := os.MkdirAll(dir, 0o755)
	if err == nil {
		err = os.WriteFile(file, msg, 0o644)
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, pubKeyFile), []byte(public+"\n"), 0o644)
	}
	if err != nil {
		return retrieve.Errorf(retrieve.CodeWriteFailed, "cannot save the checkpoint in %s", dir).WithErr(err)
	}
	return nil
}

// lastCheckpoint reads and verifies the newest saved checkpoint; nil when
// there is none.
func lastCheckpoint(dir, pubFile string) (*ledger.Checkpoint, error) {
	msg, pub, name, err := latestNote(dir, pubFile)
	if err != nil || msg == nil {
		return nil, err
	}
	c, err := ledger.Open(msg, pub)
	if err != nil {
		return nil, ledgerError(fmt.Errorf("%s: %w", name, err))
	}
	return &c, nil
}

// latestNote reads the newest saved checkpoint note and the public key
// that checks it (pubFile, or the one saved beside the notes); msg is nil
// when there is no checkpoint.
func latestNote(dir, pubFile string) (msg []byte, pub, name string, err error) {
	newest := newestNote(dir)
	if newest == "" {
		return nil, "", "", nil
	}
	if pubFile == "" {
		pubFile = filepath.Join(dir, pubKeyFile)
	}
	pb, err := os.ReadFile(pubFile)
	if err != nil {
		return nil, "", "", retrieve.Errorf(retrieve.CodeInputValidation, "cannot read the public key %s", pubFile).WithErr(err).
			WithHint("give the public key of the checkpoints with --pubkey FILE")
	}
	msg, err = os.ReadFile(newest)
	if err != nil {
		return nil, "", "", retrieve.Errorf(retrieve.CodeStoreUnavailable, "cannot read the checkpoint %s", newest).WithErr(err)
	}
	return msg, strings.TrimSpace(string(pb)), filepath.Base(newest), nil
}

// newestNote is the newest checkpoint file under dir ("" when none): the
// names sort by time, then size.
func newestNote(dir string) string {
	names, _ := filepath.Glob(filepath.Join(dir, "*.note"))
	if len(names) == 0 {
		return ""
	}
	sort.Strings(names)
	return names[len(names)-1]
}

// ledgerError translates the ledger package's sentinel errors.
func ledgerError(err error) error {
	switch {
	case errors.Is(err, ledger.ErrNoKey):
		return retrieve.Errorf(retrieve.CodeInputValidation, "no ledger signing key").
			WithHint("give --key FILE or set " + ledgerKeyEnv + "; make one with `retrieve ledger keygen --out FILE`")
	case errors.Is(err, ledger.ErrBadKey):
		return retrieve.Errorf(retrieve.CodeInputValidation, "%v", err).
			WithHint("keys come from `retrieve ledger keygen`")
	case errors.Is(err, ledger.ErrBadCheckpoint):
		return retrieve.Errorf(retrieve.CodeChanged, "%v", err).
			WithHint("the checkpoint was edited or signed with another key: audit with the right --pubkey")
	}
	return err
}

// proofResult is what `ledger proof` prints: an inclusion proof of one
// entry (ID set) or a consistency proof between two sizes (From set). The
// hashes are base64, as in checkpoints; tlog.CheckRecord and
// tlog.CheckTree (or any RFC 6962 verifier) check them.
type proofResult struct {
	ID       string      `json:"id,omitempty"`
	Index    int64       `json:"index,omitempty"`
	LeafHash *tlog.Hash  `json:"leaf_hash,omitempty"`
	From     int64       `json:"from,omitempty"`
	FromRoot *tlog.Hash  `json:"from_root,omitempty"`
	Size     int64       `json:"size"`
	Root     tlog.Hash   `json:"root"`
	Proof    []tlog.Hash `json:"proof"`
}

func newLedgerProofCmd(io *Streams, g *globalOptions) *cobra.Command {
	var size, from int64
	cmd := &cobra.Command{
		Use:   "proof [ID] [--size N] [--from M]",
		Short: "Print the inclusion proof of entry ID, or with --from M the consistency proof between sizes M and N (default: the log's size)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if (len(args) == 1) == (from > 0) {
				return failStartup(io, retrieve.Errorf(retrieve.CodeInputValidation, "proof needs an entry ID or --from M, not both"))
			}
			a, err := openApp(ctx, g, storeRequired)
			if err != nil {
				return failStartup(io, err)
			}
			defer a.Close()
			leaves, err := logLeaves(ctx, a.Store)
			if err != nil {
				return failStartup(io, err)
			}
			res, err := proveLeaves(leaves, args, size, from)
			if err != nil {
				return failStartup(io, err)
			}
			return writeResult(io.Out, g, res)
		},
	}
	cmd.Flags().Int64Var(&size, "size", 0, "the tree size the proof is for, such as a checkpoint's (default: the log's size)")
	cmd.Flags().Int64Var(&from, "from", 0, "the older tree size of a consistency proof")
	return cmd
}

// proveLeaves makes the proof `ledger proof` asked for.
func proveLeaves(leaves []ledger.Leaf, args []string, size, from int64) (*proofResult, error) {
	hashes := make([]tlog.Hash, len(leaves))
	index := int64(-1)
	for i, l := range leaves {
		hashes[i] = l.Hash
		if len(args) == 1 && l.ID == args[0] {
			index = int64(i)
		}
	}
	if size == 0 {
		size = int64(len(leaves))
	}
	if size < 1 || size > int64(len(leaves)) || from < 0 || from > size {
		return nil, retrieve.Errorf(retrieve.CodeInputValidation, "the log has %d leaves: no proof between sizes %d and %d", len(leaves), from, size)
	}
	t, err := ledger.NewTree(hashes)
	if err != nil {
		return nil, retrieve.Errorf(retrieve.CodeInternal, "%v", err)
	}
	root, err := t.Root(size)
	if err != nil {
		return nil, retrieve.Errorf(retrieve.CodeInternal, "%v", err)
	}
	res := &proofResult{Size: size, Root: root, Proof: []tlog.Hash{}}
	if len(args) == 1 {
		if index < 0 || index >= size {
			return nil, retrieve.Errorf(retrieve.CodeNotFound, "entry %s is not in the first %d leaves of the log", args[0], size).
				WithHint("list entries with `retrieve log`")
		}
		p, err := t.ProveInclusion(index, size)
		if err != nil {
			return nil, retrieve.Errorf(retrieve.CodeInternal, "%v", err)
		}
		res.ID, res.Index, res.LeafHash, res.Proof = args[0], index, &hashes[index], append(res.Proof, p...)
		return res, nil
	}
	old, err := t.Root(from)
	if err != nil {
		return nil, retrieve.Errorf(retrieve.CodeInternal, "%v", err)
	}
	p, err := t.ProveConsistency(from, size)
	if err != nil {
		return nil, retrieve.Errorf(retrieve.CodeInternal, "%v", err)
	}
	res.From, res.FromRoot, res.Proof = from, &old, append(res.Proof, p...)
	return res, nil
}
