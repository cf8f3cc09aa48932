package codeparser_test

import (
	"testing"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/extract/codeparser"
)

const src = `package p

// User is a user.
type User struct{}

// Save saves.
func (u *User) Save() {}

func helper() {}
`

func TestParseAndSelect(t *testing.T) {
	p := codeparser.New()
	o, err := p.Parse("go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	syms, err := p.Select(o, []string{"User.Save"})
	if err != nil {
		t.Fatal(err)
	}
	if len(syms) != 1 || syms[0].Path != "User.Save" || syms[0].StartLine != 6 || syms[0].EndLine != 7 || syms[0].Kind != "method" {
		t.Fatalf("Select = %+v", syms)
	}
	if !p.MatchKind("namespace", "module") || p.MatchKind("class", "function") {
		t.Error("MatchKind: module and namespace select each other, class does not select function")
	}
}

func TestErrorsCarryCodes(t *testing.T) {
	p := codeparser.New()
	o, err := p.Parse("go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Select(o, []string{"Sav"})
	ae := retrieve.AsError(err)
	if err == nil || ae.Code != retrieve.CodeSectionNotFound || ae.Hint == "" || len(ae.Alternatives) == 0 {
		t.Errorf("not found = %+v, want SECTION_NOT_FOUND with a hint and alternatives", ae)
	}
	if _, err := p.Select(o, []string{"a..b"}); retrieve.AsError(err).Code != retrieve.CodeInputValidation {
		t.Errorf("bad selector = %v, want INPUT_VALIDATION_FAILED", err)
	}
	if _, err := p.Parse("cobol", []byte("x")); retrieve.AsError(err).Code != retrieve.CodeUnsupportedFormat {
		t.Errorf("unknown language = %v, want UNSUPPORTED_FORMAT", err)
	}
}
