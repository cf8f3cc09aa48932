package graph

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/retrieve-dev/retrieve"
)

// The upstream on-disk files.
type (
	graphFile struct {
		Nodes map[string]*Node `json:"nodes"`
		Edges []*exportEdge    `json:"edges"`
	}
	documentsFile struct {
		Documents map[string]*Document `json:"documents"`
	}
	indexFile struct {
		EntityIndex  map[string][]string `json:"entity_index"`
		KeywordIndex map[string][]string `json:"keyword_index"`
	}
	// exportEdge is an edge as upstream writes it (no unverified flag).
	exportEdge struct {
		Source         string     `json:"source"`
		Target         string     `json:"target"`
		Type           string     `json:"type"`
		Confidence     float64    `json:"confidence"`
		SourceDocument NullString `json:"source_document"`
		SupportingText NullString `json:"supporting_text"`
		ChunkID        NullString `json:"chunk_id"`
	}
)

// ImportInput names an upstream mini-context-graph folder: DIR/data/*.json
// (or the data folder itself) and DIR/wiki.
type ImportInput struct {
	Dir string `json:"dir"`
	// Progress, when set, is called as the import advances.
	Progress func(done, total int) `json:"-"`
}

// ImportOutput counts what the import added and merged.
type ImportOutput struct {
	Dir             string   `json:"dir"`
	DocumentsAdded  int      `json:"documents_added"`
	DocumentsKept   int      `json:"documents_kept"`
	NodesAdded      int      `json:"nodes_added"`
	NodesMerged     int      `json:"nodes_merged"`
	EdgesAdded      int      `json:"edges_added"`
	EdgesMerged     int      `json:"edges_merged"`
	EdgesUnverified int      `json:"edges_unverified"`
	Skipped         []string `json:"skipped"`
	WikiPages       int      `json:"wiki_pages"`
}

// MaxImportFileBytes caps each upstream JSON file.
const MaxImportFileBytes = 1 << 30

func readJSON(path string, v any) (bool, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, retrieve.Errorf(retrieve.CodePermissionDenied, "cannot read %s", path).WithErr(err)
	}
	if fi.Size() > MaxImportFileBytes {
		return false, retrieve.Errorf(retrieve.CodeTooLarge, "%s is larger than %d bytes", path, MaxImportFileBytes)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return false, retrieve.Errorf(retrieve.CodePermissionDenied, "cannot read %s", path).WithErr(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return false, retrieve.Errorf(retrieve.CodeParseFailed, "%s is not a mini-context-graph file: %v", path, err).
			WithHint("import a folder written by mini-context-graph or `retrieve graph export`").WithErr(err)
	}
	return true, nil
}

// ParseGraphFile parses data/graph.json.
func ParseGraphFile(b []byte) (map[string]*Node, []*Edge, error) {
	var g graphFile
	if err := json.Unmarshal(b, &g); err != nil {
		return nil, nil, retrieve.Errorf(retrieve.CodeParseFailed, "graph.json: %v", err).WithErr(err)
	}
	edges := make([]*Edge, 0, len(g.Edges))
	for _, e := range g.Edges {
		if e == nil {
			continue
		}
		edges = append(edges, &Edge{Source: e.Source, Target: e.Target, Type: e.Type, Confidence: e.Confidence,
			SourceDocument: e.SourceDocument, SupportingText: e.SupportingText, ChunkID: e.ChunkID})
	}
	for id, n := range g.Nodes {
		if n == nil {
			delete(g.Nodes, id)
			continue
		}
		n.ID = id
	}
	return g.Nodes, edges, nil
}

