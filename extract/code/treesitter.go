//go:build cgo

package code

import (
	"runtime"
	"strings"
	"sync"
	"unsafe"

	ts "github.com/tree-sitter/go-tree-sitter"
	tscs "github.com/tree-sitter/tree-sitter-c-sharp/bindings/go"
	tsc "github.com/tree-sitter/tree-sitter-c/bindings/go"
	tscpp "github.com/tree-sitter/tree-sitter-cpp/bindings/go"
	tsjava "github.com/tree-sitter/tree-sitter-java/bindings/go"
	tsjs "github.com/tree-sitter/tree-sitter-javascript/bindings/go"
	tspy "github.com/tree-sitter/tree-sitter-python/bindings/go"
	tsrb "github.com/tree-sitter/tree-sitter-ruby/bindings/go"
	tsrs "github.com/tree-sitter/tree-sitter-rust/bindings/go"
	tsts "github.com/tree-sitter/tree-sitter-typescript/bindings/go"
)

// CgoEnabled reports whether this build parses the tree-sitter languages.
const CgoEnabled = true

// grammar is one tree-sitter language: created once, with a bounded pool
// of parsers (a sync.Pool would drop parsers without closing them).
type grammar struct {
	ptr      func() unsafe.Pointer
	spec     *spec
	once     sync.Once
	language *ts.Language
	pool     chan *ts.Parser
}

var grammars = map[string]*grammar{
	"typescript": {ptr: tsts.LanguageTypescript, spec: tsSpec},
	"tsx":        {ptr: tsts.LanguageTSX, spec: tsSpec},
	"javascript": {ptr: tsjs.Language, spec: tsSpec},
	"python":     {ptr: tspy.Language, spec: pySpec},
	"java":       {ptr: tsjava.Language, spec: javaSpec},
	"rust":       {ptr: tsrs.Language, spec: rustSpec},
	"c":          {ptr: tsc.Language, spec: cSpec},
	"cpp":        {ptr: tscpp.Language, spec: cSpec},
	"csharp":     {ptr: tscs.Language, spec: csSpec},
	"ruby":       {ptr: tsrb.Language, spec: rubySpec},
}

