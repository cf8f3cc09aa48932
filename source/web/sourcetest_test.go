package web_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/internal/webclient"
	"github.com/retrieve-dev/retrieve/source/sourcetest"
	"github.com/retrieve-dev/retrieve/source/web"
)

func TestContract(t *testing.T) {
	sourcetest.Run(t, func(t *testing.T) sourcetest.Fixture {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/robots.txt":
				fmt.Fprint(w, "User-agent: *\nAllow: /\n")
			case "/article":
				w.Header().Set("Content-Type", "text/html; charset=utf-8")
				fmt.Fprint(w, article)
			case "/notes.txt":
				w.Header().Set("Content-Type", "text/plain; charset=utf-8")
				fmt.Fprint(w, "plain notes\nsecond line\n")
			default:
				http.NotFound(w, r)
			}
		}))
		t.Cleanup(srv.Close)
		c := webclient.New(webclient.Options{Allow: []string{"127.0.0.1"}, Rate: -1, BackoffBase: time.Millisecond, Timeout: 5 * time.Second})
		withCreds := strings.Replace(srv.URL, "http://", "http://reader:web-SECRET-1@", 1)
		return sourcetest.Fixture{
			Source:  web.New(web.Options{Client: c}),
			Targets: []string{srv.URL + "/article", srv.URL + "/notes.txt"},
			Missing: srv.URL + "/missing", MissingCode: retrieve.CodeUpstreamStatus,
			Secret: "web-SECRET-1",
			SecretTargets: []string{withCreds + "/notes.txt", srv.URL + "/notes.txt?access_token=web-SECRET-1",
				withCreds + "/missing?api_key=web-SECRET-1"},
		}
	})
}
