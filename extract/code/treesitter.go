//go:build cgo

package code

import (
	"runtime"
	"strings"
	"sync"
	"unsafe"

	ts "github.com/tree-sitter/go-tree-sitter"
	tsc "github.com/tree-sitter/tree-sitter-c-sharp/bindings/go"
	tsclang "github.com/tree-sitter/tree-sitter-c/bindings/go"
	tscpp "github.com/tree-sitter/tree-sitter-cpp/bindings/go"
	tsjava "github.com/tree-sitter/tree-sitter-java/bindings/go"
	tsjs "github.com/tree-sitter/tree-sitter-javascript/bindings/go"
	tspython "github.com/tree-sitter/tree-sitter-python/bindings/go"
	tsruby "github.com/tree-sitter/tree-sitter-ruby/bindings/go"
	tsrust "github.com/tree-sitter/tree-sitter-rust/bindings/go"
	tstypescript "github.com/tree-sitter/tree-sitter-typescript/bindings/go"
)

// treeSitterRuntime is set in a cgo build: the nine tree-sitter languages
// parse (in a build without cgo they are an UnsupportedError).
const treeSitterRuntime = true

// grammar is one tree-sitter language: loaded once, with its node kinds and
// field ids looked up once (the runtime's by-name calls copy the name into
// C memory each time), and a bounded pool of parsers.
type grammar struct {
	load     func() unsafe.Pointer
	spec     *spec
	once     sync.Once
	language *ts.Language
	kinds    []string
	fields   map[string]uint16
	pool     chan *ts.Parser
}

var grammarsByName = map[string]*grammar{
	"typescript": {load: tstypescript.LanguageTypescript, spec: tsSpec},
	"tsx":        {load: tstypescript.LanguageTSX, spec: tsSpec},
	"javascript": {load: tsjs.Language, spec: tsSpec},
	"python":     {load: tspython.Language, spec: pySpec},
	"java":       {load: tsjava.Language, spec: javaSpec},
	"rust":       {load: tsrust.Language, spec: rustSpec},
	"c":          {load: tsclang.Language, spec: cSpec},
	"cpp":        {load: tscpp.Language, spec: cSpec},
	"csharp":     {load: tsc.Language, spec: csSpec},
	"ruby":       {load: tsruby.Language, spec: rubySpec},
}

// allocator sets tree-sitter's allocator once, before the first parser.
var allocator sync.Once

func (g *grammar) init() {
	allocator.Do(useLibcAllocator)
	g.pool = make(chan *ts.Parser, runtime.GOMAXPROCS(0))
	g.language = ts.NewLanguage(g.load())
	n := g.language.NodeKindCount()
	g.kinds = make([]string, n)
	for id := uint32(0); id < n; id++ {
		g.kinds[id] = g.language.NodeKindForId(uint16(id))
	}
	g.fields = make(map[string]uint16)
	for id := uint32(1); id <= g.language.FieldCount(); id++ {
		g.fields[g.language.FieldNameForId(uint16(id))] = uint16(id)
	}
}

