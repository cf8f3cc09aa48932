package memory

import (
	"bufio"
	"encoding/json"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/retrieve-dev/retrieve/workspace"
)

// Entity is an ontology node, normalized from any of the three formats.
type Entity struct {
	ID          string            `json:"id" yaml:"id"`
	Type        string            `json:"type" yaml:"type"`
	Label       string            `json:"label" yaml:"label"`
	Description string            `json:"description,omitempty" yaml:"description,omitempty"`
	Class       string            `json:"class,omitempty" yaml:"class,omitempty"`
	Dimensions  map[string]string `json:"dimensions,omitempty" yaml:"dimensions,omitempty"`
	SourceFiles []string          `json:"source_files,omitempty" yaml:"source_files,omitempty"`
}

// Relation is an ontology edge.
type Relation struct {
	From string `json:"from" yaml:"from"`
	Rel  string `json:"rel" yaml:"rel"`
	To   string `json:"to" yaml:"to"`
}

// Ontology is what .ontology/ holds.
type Ontology struct {
	Entities  map[string]*Entity
	Relations []Relation
	// Warnings name lines that could not be read.
	Warnings []string
}

// LoadOntology reads the ontology of a memory folder in every format
// seed-origins §3 lists:
//   - legacy entity lines in .ontology/instances/*.jsonl:
//     {"op":"create","entity":{"id","type","properties":{label, description, dimensions, source_files…}}}
//     (or the entity object itself);
//   - builder lines in .ontology/instances/instance.NNN.jsonl:
//     {"op","type","id","ts","props":{label, class, source_files…}};
//   - relations {from, rel, to} in .ontology/instances/_relations.*.jsonl, and synthesizer
//     relations {"op","type":"Relation","props":{from_id, to_id, relation_type}} in
//     .ontology/relations/_relations.NNN.jsonl.
//
// Later lines with the same id replace earlier ones ("update" merges the
// properties, "delete" removes the entity). Files are read in name order.
// It returns nil, nil when there is no ontology.
func LoadOntology(memDir string) (*Ontology, error) {
	ws, err := workspace.Open(memDir, nil)
	if err != nil {
		return nil, nil
	}
	defer ws.Close()
	return loadOntology(ws, OntologyDir)
}

// loadOntology reads the ontology folder base of a workspace.
func loadOntology(ws *workspace.FS, base string) (*Ontology, error) {
	if _, err := ws.Stat(base); err != nil {
		return nil, nil
	}
	o := &Ontology{Entities: map[string]*Entity{}}
	inst := jsonlFiles(ws, base+"/instances")
	rels := jsonlFiles(ws, base+"/relations")
	for _, f := range inst {
		name := path.Base(f)
		if strings.HasPrefix(name, "_") {
			if strings.HasPrefix(name, "_relations") {
				if err := o.readFile(ws, f, true); err != nil {
					return o, err
				}
			}
			continue
		}
		if err := o.readFile(ws, f, false); err != nil {
			return o, err
		}
	}
	for _, f := range rels {
		if err := o.readFile(ws, f, true); err != nil {
			return o, err
		}
	}
	return o, nil
}

// jsonlFiles lists the *.jsonl files of a folder, in name order.
func jsonlFiles(ws *workspace.FS, dir string) []string {
	ents, _ := ws.ReadDir(dir)
	var out []string
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".jsonl") {
			out = append(out, dir+"/"+e.Name())
		}
	}
	return out
}

