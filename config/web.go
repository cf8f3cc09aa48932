package config

import (
	"time"

	"github.com/retrieve-dev/retrieve"
)

// Web configures the web and api sources (the `web:` and `api:` sections).
type Web struct {
	// AllowHosts lets the address guard through to these hosts or address
	// prefixes (127.0.0.1, localhost, 10.0.0.0/8…). Empty: public addresses only.
	AllowHosts []string `yaml:"allow_hosts"`
	// AuthorityHosts are hosts whose https pages have high authority.
	AuthorityHosts []string `yaml:"authority_hosts"`
	// Timeout is the whole-request timeout (default 30s); ConnectTimeout the
	// connect timeout (default 10s).
	Timeout        string `yaml:"timeout"`
	ConnectTimeout string `yaml:"connect_timeout"`
	// TransferCap caps a response body as it is downloaded, counted after
	// decompression (default 10 MiB): the source's transfer cap, not the
	// caller's max_bytes (a cap on returned data) nor a server's message
	// budget (docs/CONTRACT.md, "Three sizes").
	TransferCap int64 `yaml:"transfer_cap"`
	// MaxBytes is TransferCap's former name, still read.
	MaxBytes int64 `yaml:"max_bytes"`
	// Rate is requests per second per host (default 5; negative: unlimited),
	// Burst the burst (default 5).
	Rate  float64 `yaml:"rate"`
	Burst int     `yaml:"burst"`
	// Retries after the first attempt on network errors, 429 and 5xx
	// (default 2; negative: none).
	Retries int `yaml:"retries"`
	// Concurrency bounds a batch of targets (default 8).
	Concurrency int `yaml:"concurrency"`
}

// API configures the api source.
type API struct {
	// Hosts are read by the api source without --source api (an http(s)
	// URL of any other host goes to the web source).
	Hosts []string `yaml:"hosts"`
	// Headers per host: host → header name → value. Write secrets as
	// ${env:NAME}; they are resolved at call time and never recorded.
	Headers map[string]map[string]string `yaml:"headers"`
}

// Cap is the transfer cap in force: transfer_cap, else its former name
// max_bytes; 0 for the default.
func (w Web) Cap() int64 {
	if w.TransferCap > 0 {
		return w.TransferCap
	}
	return w.MaxBytes
}

// Durations parses Timeout and ConnectTimeout (zero when unset).
func (w Web) Durations() (timeout, connect time.Duration, err error) {
	parse := func(name, s string) (time.Duration, error) {
		if s == "" {
			return 0, nil
		}
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			return 0, retrieve.Errorf(retrieve.CodeInputValidation, "web.%s %q is not a positive duration", name, s).
				WithHint("write it as a Go duration such as 30s")
		}
		return d, nil
	}
	if timeout, err = parse("timeout", w.Timeout); err != nil {
		return 0, 0, err
	}
	connect, err = parse("connect_timeout", w.ConnectTimeout)
	return timeout, connect, err
}

// WebTemplate is the commented web section of the configuration template.
const WebTemplate = `
# Web and API sources (docs/web.md).
# web:
#   allow_hosts: []          # hosts or prefixes the address guard lets through (e.g. 127.0.0.1)
#   authority_hosts: []      # https hosts cited with high authority
#   timeout: 30s
#   connect_timeout: 10s
#   transfer_cap: 10485760   # body cap while downloading, decompressed bytes counted (old name: max_bytes)
#   rate: 5                  # requests per second per host
#   burst: 5
#   retries: 2
#   concurrency: 8           # targets fetched at once by a batch
# api:
#   hosts: [api.example.com]   # URLs of these hosts use the api source without --source api
#   headers:
#     api.example.com:
#       Authorization: "Bearer ${env:EXAMPLE_TOKEN}"
`