func (g *grammar) parser() (*ts.Parser, error) {
	g.once.Do(func() {
		g.language = ts.NewLanguage(g.ptr())
		g.pool = make(chan *ts.Parser, runtime.GOMAXPROCS(0))
	})
	select {
	case p := <-g.pool:
		return p, nil
	default:
	}
	p := ts.NewParser()
	if err := p.SetLanguage(g.language); err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

func (g *grammar) release(p *ts.Parser) {
	p.Reset()
	select {
	case g.pool <- p:
	default:
		p.Close()
	}
}

func parseTreeSitter(lang string, src []byte) (*Outline, error) {
	g := grammars[lang]
	if g == nil {
		return nil, &UnsupportedError{Language: lang}
	}
	p, err := g.parser()
	if err != nil {
		return nil, &UnsupportedError{Language: lang}
	}
	tree := p.Parse(src, nil)
	g.release(p)
	o := &Outline{Language: lang, Symbols: []Symbol{}}
	if tree == nil {
		o.SyntaxErrors = true
		return o, nil
	}
	defer tree.Close()
	root := tree.RootNode()
	o.SyntaxErrors = root.HasError()
	cur := root.Walk()
	defer cur.Close()
	w := &walker{spec: g.spec, src: src, out: &o.Symbols, cur: cur}
	w.walk(root, "", false, nil, 0)
	sortSymbols(o.Symbols)
	return o, nil
}

// decision is what a spec says of a node.
type decision struct {
	kind, name string
	// parent, when set, replaces the enclosing name (a C++ Foo::bar
	// definition, a Rust impl block).
	parent string
	// skip: the node is no symbol, but its body is walked (a Rust impl).
	noSymbol bool
	// descend: walk the node's body with this symbol as the parent.
	descend bool
	// inType: the walked body is a type's (functions there are methods).
	inType bool
	// span overrides the node whose lines the symbol covers.
	span *ts.Node
	// of overrides the node whose body is walked.
	of *ts.Node
}

// spec describes the symbols of one grammar.
type spec struct {
	// containers are walked through, transparently (preprocessor blocks,
	// class bodies, declaration lists).
	containers map[string]bool
	// wrappers hold one declaration and give it their span (export,
	// decorators, templates).
	wrappers map[string]bool
	// attrs are sibling nodes that belong to the next declaration
	// (decorators, attributes).
	attrs    map[string]bool
	classify func(w *walker, n *ts.Node, kind string, parent string, inType bool) (decision, bool)
}

type walker struct {
	spec *spec
	src  []byte
	out  *[]Symbol
	cur  *ts.TreeCursor
}

// maxDepth bounds the nesting the walker follows.
const maxDepth = 64

func (w *walker) text(n *ts.Node) string {
	if n == nil {
		return ""
	}
	s, e := n.StartByte(), n.EndByte()
	if e > uint(len(w.src)) || s > e {
		return ""
	}
	return string(w.src[s:e])
}

// sibling is a node with its named siblings, for the comments above it.
type sibling struct {
	kids []ts.Node
	i    int
}

func (s sibling) node() *ts.Node { return &s.kids[s.i] }

func (w *walker) walk(n *ts.Node, parent string, inType bool, outer *sibling, depth int) {
	if depth > maxDepth {
		return
	}
	// NamedChildren walks a cursor once; NamedChild(i) and the sibling
	// calls of tree-sitter are linear each, quadratic over a class body.
	kids := n.NamedChildren(w.cur)
	for i := range kids {
		w.visit(sibling{kids, i}, parent, inType, outer, depth)
	}
}

func (w *walker) visit(at sibling, parent string, inType bool, outer *sibling, depth int) {
	c := at.node()
	kind := c.Kind()
	if w.spec.containers[kind] {
		w.walk(c, parent, inType, nil, depth+1)
		return
	}
	if w.spec.wrappers[kind] {
		if outer == nil {
			outer = &at
		}
		w.walk(c, parent, inType, outer, depth+1)
		return
	}
	d, ok := w.spec.classify(w, c, kind, parent, inType)
	if !ok {
		return
	}
	p := parent
	if d.parent != "" {
		p = d.parent
	}
	name := strings.TrimSpace(d.name)
	if !d.noSymbol && name != "" {
		span := c
		if d.span != nil {
			span = d.span
		}
		top := at
		if outer != nil {
			top = *outer
		}
		start := w.leading(top)
		if s := int(span.StartPosition().Row) + 1; s < start {
			start = s
		}
		end := int(span.EndPosition().Row) + 1
		if span.EndPosition().Column == 0 && span.EndPosition().Row > span.StartPosition().Row {
			end-- // a node that ends with its newline
		}
		if end < start {
			end = start
		}
		*w.out = append(*w.out, Symbol{Name: name, Kind: d.kind, Parent: p, StartLine: start, EndLine: end})
	}
	if d.descend {
		child := p
		if !d.noSymbol && name != "" {
			child = join(p, name)
		}
		of := c
		if d.of != nil {
			of = d.of
		}
		body := of.ChildByFieldName("body")
		if body == nil {
			body = of
		}
		w.walk(body, child, d.inType, nil, depth+1)
	}
}

// leading returns the 1-based first line of a node with the comments and
// attributes right above it (no blank line between, not trailing code).
func (w *walker) leading(at sibling) int {
	start := at.node().StartPosition().Row
	for j := at.i - 1; j >= 0; j-- {
		prev := &at.kids[j]
		k := prev.Kind()
		isComment := strings.Contains(k, "comment")
		if !isComment && !w.spec.attrs[k] {
			break
		}
		if prev.EndPosition().Row+1 < start {
			break // a blank line between
		}
		if j > 0 && isComment {
			before := &at.kids[j-1]
			if before.EndPosition().Row == prev.StartPosition().Row && !strings.Contains(before.Kind(), "comment") {
				break // a trailing comment of the code before
			}
		}
		start = prev.StartPosition().Row
	}
	return int(start) + 1
}

func join(parent, name string) string {
	if parent == "" {
		return name
	}
	return parent + "." + name
}

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// cleanName strips generic arguments and spaces from a type name: Foo<T>
// and Foo[T] give Foo; "a::b" gives "a.b".
func cleanName(s string) string {
	if i := strings.IndexAny(s, "<[("); i >= 0 {
		s = s[:i]
	}
	s = strings.ReplaceAll(strings.TrimSpace(s), "::", ".")
	return strings.Join(strings.Fields(s), "")
}

// ---- TypeScript, TSX, JavaScript ----

var tsSpec = &spec{
	containers: set("statement_block", "class_body", "interface_body", "object_type", "enum_body"),
	wrappers:   set("export_statement", "ambient_declaration"),
	attrs:      set("decorator"),
	classify: func(w *walker, n *ts.Node, kind, parent string, inType bool) (decision, bool) {
		name := func() string { return w.text(n.ChildByFieldName("name")) }
		switch kind {
		case "class_declaration", "abstract_class_declaration", "class":
			return decision{kind: KindClass, name: name(), descend: true, inType: true}, true
		case "interface_declaration":
			return decision{kind: KindInterface, name: name(), descend: true, inType: true}, true
		case "enum_declaration":
			return decision{kind: KindEnum, name: name()}, true
		case "type_alias_declaration":
			return decision{kind: KindType, name: name()}, true
		case "module", "internal_module":
			return decision{kind: KindNamespace, name: strings.Trim(name(), `"'`), descend: true}, true
		case "function_declaration", "generator_function_declaration", "function_signature":
			return decision{kind: KindFunction, name: name()}, true
		case "method_definition", "method_signature", "abstract_method_signature":
			if !inType {
				return decision{}, false
			}
			return decision{kind: KindMethod, name: name()}, true
		case "public_field_definition", "field_definition":
			// A class field holding a function is a method (onClick = () => …).
			v := n.ChildByFieldName("value")
			if !inType || v == nil || (v.Kind() != "arrow_function" && v.Kind() != "function_expression") {
				return decision{}, false
			}
			nm := n.ChildByFieldName("name")
			if nm == nil {
				nm = n.ChildByFieldName("property")
			}
			return decision{kind: KindMethod, name: w.text(nm)}, true
		case "lexical_declaration", "variable_declaration":
			if inType {
				return decision{}, false
			}
			return w.tsVariables(n, parent)
		}
		return decision{}, false
	},
}

// tsVariables outlines const/let/var declarations: one declarator gets the
// whole statement's span; functions assigned are functions.
func (w *walker) tsVariables(n *ts.Node, parent string) (decision, bool) {
	var decls []*ts.Node
	count := n.NamedChildCount()
	for i := uint(0); i < count; i++ {
		if c := n.NamedChild(i); c != nil && c.Kind() == "variable_declarator" {
			decls = append(decls, c)
		}
	}
	if len(decls) == 0 {
		return decision{}, false
	}
	kind := KindVar
	if first := n.Child(0); first != nil && first.Kind() == "const" {
		kind = KindConst
	}
	kindOf := func(d *ts.Node) string {
		if v := d.ChildByFieldName("value"); v != nil {
			switch v.Kind() {
			case "arrow_function", "function_expression", "function", "generator_function":
				return KindFunction
			case "class":
				return KindClass
			}
		}
		return kind
	}
	nameOf := func(d *ts.Node) string {
		nm := d.ChildByFieldName("name")
		if nm == nil || nm.Kind() != "identifier" {
			return ""
		}
		return w.text(nm)
	}
	if len(decls) == 1 {
		return decision{kind: kindOf(decls[0]), name: nameOf(decls[0])}, true
	}
	for _, d := range decls {
		if nm := nameOf(d); nm != "" {
			*w.out = append(*w.out, Symbol{Name: nm, Kind: kindOf(d), Parent: parent,
				StartLine: int(d.StartPosition().Row) + 1, EndLine: int(d.EndPosition().Row) + 1})
		}
	}
	return decision{}, false
}

// ---- Python ----

var pySpec = &spec{
	containers: set("block", "if_statement", "else_clause", "try_statement", "except_clause", "finally_clause"),
	wrappers:   set("decorated_definition"),
	attrs:      set("decorator"),
	classify: func(w *walker, n *ts.Node, kind, parent string, inType bool) (decision, bool) {
		name := w.text(n.ChildByFieldName("name"))
		switch kind {
		case "class_definition":
			return decision{kind: KindClass, name: name, descend: true, inType: true}, true
		case "function_definition":
			if inType {
				return decision{kind: KindMethod, name: name}, true
			}
			return decision{kind: KindFunction, name: name}, true
		case "expression_statement":
			if parent != "" || inType || n.NamedChildCount() != 1 {
				return decision{}, false
			}
			a := n.NamedChild(0)
			if a == nil || a.Kind() != "assignment" {
				return decision{}, false
			}
			left := a.ChildByFieldName("left")
			if left == nil || left.Kind() != "identifier" {
				return decision{}, false
			}
			nm := w.text(left)
			k := KindVar
			if nm == strings.ToUpper(nm) && strings.ContainsAny(nm, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") {
				k = KindConst
			}
			if right := a.ChildByFieldName("type"); right != nil && w.text(right) == "TypeAlias" {
				k = KindType
			}
			return decision{kind: k, name: nm}, true
		case "type_alias_statement":
			return decision{kind: KindType, name: w.text(n.ChildByFieldName("left"))}, true
		}
		return decision{}, false
	},
}

// ---- Java ----

var javaSpec = &spec{
	containers: set("class_body", "interface_body", "enum_body", "enum_body_declarations", "annotation_type_body"),
	attrs:      set(),
	classify: func(w *walker, n *ts.Node, kind, parent string, inType bool) (decision, bool) {
		name := w.text(n.ChildByFieldName("name"))
		switch kind {
		case "class_declaration", "record_declaration":
			return decision{kind: KindClass, name: name, descend: true, inType: true}, true
		case "interface_declaration", "annotation_type_declaration":
			return decision{kind: KindInterface, name: name, descend: true, inType: true}, true
		case "enum_declaration":
			return decision{kind: KindEnum, name: name, descend: true, inType: true}, true
		case "method_declaration", "constructor_declaration", "compact_constructor_declaration":
			return decision{kind: KindMethod, name: name}, true
		case "field_declaration", "constant_declaration":
			d := n.ChildByFieldName("declarator")
			k := KindVar
			if mods := n.NamedChild(0); mods != nil && mods.Kind() == "modifiers" {
				t := w.text(mods)
				if strings.Contains(t, "static") && strings.Contains(t, "final") {
					k = KindConst
				}
			}
			if kind == "constant_declaration" {
				k = KindConst
			}
			return decision{kind: k, name: w.text(d.ChildByFieldName("name"))}, d != nil
		}
		return decision{}, false
	},
}

// ---- Rust ----

var rustSpec = &spec{
	containers: set("declaration_list"),
	attrs:      set("attribute_item", "inner_attribute_item"),
	classify: func(w *walker, n *ts.Node, kind, parent string, inType bool) (decision, bool) {
		name := w.text(n.ChildByFieldName("name"))
		switch kind {
		case "function_item", "function_signature_item":
			if inType {
				return decision{kind: KindMethod, name: name}, true
			}
			return decision{kind: KindFunction, name: name}, true
		case "struct_item", "union_item":
			return decision{kind: KindStruct, name: name}, true
		case "enum_item":
			return decision{kind: KindEnum, name: name}, true
		case "trait_item":
			return decision{kind: KindInterface, name: name, descend: true, inType: true}, true
		case "type_item":
			return decision{kind: KindType, name: name}, true
		case "const_item":
			return decision{kind: KindConst, name: name}, true
		case "static_item":
			return decision{kind: KindVar, name: name}, true
		case "mod_item":
			return decision{kind: KindModule, name: name, descend: true}, true
		case "macro_definition":
			return decision{kind: KindFunction, name: name}, true
		case "impl_item":
			t := cleanName(w.text(n.ChildByFieldName("type")))
			return decision{noSymbol: true, descend: true, inType: true, parent: join(parent, t)}, t != ""
		}
		return decision{}, false
	},
}

// ---- C and C++ ----

var cSpec = &spec{
	containers: set("preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif", "preproc_elifdef", "linkage_specification", "declaration_list", "field_declaration_list"),
	wrappers:   set("template_declaration"),
	attrs:      set("attribute_declaration"),
	classify: func(w *walker, n *ts.Node, kind, parent string, inType bool) (decision, bool) {
		switch kind {
		case "namespace_definition":
			return decision{kind: KindNamespace, name: cleanName(w.text(n.ChildByFieldName("name"))), descend: true}, true
		case "struct_specifier", "class_specifier", "union_specifier", "enum_specifier":
			return w.cRecord(n, kind, "")
		case "type_definition":
			nm := w.cDeclName(n.ChildByFieldName("declarator"))
			if t := n.ChildByFieldName("type"); t != nil && t.ChildByFieldName("body") != nil {
				d, _ := w.cRecord(t, t.Kind(), nm)
				d.span = n
				d.name = nm
				return d, nm != ""
			}
			return decision{kind: KindType, name: nm}, nm != ""
		case "alias_declaration":
			return decision{kind: KindType, name: w.text(n.ChildByFieldName("name"))}, true
		case "function_definition", "declaration", "field_declaration":
			if t := n.ChildByFieldName("type"); t != nil && t.ChildByFieldName("body") != nil && n.ChildByFieldName("declarator") == nil {
				d, ok := w.cRecord(t, t.Kind(), "")
				d.span = n
				return d, ok
			}
			decl := n.ChildByFieldName("declarator")
			if decl == nil {
				return decision{}, false
			}
			isFunc := kind == "function_definition" || w.cIsFunction(decl)
			if !isFunc && (kind == "field_declaration" || parent != "") {
				return decision{}, false // fields and locals are no symbols
			}
			full := w.cDeclName(decl)
			if full == "" {
				return decision{}, false
			}
			p, nm := "", full
			if i := strings.LastIndex(full, "."); i >= 0 {
				p, nm = full[:i], full[i+1:]
			}
			k := KindVar
			switch {
			case isFunc && (inType || p != ""):
				k = KindMethod
			case isFunc:
				k = KindFunction
			}
			d := decision{kind: k, name: nm}
			if p != "" {
				d.parent = join(parent, p)
			}
			return d, true
		case "preproc_def":
			if n.ChildByFieldName("value") == nil {
				return decision{}, false // an include guard or a flag
			}
			return decision{kind: KindConst, name: w.text(n.ChildByFieldName("name"))}, true
		case "preproc_function_def":
			return decision{kind: KindFunction, name: w.text(n.ChildByFieldName("name"))}, true
		}
		return decision{}, false
	},
}

func (w *walker) cRecord(t *ts.Node, kind, alias string) (decision, bool) {
	nm := cleanName(w.text(t.ChildByFieldName("name")))
	if nm == "" {
		nm = alias
	}
	if t.ChildByFieldName("body") == nil || nm == "" {
		return decision{}, false
	}
	k := KindStruct
	switch kind {
	case "class_specifier":
		k = KindClass
	case "enum_specifier":
		return decision{kind: KindEnum, name: nm}, true
	}
	return decision{kind: k, name: nm, descend: true, inType: true, span: t, of: t}, true
}

// cDeclName follows a C/C++ declarator to its name; a qualified name
// (Foo::bar) comes back dotted (Foo.bar).
func (w *walker) cDeclName(n *ts.Node) string {
	for i := 0; n != nil && i < maxDepth; i++ {
		switch n.Kind() {
		case "identifier", "field_identifier", "type_identifier", "operator_name", "destructor_name", "primitive_type":
			return w.text(n)
		case "qualified_identifier":
			var parts []string
			for _, p := range strings.Split(w.text(n), "::") {
				if p = cleanName(p); p != "" {
					parts = append(parts, p)
				}
			}
			return strings.Join(parts, ".")
		}
		next := n.ChildByFieldName("declarator")
		if next == nil && n.NamedChildCount() > 0 {
			next = n.NamedChild(0)
		}
		n = next
	}
	return ""
}

func (w *walker) cIsFunction(n *ts.Node) bool {
	for i := 0; n != nil && i < maxDepth; i++ {
		switch n.Kind() {
		case "function_declarator":
			return true
		case "init_declarator", "pointer_declarator", "reference_declarator", "parenthesized_declarator", "attributed_declarator":
			n = n.ChildByFieldName("declarator")
			if n == nil {
				return false
			}
		default:
			return false
		}
	}
	return false
}

// ---- C# ----

var csSpec = &spec{
	containers: set("declaration_list"),
	attrs:      set(),
	classify: func(w *walker, n *ts.Node, kind, parent string, inType bool) (decision, bool) {
		name := cleanName(w.text(n.ChildByFieldName("name")))
		switch kind {
		case "namespace_declaration", "file_scoped_namespace_declaration":
			return decision{kind: KindNamespace, name: name, descend: true}, true
		case "class_declaration", "record_declaration":
			return decision{kind: KindClass, name: name, descend: true, inType: true}, true
		case "struct_declaration", "record_struct_declaration":
			return decision{kind: KindStruct, name: name, descend: true, inType: true}, true
		case "interface_declaration":
			return decision{kind: KindInterface, name: name, descend: true, inType: true}, true
		case "enum_declaration":
			return decision{kind: KindEnum, name: name}, true
		case "delegate_declaration":
			return decision{kind: KindType, name: name}, true
		case "method_declaration", "constructor_declaration", "destructor_declaration", "local_function_statement":
			if kind == "destructor_declaration" {
				name = "~" + name
			}
			return decision{kind: KindMethod, name: name}, true
		}
		return decision{}, false
	},
}

// ---- Ruby ----

var rubySpec = &spec{
	containers: set("body_statement"),
	attrs:      set(),
	classify: func(w *walker, n *ts.Node, kind, parent string, inType bool) (decision, bool) {
		name := cleanName(w.text(n.ChildByFieldName("name")))
		switch kind {
		case "class":
			return decision{kind: KindClass, name: name, descend: true, inType: true}, true
		case "module":
			return decision{kind: KindModule, name: name, descend: true, inType: true}, true
		case "method":
			if inType {
				return decision{kind: KindMethod, name: name}, true
			}
			return decision{kind: KindFunction, name: name}, true
		case "singleton_method":
			return decision{kind: KindMethod, name: name}, true
		case "assignment":
			left := n.ChildByFieldName("left")
			if left != nil && left.Kind() == "constant" {
				return decision{kind: KindConst, name: w.text(left)}, true
			}
		}
		return decision{}, false
	},
}
