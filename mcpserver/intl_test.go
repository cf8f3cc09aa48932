package mcpserver_test

import (
	"context"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/retrieve-dev/retrieve/mcpserver"
	"github.com/retrieve-dev/retrieve/wiki"
)

// A wiki page with a Chinese slug is a resource whose URI carries the slug
// raw or percent-encoded.
func TestWikiResourceUnicodeSlug(t *testing.T) {
	ctx := context.Background()
	w := &wiki.Wiki{Dir: filepath.Join(t.TempDir(), "wiki")}
	if _, err := w.Write(ctx, wiki.WriteInput{Category: "entity", Title: "内存泄漏", Content: "导致服务崩溃。"}); err != nil {
		t.Fatal(err)
	}
	r := mcpserver.WikiResource(w)
	for _, uri := range []string{"retrieve://wiki/entity/内存泄漏", "retrieve://wiki/entity/" + url.PathEscape("内存泄漏")} {
		res, err := r.Handler(ctx, &mcp.ReadResourceRequest{Params: &mcp.ReadResourceParams{URI: uri}})
		if err != nil || len(res.Contents) != 1 || !strings.Contains(res.Contents[0].Text, "导致服务崩溃") {
			t.Errorf("%s: %+v, %v", uri, res, err)
		}
	}
}
