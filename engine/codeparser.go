package engine

import (
	"context"
	"strings"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/extract"
	"github.com/retrieve-dev/retrieve/store"
)

// isCode reports whether format is a language of the engine's code parser,
// or, without one, a programming language extract.Detect names.
func (e *Engine) isCode(format string) bool {
	if e.code == nil {
		return extract.IsCode(format)
	}
	for _, l := range e.code.Languages() {
		if l == format {
			return true
		}
	}
	return false
}

// codeLanguages lists the languages for hints.
func (e *Engine) codeLanguages() string {
	if e.code == nil {
		return "none in this engine (it has no code parser)"
	}
	return strings.Join(e.code.Languages(), ", ")
}

// parseCode parses src with the engine's code parser. With a store that
// keeps outlines (store.OutlineCache) and a parser that names its version,
// the outline of bytes parsed before is read from the store instead; a
// cache that fails is passed by, never failing the parse. srcHash is the
// "sha256:<hex>" of src when the caller has it, or "".
func (e *Engine) parseCode(ctx context.Context, lang string, src []byte, srcHash string) (*retrieve.CodeOutline, error) {
	if e.code == nil {
		return nil, retrieve.Errorf(retrieve.CodeUnsupportedFormat, "%s symbols need a code parser, and this engine has none", lang).
			WithHint("use --lines for this file; the retrieve command has one, a library engine gets one through Options.Code (extract/codeparser)")
	}
	cache, _ := e.store.(store.OutlineCache)
	v, versioned := e.code.(interface{ Version() string })
	if cache == nil || !versioned {
		return e.code.Parse(lang, src)
	}
	key := outlineKey(lang, v.Version(), src, srcHash)
	if data, ok, err := cache.CachedOutline(ctx, key); err == nil && ok {
		if o, err := decodeOutline(data); err == nil && o.Language == lang {
			return o, nil
		}
	}
	o, err := e.code.Parse(lang, src)
	if err != nil {
		return nil, err
	}
	_ = cache.PutOutline(context.WithoutCancel(ctx), key, encodeOutline(o))
	return o, nil
}

// outlineKey is the outline cache's key of src: its language, the
// parser's version, the cache format and the sha256 of the bytes parsed
// (srcHash, computed when "").
func outlineKey(lang, version string, src []byte, srcHash string) string {
	if srcHash == "" {
		srcHash = retrieve.HashBytes(src)
	}
	return lang + "/" + version + "/" + outlineCacheFormat + "/" + srcHash
}