// parser returns a parser of the grammar from the pool, or a new one.
func (g *grammar) parser() (*ts.Parser, error) {
	g.once.Do(g.init)
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

// release returns p to the pool, or frees it when the pool is full.
func (g *grammar) release(p *ts.Parser) {
	select {
	case g.pool <- p:
	default:
		p.Close()
	}
}

// parseTreeSitter outlines src in one parse of the whole file.
func parseTreeSitter(lang string, src []byte) (*Outline, error) {
	return outlineTreeSitter(lang, src, true)
}

// outlineTreeSitter outlines src; with blank, a Python file's functions'
// bodies are blanked first (parsePython).
func outlineTreeSitter(lang string, src []byte, blank bool) (*Outline, error) {
	g := grammarsByName[lang]
	if g == nil {
		return nil, &UnsupportedError{Language: lang}
	}
	p, err := g.parser()
	if err != nil {
		return nil, &UnsupportedError{Language: lang}
	}
	defer g.release(p)
	o := &Outline{Language: lang, Symbols: []Symbol{}}
	var tree *ts.Tree
	if lang == "python" && blank {
		tree, src = parsePython(p, src)
	} else {
		tree = p.Parse(src, nil)
	}
	if tree == nil {
		// No tree: the runtime stops only on a timeout or a cancellation,
		// neither of which is set; an empty outline, marked as best effort.
		o.SyntaxErrors = true
		return o, nil
	}
	defer tree.Close()
	root := tree.RootNode()
	o.SyntaxErrors = root.HasError()
	w := &walker{g: g, spec: g.spec, src: src, out: &o.Symbols, cursor: root.Walk()}
	defer w.cursor.Close()
	w.walk(root, "", false, nil, 0)
	sortSymbols(o.Symbols)
	return o, nil
}

// parsePython parses Python with its functions' bodies blanked
// (blankPythonBodies), or as it is when they cannot be or when the blanked
// source has syntax errors (the scan then met what it does not follow, or
// the file has an error outside the bodies: the whole parse says which).
// It returns the tree and the source the tree is of.
func parsePython(p *ts.Parser, src []byte) (*ts.Tree, []byte) {
	if blank, ok := blankPythonBodies(src); ok {
		tree := p.Parse(blank, nil)
		if tree != nil && !tree.RootNode().HasError() {
			return tree, blank
		}
		if tree != nil {
			tree.Close()
		}
	}
	return p.Parse(src, nil), src
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
	g    *grammar
	spec *spec
	src  []byte
	out  *[]Symbol
	// cursor lists a node's children (one cursor for the whole walk: a
	// node's children are collected before any is walked).
	cursor *ts.TreeCursor
}

// kind is the node's type, from the grammar's table.
func (w *walker) kind(n *ts.Node) string {
	if id := int(n.KindId()); id < len(w.g.kinds) {
		return w.g.kinds[id]
	}
	return n.Kind()
}

// field is n's child in the named field, or nil (no such child, or no
// such field in the grammar).
func (w *walker) field(n *ts.Node, name string) *ts.Node {
	if n == nil {
		return nil
	}
	id, ok := w.g.fields[name]
	if !ok {
		return nil
	}
	return n.ChildByFieldId(id)
}

// namedKids lists n's named children in order.
func (w *walker) namedKids(n *ts.Node) []*ts.Node {
	w.cursor.Reset(*n)
	if !w.cursor.GotoFirstChild() {
		return nil
	}
	var kids []*ts.Node
	for {
		if c := w.cursor.Node(); c.IsNamed() {
			kids = append(kids, c)
		}
		if !w.cursor.GotoNextSibling() {
			return kids
		}
	}
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
	kids []*ts.Node
	i    int
}

func (s sibling) node() *ts.Node { return s.kids[s.i] }

func (w *walker) walk(n *ts.Node, parent string, inType bool, outer *sibling, depth int) {
	if depth > maxDepth {
		return
	}
	// One pass over the children with a cursor: NamedChild(i) costs
	// log(i) each.
	kids := w.namedKids(n)
	for i := range kids {
		w.visit(sibling{kids, i}, parent, inType, outer, depth)
	}
}

func (w *walker) visit(at sibling, parent string, inType bool, outer *sibling, depth int) {
	c := at.node()
	kind := w.kind(c)
	// An ERROR node is walked through: the declarations the parser
	// recovered inside it are still symbols (best effort, SyntaxErrors set).
	if w.spec.containers[kind] || kind == "ERROR" {
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
		body := w.field(of, "body")
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
		prev := at.kids[j]
		k := w.kind(prev)
		isComment := strings.Contains(k, "comment")
		if !isComment && !w.spec.attrs[k] {
			break
		}
		if prev.EndPosition().Row+1 < start {
			break // a blank line between
		}
		if j > 0 && isComment {
			before := at.kids[j-1]
			if before.EndPosition().Row == prev.StartPosition().Row && !strings.Contains(w.kind(before), "comment") {
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
		name := func() string { return w.text(w.field(n, "name")) }
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
			v := w.field(n, "value")
			if !inType || v == nil || (w.kind(v) != "arrow_function" && w.kind(v) != "function_expression") {
				return decision{}, false
			}
			nm := w.field(n, "name")
			if nm == nil {
				nm = w.field(n, "property")
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
		if c := n.NamedChild(i); c != nil && w.kind(c) == "variable_declarator" {
			decls = append(decls, c)
		}
	}
	if len(decls) == 0 {
		return decision{}, false
	}
	kind := KindVar
	if first := n.Child(0); first != nil && w.kind(first) == "const" {
		kind = KindConst
	}
	kindOf := func(d *ts.Node) string {
		if v := w.field(d, "value"); v != nil {
			switch w.kind(v) {
			case "arrow_function", "function_expression", "function", "generator_function":
				return KindFunction
			case "class":
				return KindClass
			}
		}
		return kind
	}
	nameOf := func(d *ts.Node) string {
		nm := w.field(d, "name")
		if nm == nil || w.kind(nm) != "identifier" {
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
		name := w.text(w.field(n, "name"))
		switch kind {
		case "class_definition":
			return decision{kind: KindClass, name: name, descend: true, inType: true}, true
		case "function_definition":
			if inType {
				return decision{kind: KindMethod, name: name}, true
			}
			return decision{kind: KindFunction, name: name}, true
		case "expression_statement":
			// A module-level assignment: X = 1, T: TypeAlias = int.
			if parent != "" || inType || n.NamedChildCount() != 1 {
				return decision{}, false
			}
			a := n.NamedChild(0)
			if a == nil || w.kind(a) != "assignment" {
				return decision{}, false
			}
			left := w.field(a, "left")
			if left == nil || w.kind(left) != "identifier" {
				return decision{}, false
			}
			nm := w.text(left)
			k := KindVar
			if nm == strings.ToUpper(nm) && strings.ContainsAny(nm, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") {
				k = KindConst
			}
			if right := w.field(a, "type"); right != nil && w.text(right) == "TypeAlias" {
				k = KindType
			}
			return decision{kind: k, name: nm}, true
		case "type_alias_statement":
			return decision{kind: KindType, name: w.text(w.field(n, "left"))}, true
		}
		return decision{}, false
	},
}

// ---- Java ----

var javaSpec = &spec{
	containers: set("class_body", "interface_body", "enum_body", "enum_body_declarations", "annotation_type_body"),
	attrs:      set(),
	classify: func(w *walker, n *ts.Node, kind, parent string, inType bool) (decision, bool) {
		name := w.text(w.field(n, "name"))
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
			d := w.field(n, "declarator")
			k := KindVar
			if mods := n.NamedChild(0); mods != nil && w.kind(mods) == "modifiers" {
				t := w.text(mods)
				if strings.Contains(t, "static") && strings.Contains(t, "final") {
					k = KindConst
				}
			}
			if kind == "constant_declaration" {
				k = KindConst
			}
			return decision{kind: k, name: w.text(w.field(d, "name"))}, d != nil
		}
		return decision{}, false
	},
}

// ---- Rust ----

var rustSpec = &spec{
	containers: set("declaration_list"),
	attrs:      set("attribute_item", "inner_attribute_item"),
	classify: func(w *walker, n *ts.Node, kind, parent string, inType bool) (decision, bool) {
		name := w.text(w.field(n, "name"))
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
			t := cleanName(w.text(w.field(n, "type")))
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
			return decision{kind: KindNamespace, name: cleanName(w.text(w.field(n, "name"))), descend: true}, true
		case "struct_specifier", "class_specifier", "union_specifier", "enum_specifier":
			return w.cRecord(n, kind, "")
		case "type_definition":
			nm := w.cDeclName(w.field(n, "declarator"))
			if t := w.field(n, "type"); t != nil && w.field(t, "body") != nil {
				d, _ := w.cRecord(t, w.kind(t), nm)
				d.span = n
				d.name = nm
				return d, nm != ""
			}
			return decision{kind: KindType, name: nm}, nm != ""
		case "alias_declaration":
			return decision{kind: KindType, name: w.text(w.field(n, "name"))}, true
		case "function_definition", "declaration", "field_declaration":
			if t := w.field(n, "type"); t != nil && w.field(t, "body") != nil && w.field(n, "declarator") == nil {
				d, ok := w.cRecord(t, w.kind(t), "")
				d.span = n
				return d, ok
			}
			decl := w.field(n, "declarator")
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
			if w.field(n, "value") == nil {
				return decision{}, false // an include guard or a flag
			}
			return decision{kind: KindConst, name: w.text(w.field(n, "name"))}, true
		case "preproc_function_def":
			return decision{kind: KindFunction, name: w.text(w.field(n, "name"))}, true
		}
		return decision{}, false
	},
}

func (w *walker) cRecord(t *ts.Node, kind, alias string) (decision, bool) {
	nm := cleanName(w.text(w.field(t, "name")))
	if nm == "" {
		nm = alias
	}
	if w.field(t, "body") == nil || nm == "" {
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
		switch w.kind(n) {
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
		next := w.field(n, "declarator")
		if next == nil && n.NamedChildCount() > 0 {
			next = n.NamedChild(0)
		}
		n = next
	}
	return ""
}

func (w *walker) cIsFunction(n *ts.Node) bool {
	for i := 0; n != nil && i < maxDepth; i++ {
		switch w.kind(n) {
		case "function_declarator":
			return true
		case "init_declarator", "pointer_declarator", "reference_declarator", "parenthesized_declarator", "attributed_declarator":
			n = w.field(n, "declarator")
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
		nameNode := w.field(n, "name")
		name := cleanName(w.text(nameNode))
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
		name := cleanName(w.text(w.field(n, "name")))
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
			left := w.field(n, "left")
			if left != nil && w.kind(left) == "constant" {
				return decision{kind: KindConst, name: w.text(left)}, true
			}
		}
		return decision{}, false
	},
}