func (o *Ontology) readFile(ws *workspace.FS, name string, relations bool) error {
	f, err := ws.Open(name)
	if err != nil {
		return fmt.Errorf("read %s: %w", path.Base(name), err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	line := 0
	for sc.Scan() {
		line++
		b := strings.TrimSpace(sc.Text())
		if b == "" {
			continue
		}
		var rec map[string]any
		if err := json.Unmarshal([]byte(b), &rec); err != nil {
			o.Warnings = append(o.Warnings, fmt.Sprintf("%s:%d: not JSON", path.Base(name), line))
			continue
		}
		if relations || isRelation(rec) {
			if r, ok := relationOf(rec); ok {
				if str(rec["op"]) == "delete" {
					o.removeRelation(r)
				} else {
					o.Relations = append(o.Relations, r)
				}
			}
			continue
		}
		o.apply(rec)
	}
	return sc.Err()
}

func isRelation(rec map[string]any) bool {
	if str(rec["type"]) == "Relation" {
		return true
	}
	_, from := rec["from"]
	_, to := rec["to"]
	return from && to
}

func relationOf(rec map[string]any) (Relation, bool) {
	if p, ok := rec["props"].(map[string]any); ok {
		r := Relation{From: str(p["from_id"]), To: str(p["to_id"]), Rel: str(p["relation_type"])}
		if r.From == "" {
			r.From = str(p["from"])
		}
		if r.To == "" {
			r.To = str(p["to"])
		}
		return r, r.From != "" && r.To != ""
	}
	r := Relation{From: str(rec["from"]), To: str(rec["to"]), Rel: str(rec["rel"])}
	if r.Rel == "" {
		r.Rel = str(rec["relation_type"])
	}
	return r, r.From != "" && r.To != ""
}

func (o *Ontology) removeRelation(r Relation) {
	out := o.Relations[:0]
	for _, x := range o.Relations {
		if !(x.From == r.From && x.To == r.To && (r.Rel == "" || x.Rel == r.Rel)) {
			out = append(out, x)
		}
	}
	o.Relations = out
}

func (o *Ontology) apply(rec map[string]any) {
	op := str(rec["op"])
	ent := rec
	if e, ok := rec["entity"].(map[string]any); ok {
		ent = e
	}
	id := str(ent["id"])
	if id == "" {
		return
	}
	if op == "delete" {
		delete(o.Entities, id)
		return
	}
	props, _ := ent["properties"].(map[string]any)
	if props == nil {
		props, _ = ent["props"].(map[string]any)
	}
	e := &Entity{ID: id, Type: str(ent["type"])}
	if old, ok := o.Entities[id]; ok && op == "update" {
		cp := *old
		e = &cp
		if t := str(ent["type"]); t != "" {
			e.Type = t
		}
	}
	if v, ok := props["label"]; ok {
		e.Label = str(v)
	}
	if v, ok := props["description"]; ok {
		e.Description = str(v)
	}
	if v, ok := props["class"]; ok {
		e.Class = str(v)
	} else if v, ok := props["node_type"]; ok {
		e.Class = str(v)
	}
	if d, ok := props["dimensions"].(map[string]any); ok {
		e.Dimensions = map[string]string{}
		for k, v := range d {
			e.Dimensions[k] = flatten(v)
		}
	}
	if v, ok := props["source_files"]; ok {
		e.SourceFiles = nil
		switch x := v.(type) {
		case []any:
			for _, s := range x {
				if s := str(s); s != "" {
					e.SourceFiles = append(e.SourceFiles, s)
				}
			}
		case string:
			e.SourceFiles = []string{x}
		}
	} else if v := str(props["source_file"]); v != "" {
		e.SourceFiles = []string{v}
	}
	o.Entities[id] = e
}

func str(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	default:
		return fmt.Sprint(x)
	}
}

func flatten(v any) string {
	switch x := v.(type) {
	case []any:
		parts := make([]string, 0, len(x))
		for _, p := range x {
			parts = append(parts, str(p))
		}
		return strings.Join(parts, ", ")
	default:
		return str(v)
	}
}

// EntityMatch is an entity found by a query, with its score in [0, 1].
type EntityMatch struct {
	Entity      *Entity  `json:"entity" yaml:"entity"`
	Score       float64  `json:"score" yaml:"score"`
	MatchFields []string `json:"match_fields" yaml:"match_fields"`
	// Hops is 0 for a direct match, n for an entity reached over n relations.
	Hops int `json:"hops" yaml:"hops"`
}

// Search scores every entity against the query (case-insensitive):
//   - whole query as a substring: label +1.0, description +0.5, each
//     dimension value +0.5, capped at 1.0 (the upstream search.py rule);
//   - otherwise per term: the same weights per term, averaged over the
//     terms, times 0.8 (a partial match never outranks a whole one);
//
// then walks the relations (undirected) breadth-first from the matches up to
// depth hops; a neighbor scores its seed's score × 0.5^hops.
func (o *Ontology) Search(query string, depth int) []EntityMatch {
	q := strings.ToLower(strings.TrimSpace(query))
	terms := strings.Fields(q)
	best := map[string]*EntityMatch{}
	for _, e := range o.Entities {
		score, fields := scoreEntity(e, q)
		if score == 0 && len(terms) > 1 {
			var sum float64
			var fs []string
			for _, t := range terms {
				s, f := scoreEntity(e, t)
				sum += s
				fs = append(fs, f...)
			}
			score = 0.8 * sum / float64(len(terms))
			fields = dedupe(fs)
		}
		if score > 0 {
			best[e.ID] = &EntityMatch{Entity: e, Score: score, MatchFields: fields}
		}
	}
	if depth > 0 && len(best) > 0 {
		adj := map[string][]string{}
		for _, r := range o.Relations {
			adj[r.From] = append(adj[r.From], r.To)
			adj[r.To] = append(adj[r.To], r.From)
		}
		frontier := make([]string, 0, len(best))
		for id := range best {
			frontier = append(frontier, id)
		}
		sort.Strings(frontier)
		for hop := 1; hop <= depth && len(frontier) > 0; hop++ {
			var next []string
			for _, id := range frontier {
				seed := best[id]
				for _, nb := range adj[id] {
					e, ok := o.Entities[nb]
					if !ok {
						continue
					}
					s := seed.Score * 0.5
					if cur, ok := best[nb]; ok {
						if cur.Score >= s {
							continue
						}
						cur.Score, cur.Hops = s, hop
						continue
					}
					best[nb] = &EntityMatch{Entity: e, Score: s, MatchFields: []string{"relation"}, Hops: hop}
					next = append(next, nb)
				}
			}
			frontier = next
		}
	}
	out := make([]EntityMatch, 0, len(best))
	for _, m := range best {
		out = append(out, *m)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].Entity.ID < out[j].Entity.ID
	})
	return out
}

func scoreEntity(e *Entity, q string) (float64, []string) {
	if q == "" {
		return 0, nil
	}
	var s float64
	var fields []string
	if strings.Contains(strings.ToLower(e.Label), q) {
		s += 1.0
		fields = append(fields, "label")
	}
	if strings.Contains(strings.ToLower(e.Description), q) {
		s += 0.5
		fields = append(fields, "description")
	}
	keys := make([]string, 0, len(e.Dimensions))
	for k := range e.Dimensions {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if strings.Contains(strings.ToLower(e.Dimensions[k]), q) {
			s += 0.5
			fields = append(fields, "dimensions."+k)
		}
	}
	return min(s, 1.0), fields
}

func dedupe(in []string) []string {
	seen := map[string]bool{}
	out := in[:0]
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
