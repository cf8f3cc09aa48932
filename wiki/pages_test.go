package wiki_test

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/retrieve-dev/retrieve/wiki"
)

func TestPagesLinksAndBacklinks(t *testing.T) {
	w := &wiki.Wiki{Dir: filepath.Join(t.TempDir(), "wiki")}
	ctx := context.Background()
	for _, in := range []wiki.WriteInput{
		{Category: "entity", Title: "Memory leak", Content: "Causes [[service-crash]]."},
		{Category: "entity", Title: "Service crash", Content: "Pages someone. See [[topic/why-it-crashes]] and [[nowhere]]."},
		{Category: "topic", Title: "Why it crashes", Content: "Because of [[memory-leak]] and [[service-crash|the crash]]."},
	} {
		if _, err := w.Write(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	pages, err := w.Pages(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][2][]string{}
	for _, p := range pages {
		got[p.Category+"/"+p.Slug] = [2][]string{p.Links, p.Backlinks}
	}
	want := map[string][2][]string{
		"entity/memory-leak":   {{"entity/service-crash"}, {"topic/why-it-crashes"}},
		"entity/service-crash": {{"topic/why-it-crashes"}, {"entity/memory-leak", "topic/why-it-crashes"}},
		"topic/why-it-crashes": {{"entity/memory-leak", "entity/service-crash"}, {"entity/service-crash"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("links and backlinks:\n got %v\nwant %v", got, want)
	}
}