// Import reads the upstream files and merges them into the store:
// documents already there are kept, nodes merge by name (so re-importing
// adds nothing), edges by (source, target, type) keeping the higher
// confidence. Edges whose supporting text is not in their chunk are kept
// and flagged unverified; edges with an unknown endpoint are skipped and
// listed.
func (t *Tools) Import(ctx context.Context, in ImportInput) (*ImportOutput, error) {
	data, err := importDataDir(in.Dir)
	if err != nil {
		return nil, err
	}
	gb, err := os.ReadFile(filepath.Join(data, "graph.json"))
	if err != nil {
		return nil, retrieve.Errorf(retrieve.CodePermissionDenied, "cannot read graph.json").WithErr(err)
	}
	nodes, edges, err := ParseGraphFile(gb)
	if err != nil {
		return nil, err
	}
	var docs documentsFile
	if _, err := readJSON(filepath.Join(data, "documents.json"), &docs); err != nil {
		return nil, err
	}
	var onto Ontology
	hasOnto, err := readJSON(filepath.Join(data, "ontology.json"), &onto)
	if err != nil {
		return nil, err
	}
	im := &importer{t: t, out: &ImportOutput{Dir: in.Dir, Skipped: []string{}}, report: in.Progress,
		total: len(docs.Documents) + len(nodes) + len(edges)}
	chunkText, err := im.documents(ctx, docs.Documents)
	if err != nil {
		return nil, err
	}
	idMap, err := im.nodes(ctx, nodes)
	if err != nil {
		return nil, err
	}
	if err := im.edges(ctx, edges, idMap, chunkText); err != nil {
		return nil, err
	}
	if hasOnto {
		if onto.EntityTypes == nil {
			onto.EntityTypes = map[string]int{}
		}
		if onto.RelationTypes == nil {
			onto.RelationTypes = map[string]int{}
		}
		if _, err := t.Store.ApplyGraph(ctx, &Batch{SetOntology: &onto}); err != nil {
			return nil, err
		}
	}
	if t.Wiki != nil {
		n, err := t.Wiki.ImportDir(ctx, filepath.Join(in.Dir, "wiki"))
		if err != nil {
			return nil, err
		}
		im.out.WikiPages = n
	}
	return im.out, nil
}

// importDataDir is the folder of graph.json: dir/data, or dir itself.
func importDataDir(dir string) (string, error) {
	data := filepath.Join(dir, "data")
	if _, err := os.Stat(filepath.Join(data, "graph.json")); err == nil {
		return data, nil
	}
	if _, err := os.Stat(filepath.Join(dir, "graph.json")); err == nil {
		return dir, nil
	}
	return "", retrieve.Errorf(retrieve.CodePathNotFound, "no data/graph.json in %s", dir).
		WithHint("point at a mini-context-graph folder (with data/graph.json) or its data folder")
}

// importer is one Import's progress and counts; its methods are its steps.
type importer struct {
	t           *Tools
	out         *ImportOutput
	report      func(done, total int)
	done, total int
}

func (im *importer) progress(n int) {
	im.done += n
	if im.report != nil {
		im.report(im.done, im.total)
	}
}

// documents stores the documents, one transaction each, in id order, and
// returns the text of their chunks by chunk id.
func (im *importer) documents(ctx context.Context, docs map[string]*Document) (map[string]string, error) {
	chunkText := map[string]string{}
	for _, id := range sortedKeys(docs) {
		d := docs[id]
		if d == nil {
			continue
		}
		if d.ID == "" {
			d.ID = id
		}
		if d.Chunks == nil {
			d.Chunks = ChunkText(d.ID, d.Content)
		}
		for _, c := range d.Chunks {
			chunkText[c.ChunkID] = c.Text
		}
		ap, err := im.t.Store.ApplyGraph(ctx, &Batch{Document: d})
		if err != nil {
			return nil, err
		}
		if ap.DocumentAdded {
			im.out.DocumentsAdded++
		} else {
			im.out.DocumentsKept++
		}
		im.progress(1)
	}
	return chunkText, nil
}

