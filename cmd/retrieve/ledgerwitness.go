package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/ledger"
	"github.com/spf13/cobra"
)

// maxTSAReply caps what is read from a timestamp authority (a token with
// its certificate chain is a few kilobytes).
const maxTSAReply = 1 << 20

func newLedgerWitnessCmd(io *Streams, g *globalOptions) *cobra.Command {
	var tsa, pubFile string
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "witness --tsa URL",
		Short: "Have an RFC 3161 timestamp authority timestamp the newest checkpoint; the token is saved beside it and checked by audit",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			u, err := url.Parse(tsa)
			if tsa == "" || err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
				return failStartup(io, retrieve.Errorf(retrieve.CodeInputValidation, "witness needs --tsa URL, an http(s) URL of an RFC 3161 timestamp authority").
					WithHint("for example --tsa https://freetsa.org/tsr; the checkpoint's hash is sent, nothing else"))
			}
			a, err := openApp(cmd.Context(), g, storeOptional)
			if err != nil {
				return failStartup(io, err)
			}
			defer a.Close()
			dir := checkpointDir(a.Root)
			note, err := newestCheckpointFile(dir, pubFile)
			if err != nil {
				return failStartup(io, err)
			}
			msg, err := os.ReadFile(note)
			if err != nil {
				return failStartup(io, retrieve.Errorf(retrieve.CodeStoreUnavailable, "cannot read the checkpoint %s", note).WithErr(err))
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), timeout)
			defer cancel()
			resp, err := askTSA(ctx, tsa, msg)
			if err != nil {
				return failStartup(io, err)
			}
			w, err := ledger.CheckTimestamp(resp, msg)
			if err != nil {
				return failStartup(io, retrieve.Errorf(retrieve.CodeUpstreamStatus, "the timestamp authority %s answered with no valid token: %v", u.Host, err).
					WithHint("check the URL; the authority must answer application/timestamp-reply with its certificate"))
			}
			w.File = witnessFile(note)
			if err := os.WriteFile(w.File, resp, 0o644); err != nil {
				return failStartup(io, retrieve.Errorf(retrieve.CodeWriteFailed, "cannot save the timestamp in %s", dir).WithErr(err))
			}
			return writeResult(io.Out, g, w)
		},
	}
	cmd.Flags().StringVar(&tsa, "tsa", "", "the RFC 3161 timestamp authority's URL")
	cmd.Flags().StringVar(&pubFile, "pubkey", "", "the public key file that checks the checkpoint first (default: .retrieve/checkpoints/"+pubKeyFile+")")
	cmd.Flags().DurationVar(&timeout, "timeout", 30*time.Second, "how long to wait for the authority")
	return cmd
}

// askTSA posts an RFC 3161 request for note to tsa and returns the reply.
func askTSA(ctx context.Context, tsa string, note []byte) ([]byte, error) {
	req, err := ledger.TimestampRequest(note)
	if err != nil {
		return nil, retrieve.Errorf(retrieve.CodeInternal, "cannot make the timestamp request").WithErr(err)
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, tsa, bytes.NewReader(req))
	if err != nil {
		return nil, retrieve.Errorf(retrieve.CodeInputValidation, "bad --tsa URL").WithErr(err)
	}
	hr.Header.Set("Content-Type", "application/timestamp-query")
	res, err := http.DefaultClient.Do(hr)
	if err != nil && ctx.Err() != nil {
		return nil, retrieve.Errorf(retrieve.CodeTimeout, "the timestamp authority did not answer in time").WithErr(err).
			WithHint("--timeout sets how long to wait")
	}
	if err != nil {
		return nil, retrieve.Errorf(retrieve.CodeUpstreamStatus, "cannot reach the timestamp authority").WithErr(err).
			WithHint("check the URL and the network; --timeout sets how long to wait")
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, maxTSAReply+1))
	if err != nil {
		return nil, retrieve.Errorf(retrieve.CodeUpstreamStatus, "cannot read the timestamp authority's answer").WithErr(err)
	}
	if res.StatusCode != http.StatusOK || len(body) > maxTSAReply {
		return nil, retrieve.Errorf(retrieve.CodeUpstreamStatus, "the timestamp authority answered HTTP %d (%d bytes)", res.StatusCode, len(body)).
			WithHint("check that the URL is an RFC 3161 endpoint")
	}
	return body, nil
}

// witnessFile is where the timestamp of a checkpoint file is kept: the
// TSA's DER reply, which `openssl ts -reply -in X.tsr -text` reads and
// `openssl ts -verify -data X.note -in X.tsr -CAfile tsa.pem` verifies.
func witnessFile(note string) string { return strings.TrimSuffix(note, ".note") + ".tsr" }

// newestCheckpointFile is the newest checkpoint under dir, after its
// signature checked with the public key.
func newestCheckpointFile(dir, pubFile string) (string, error) {
	last, err := lastCheckpoint(dir, pubFile)
	if err != nil {
		return "", err
	}
	if last == nil {
		return "", retrieve.Errorf(retrieve.CodeNotFound, "no checkpoint to witness in %s", dir).
			WithHint("take one first with `retrieve ledger checkpoint --key FILE`")
	}
	return newestNote(dir), nil
}

// checkWitness reads the timestamp of the newest checkpoint, if any, and
// checks it: a witness, or a finding when it does not cover the
// checkpoint or its signature fails.
func checkWitness(dir string, rep *ledger.Report) {
	if rep.Checkpoint == nil {
		return
	}
	note := newestNote(dir)
	if note == "" {
		return
	}
	resp, err := os.ReadFile(witnessFile(note))
	if err != nil {
		return // not witnessed
	}
	msg, err := os.ReadFile(note)
	if err == nil {
		var w *ledger.Witness
		if w, err = ledger.CheckTimestamp(resp, msg); err == nil {
			w.File = witnessFile(note)
			rep.Witness = w
			return
		}
	}
	rep.Findings = append(rep.Findings, ledger.Finding{Kind: ledger.Rewritten, Index: -1,
		Detail: fmt.Sprintf("the timestamp %s does not witness the checkpoint: %v", filepath.Base(witnessFile(note)), err)})
	rep.Consistent = false
}
