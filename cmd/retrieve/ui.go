package main

import (
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"runtime"
	"time"

	"github.com/retrieve-dev/retrieve/httpapi"
	"github.com/spf13/cobra"
)

// uiOptions are the flags of `retrieve ui`.
type uiOptions struct {
	Addr   string
	NoOpen bool
}

func newUICmd(io *Streams, g *globalOptions) *cobra.Command {
	opts := &uiOptions{}
	sopts := &serveOptions{Global: g}
	cmd := &cobra.Command{
		Use:   "ui",
		Short: "Open the review pages: the ledger, retrievals and their drift, sessions, the graph, memory and the wiki",
		Long: `ui starts the HTTP server on a loopback address (a free port unless --addr
is given), prints the URL of the review pages and opens it in the browser when
there is one. The same pages are served under /ui/ by retrieve serve --http,
with the same token, Host and Origin checks as the API. Stop it with Ctrl-C.
See docs/ui.md.`,
		Example: `  retrieve ui
  retrieve ui --addr 127.0.0.1:8766 --no-open`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			sopts.HTTP = opts.Addr
			sopts.Listening = func(base string) {
				u := base + "/ui/"
				if tok := os.Getenv("RETRIEVE_TOKEN"); tok != "" {
					u += "?token=" + url.QueryEscape(tok)
				}
				fmt.Fprintf(io.Out, "retrieve ui: %s\n", u)
				if !opts.NoOpen {
					if err := openBrowser(u); err != nil {
						fmt.Fprintf(io.ErrOut, "retrieve ui: open the URL above in a browser (%v)\n", err)
					}
				}
			}
			return runServe(cmd.Context(), io, sopts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Addr, "addr", "127.0.0.1:0", "listen address (loopback; port 0 picks a free one)")
	f.BoolVar(&opts.NoOpen, "no-open", false, "print the URL without opening a browser")
	f.Int64Var(&sopts.MaxBody, "max-body", httpapi.DefaultMaxBody, "HTTP request body cap in bytes")
	f.DurationVar(&sopts.Timeout, "timeout", httpapi.DefaultTimeout, "per-request time limit")
	sopts.Drain = 5 * time.Second
	return cmd
}

// openBrowser opens u with the platform's opener. Without a display (a
// server, CI) it does nothing and says so.
func openBrowser(u string) error {
	var name string
	var args []string
	switch runtime.GOOS {
	case "darwin":
		name = "open"
	case "windows":
		name, args = "rundll32", []string{"url.dll,FileProtocolHandler"}
	default:
		if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
			return fmt.Errorf("no display")
		}
		name = "xdg-open"
	}
	path, err := exec.LookPath(name)
	if err != nil {
		return fmt.Errorf("%s not found", name)
	}
	c := exec.Command(path, append(args, u)...)
	if err := c.Start(); err != nil {
		return err
	}
	go func() { _ = c.Wait() }()
	return nil
}
