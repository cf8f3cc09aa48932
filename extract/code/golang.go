package code

import (
	"go/ast"
	"go/parser"
	"go/token"
)

// parseGo outlines Go source with go/ast. The functions' bodies are blanked
// first (blankGoBodies): the outline reads their braces only, and parsing
// the statements was two thirds of the time. A syntax error inside a body is
// therefore not reported, and does not move a span; one outside the bodies,
// or a brace, string or comment left open, is.
func parseGo(src []byte) *Outline {
	if blank, ok := blankGoBodies(src); ok {
		src = blank
	}
	return outlineGo(src)
}

// outlineGo outlines Go source as it is.
func outlineGo(src []byte) *Outline {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.ParseComments|parser.SkipObjectResolution)
	o := &Outline{Language: "go", Symbols: []Symbol{}, SyntaxErrors: err != nil}
	if f == nil {
		return o
	}
	tf := fset.File(f.Pos())
	if tf == nil {
		return o
	}
	line := func(p token.Pos) int {
		if !p.IsValid() || int(p) < tf.Base() || int(p) > tf.Base()+tf.Size() {
			return 0
		}
		return tf.Line(p)
	}
	add := func(name, kind, parent string, doc *ast.CommentGroup, from, to token.Pos) {
		if name == "" || name == "_" {
			return
		}
		start := line(from)
		if doc != nil {
			if l := line(doc.Pos()); l > 0 && l < start {
				start = l
			}
		}
		end := line(to)
		if start == 0 || end < start {
			return
		}
		o.Symbols = append(o.Symbols, Symbol{Name: name, Kind: kind, Parent: parent, StartLine: start, EndLine: end})
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Name == nil {
				continue
			}
			kind, parent := KindFunction, ""
			if d.Recv != nil && len(d.Recv.List) > 0 {
				kind, parent = KindMethod, recvName(d.Recv.List[0].Type)
			}
			add(d.Name.Name, kind, parent, d.Doc, d.Pos(), d.End())
		case *ast.GenDecl:
			single := !d.Lparen.IsValid()
			for _, spec := range d.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					if s.Name == nil {
						continue
					}
					kind := KindType
					switch s.Type.(type) {
					case *ast.StructType:
						kind = KindStruct
					case *ast.InterfaceType:
						kind = KindInterface
					}
					doc, from, to := s.Doc, s.Pos(), s.End()
					if single {
						doc, from, to = d.Doc, d.Pos(), d.End()
					}
					add(s.Name.Name, kind, "", doc, from, to)
					if it, ok := s.Type.(*ast.InterfaceType); ok && it.Methods != nil {
						for _, m := range it.Methods.List {
							if _, isFunc := m.Type.(*ast.FuncType); !isFunc {
								continue
							}
							for _, n := range m.Names {
								add(n.Name, KindMethod, s.Name.Name, m.Doc, m.Pos(), m.End())
							}
						}
					}
				case *ast.ValueSpec:
					kind := KindVar
					if d.Tok == token.CONST {
						kind = KindConst
					}
					doc, from, to := s.Doc, s.Pos(), s.End()
					if single {
						doc, from, to = d.Doc, d.Pos(), d.End()
					}
					for _, n := range s.Names {
						add(n.Name, kind, "", doc, from, to)
					}
				}
			}
		}
	}
	sortSymbols(o.Symbols)
	return o
}

// recvName returns the type name of a method receiver: T for T, *T, T[K]
// and *T[K, V].
func recvName(e ast.Expr) string {
	for {
		switch t := e.(type) {
		case *ast.StarExpr:
			e = t.X
		case *ast.ParenExpr:
			e = t.X
		case *ast.IndexExpr:
			e = t.X
		case *ast.IndexListExpr:
			e = t.X
		case *ast.Ident:
			return t.Name
		default:
			return ""
		}
	}
}