// nodes merges the nodes by name into the store and returns the stored id
// of every upstream id.
func (im *importer) nodes(ctx context.Context, nodes map[string]*Node) (map[string]string, error) {
	names := make([]string, 0, len(nodes))
	for _, n := range nodes {
		n.Name = upstreamName(n.Name)
		n.Type = NormalizeType(n.Type)
		names = append(names, n.Name)
	}
	existing, err := im.t.Store.NodeIDsByName(ctx, names)
	if err != nil {
		return nil, err
	}
	idMap := map[string]string{}
	var batch []*Node
	for _, id := range sortedKeys(nodes) {
		n := nodes[id]
		if n.Name == "" {
			im.out.Skipped = append(im.out.Skipped, fmt.Sprintf("node %s: empty name", id))
			continue
		}
		if cur, ok := existing[n.Name]; ok {
			idMap[id] = cur
			n.ID = cur
			im.out.NodesMerged++
		} else {
			if id == "" || len(id) > 64 {
				n.ID = NodeID(n.Name)
			}
			idMap[id] = n.ID
			existing[n.Name] = n.ID
		}
		if n.SourceChunks == nil {
			n.SourceChunks = []string{}
		}
		batch = append(batch, n)
	}
	if err := im.renameTaken(ctx, nodes, batch, idMap); err != nil {
		return nil, err
	}
	for i := 0; i < len(batch); i += 1000 {
		part := batch[i:min(i+1000, len(batch))]
		ap, err := im.t.Store.ApplyGraph(ctx, &Batch{Nodes: part})
		if err != nil {
			return nil, err
		}
		im.out.NodesAdded += ap.NodesAdded
		im.progress(len(part))
	}
	return idMap, nil
}

// renameTaken gives a new node whose upstream id is taken by another name
// its own id.
func (im *importer) renameTaken(ctx context.Context, nodes map[string]*Node, batch []*Node, idMap map[string]string) error {
	var newIDs []string
	for _, n := range batch {
		newIDs = append(newIDs, n.ID)
	}
	taken, err := im.t.Store.GraphNodes(ctx, newIDs)
	if err != nil {
		return err
	}
	for upID, n := range nodes {
		if o, ok := taken[n.ID]; ok && o.Name != n.Name {
			n.ID = NodeID(n.Name)
			idMap[upID] = n.ID
		}
	}
	return nil
}

// edges stores the edges between known nodes, each flagged unverified
// when its supporting text is not in its chunk; an edge with an unknown
// endpoint is skipped and listed.
func (im *importer) edges(ctx context.Context, edges []*Edge, idMap, chunkText map[string]string) error {
	var ebatch []*Edge
	for i, e := range edges {
		src, ok1 := idMap[e.Source]
		tgt, ok2 := idMap[e.Target]
		if !ok1 || !ok2 {
			im.out.Skipped = append(im.out.Skipped, fmt.Sprintf("edge %d (%s --[%s]--> %s): unknown endpoint", i, e.Source, e.Type, e.Target))
			continue
		}
		e.Source, e.Target = src, tgt
		e.Unverified = e.SupportingText == "" || !ContainsEvidence(im.chunkText(ctx, chunkText, string(e.ChunkID)), string(e.SupportingText))
		if e.Unverified {
			im.out.EdgesUnverified++
		}
		ebatch = append(ebatch, e)
	}
	for i := 0; i < len(ebatch); i += 1000 {
		part := ebatch[i:min(i+1000, len(ebatch))]
		ap, err := im.t.Store.ApplyGraph(ctx, &Batch{Edges: part})
		if err != nil {
			return err
		}
		im.out.EdgesAdded += ap.EdgesAdded
		im.out.EdgesMerged += len(part) - ap.EdgesAdded
		im.progress(len(part))
	}
	im.progress(len(edges) - len(ebatch))
	return nil
}

// chunkText is the text of a chunk: imported now, else stored before.
func (im *importer) chunkText(ctx context.Context, imported map[string]string, id string) string {
	if text, ok := imported[id]; ok {
		return text
	}
	if c, err := im.t.Store.GraphChunks(ctx, []string{id}); err == nil {
		if ch, ok := c[id]; ok {
			return ch.Text
		}
	}
	return ""
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// ExportInput names the folder to write.
type ExportInput struct {
	Dir string `json:"dir"`
}

// ExportOutput counts what was written.
type ExportOutput struct {
	Dir       string `json:"dir"`
	Documents int    `json:"documents"`
	Nodes     int    `json:"nodes"`
	Edges     int    `json:"edges"`
	WikiPages int    `json:"wiki_pages"`
}

// Export writes the upstream files DIR/data/{graph,documents,index,ontology}.json
// and copies the wiki to DIR/wiki.
func (t *Tools) Export(ctx context.Context, in ExportInput) (*ExportOutput, error) {
	data := filepath.Join(in.Dir, "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		return nil, retrieve.Errorf(retrieve.CodePermissionDenied, "cannot create %s", data).WithErr(err)
	}
	out := &ExportOutput{Dir: in.Dir}
	g := graphFile{Nodes: map[string]*Node{}, Edges: []*exportEdge{}}
	idx := indexFile{EntityIndex: map[string][]string{}, KeywordIndex: map[string][]string{}}
	if err := t.Store.EachNode(ctx, func(n *Node) error {
		g.Nodes[n.ID] = n
		idx.EntityIndex[n.Name] = append(idx.EntityIndex[n.Name], n.ID)
		for _, tok := range uniq(Tokenize(n.Name)) {
			idx.KeywordIndex[tok] = append(idx.KeywordIndex[tok], n.ID)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	if err := t.Store.EachEdge(ctx, func(e *Edge) error {
		g.Edges = append(g.Edges, &exportEdge{e.Source, e.Target, e.Type, e.Confidence, e.SourceDocument, e.SupportingText, e.ChunkID})
		return nil
	}); err != nil {
		return nil, err
	}
	docs := documentsFile{Documents: map[string]*Document{}}
	if err := t.Store.EachDocument(ctx, func(d *Document) error {
		docs.Documents[d.ID] = d
		return nil
	}); err != nil {
		return nil, err
	}
	onto, err := t.Store.GraphOntology(ctx)
	if err != nil {
		return nil, err
	}
	for name, v := range map[string]any{"graph.json": g, "documents.json": docs, "index.json": idx, "ontology.json": onto} {
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return nil, retrieve.Errorf(retrieve.CodeInternal, "encode %s", name).WithErr(err)
		}
		if err := os.WriteFile(filepath.Join(data, name), append(b, '\n'), 0o644); err != nil {
			return nil, retrieve.Errorf(retrieve.CodePermissionDenied, "cannot write %s", filepath.Join(data, name)).WithErr(err)
		}
	}
	out.Documents, out.Nodes, out.Edges = len(docs.Documents), len(g.Nodes), len(g.Edges)
	if t.Wiki != nil {
		n, err := t.Wiki.ExportDir(filepath.Join(in.Dir, "wiki"))
		if err != nil {
			return nil, err
		}
		out.WikiPages = n
	}
	return out, nil
}

// StatsOutput is the size of the graph and its ontology.
type StatsOutput struct {
	Stats
	Ontology *Ontology `json:"ontology"`
}

// Stats counts the graph and returns the type ontology.
func (t *Tools) Stats(ctx context.Context) (*StatsOutput, error) {
	s, err := t.Store.GraphStats(ctx)
	if err != nil {
		return nil, err
	}
	o, err := t.Store.GraphOntology(ctx)
	if err != nil {
		return nil, err
	}
	return &StatsOutput{Stats: *s, Ontology: o}, nil
}

// FromResult fills in from a saved `retrieve get --json` result: its text
// data, its source and its citation.
func FromResult(b []byte, in *IngestInput) error {
	var r retrieve.Result
	if err := json.Unmarshal(b, &r); err != nil {
		return retrieve.Errorf(retrieve.CodeParseFailed, "the result is not a retrieve result: %v", err).
			WithHint("save one with `retrieve get TARGET --json > result.json`").WithErr(err)
	}
	if r.Error != nil {
		return retrieve.Errorf(retrieve.CodeInputValidation, "the result is a failure (%s)", r.Error.Code).WithHint("ingest a successful retrieval")
	}
	s, ok := r.Retrieved.Data.(string)
	if !ok || r.Citation.Hash == nil {
		return retrieve.Errorf(retrieve.CodeUnsupportedFormat, "the result's data is not text").
			WithHint("retrieve the document with --format text")
	}
	if sum := sha256.Sum256([]byte(s)); "sha256:"+hex.EncodeToString(sum[:]) != *r.Citation.Hash {
		return retrieve.Errorf(retrieve.CodeChanged, "the result's data does not match its citation hash").
			WithHint("ingest an unedited result, or use --file to retrieve the document again")
	}
	in.Content, in.Source, in.Reference, in.Hash, in.RetrievalID = s, r.Retrieved.Source, r.Citation.Reference, *r.Citation.Hash, r.RetrievalID
	return nil
}
