package ledger

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/retrieve-dev/retrieve/store"
)

// PROV-JSON (W3C Member Submission, 2013) of ledger entries:
//
//   - agent retrieve:agent (prov:SoftwareAgent), and the session's agent
//     when the export is a session's, on whose behalf retrieve acted;
//   - one activity per entry (retrieve:retrieval/<id>: a get, verify,
//     quote or an observe — a tool read of the agent's host), with its
//     start and end times, op, target and status;
//   - entities: the source (retrieve:source/<target>) the activity used,
//     the snapshot (retrieve:snapshot/<hex>, its sha256) it generated from
//     the source, and the citation (retrieve:citation/<id>, reference,
//     version, hash) it generated, derived from the snapshot and
//     attributed to the agent.

// provNS is the namespace of retrieve's PROV identifiers and attributes.
const provNS = "https://github.com/retrieve-dev/retrieve/blob/main/docs/ledger.md#prov-"

// PROVOptions describe the export.
type PROVOptions struct {
	// Producer is the retrieve build, Session the session exported ("" for
	// a range or a set of ids).
	Producer, Session string
}

type provDoc struct {
	Prefix            map[string]string         `json:"prefix"`
	Agent             map[string]map[string]any `json:"agent"`
	Activity          map[string]map[string]any `json:"activity"`
	Entity            map[string]map[string]any `json:"entity"`
	Used              map[string]map[string]any `json:"used"`
	WasGeneratedBy    map[string]map[string]any `json:"wasGeneratedBy"`
	WasDerivedFrom    map[string]map[string]any `json:"wasDerivedFrom"`
	WasAssociatedWith map[string]map[string]any `json:"wasAssociatedWith"`
	WasAttributedTo   map[string]map[string]any `json:"wasAttributedTo"`
	ActedOnBehalfOf   map[string]map[string]any `json:"actedOnBehalfOf,omitempty"`
}

func (d *provDoc) rel(m map[string]map[string]any, attrs map[string]any) {
	m[fmt.Sprintf("_:r%d", len(d.Used)+len(d.WasGeneratedBy)+len(d.WasDerivedFrom)+len(d.WasAssociatedWith)+len(d.WasAttributedTo)+len(d.ActedOnBehalfOf)+1)] = attrs
}

func provTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func typed(v, typ string) map[string]any { return map[string]any{"$": v, "type": typ} }

// PROV returns the PROV-JSON document of entries.
func PROV(entries []*store.Entry, o PROVOptions) (any, error) {
	d := &provDoc{
		Prefix:   map[string]string{"retrieve": provNS, "xsd": "http://www.w3.org/2001/XMLSchema#", "prov": "http://www.w3.org/ns/prov#"},
		Agent:    map[string]map[string]any{},
		Activity: map[string]map[string]any{}, Entity: map[string]map[string]any{},
		Used: map[string]map[string]any{}, WasGeneratedBy: map[string]map[string]any{}, WasDerivedFrom: map[string]map[string]any{},
		WasAssociatedWith: map[string]map[string]any{}, WasAttributedTo: map[string]map[string]any{},
	}
	const agent = "retrieve:agent"
	d.Agent[agent] = map[string]any{"prov:type": typed("prov:SoftwareAgent", "xsd:QName"), "prov:label": "retrieve", "retrieve:version": o.Producer}
	if o.Session != "" {
		sa := "retrieve:session/" + url.PathEscape(o.Session)
		d.Agent[sa] = map[string]any{"prov:type": typed("prov:SoftwareAgent", "xsd:QName"), "prov:label": "agent session " + o.Session}
		d.ActedOnBehalfOf = map[string]map[string]any{}
		d.rel(d.ActedOnBehalfOf, map[string]any{"prov:delegate": agent, "prov:responsible": sa})
	}
	for _, e := range entries {
		act := "retrieve:retrieval/" + url.PathEscape(e.ID)
		a := map[string]any{"prov:startTime": provTime(e.Time), "prov:endTime": provTime(e.Time.Add(e.Duration)),
			"prov:type": typed("retrieve:"+e.Op, "xsd:QName"), "retrieve:op": e.Op, "retrieve:target": e.Target, "retrieve:status": e.Status}
		if e.Code != "" {
			a["retrieve:error_code"] = e.Code
		}
		if e.Source != "" {
			a["retrieve:source"] = e.Source
		}
		d.Activity[act] = a
		d.rel(d.WasAssociatedWith, map[string]any{"prov:activity": act, "prov:agent": agent})
		src := "retrieve:source/" + url.PathEscape(e.Target)
		if d.Entity[src] == nil {
			d.Entity[src] = map[string]any{"prov:type": typed("retrieve:Source", "xsd:QName"), "prov:location": e.Target}
		}
		d.rel(d.Used, map[string]any{"prov:activity": act, "prov:entity": src, "prov:time": provTime(e.Time)})
		if e.Status != store.StatusOK {
			continue
		}
		var snap string
		if e.Snapshot != "" {
			snap = "retrieve:snapshot/" + strings.TrimPrefix(e.Snapshot, "sha256:")
			if d.Entity[snap] == nil {
				d.Entity[snap] = map[string]any{"prov:type": typed("retrieve:Snapshot", "xsd:QName"), "retrieve:sha256": e.Snapshot}
				d.rel(d.WasGeneratedBy, map[string]any{"prov:entity": snap, "prov:activity": act, "prov:time": provTime(e.Time)})
				d.rel(d.WasDerivedFrom, map[string]any{"prov:generatedEntity": snap, "prov:usedEntity": src, "prov:activity": act})
			}
		}
		cit := "retrieve:citation/" + url.PathEscape(e.ID)
		c := map[string]any{"prov:type": typed("retrieve:Citation", "xsd:QName"), "retrieve:reference": e.Reference,
			"retrieve:hash": e.Hash, "prov:generatedAtTime": provTime(e.Time)}
		if e.SourceHash != "" {
			c["retrieve:source_hash"] = e.SourceHash
		}
		if v := recordedVersion(e); v != "" {
			c["retrieve:version"] = v
		}
		d.Entity[cit] = c
		d.rel(d.WasGeneratedBy, map[string]any{"prov:entity": cit, "prov:activity": act, "prov:time": provTime(e.Time)})
		from := src
		if snap != "" {
			from = snap
		}
		d.rel(d.WasDerivedFrom, map[string]any{"prov:generatedEntity": cit, "prov:usedEntity": from, "prov:activity": act})
		d.rel(d.WasAttributedTo, map[string]any{"prov:entity": cit, "prov:agent": agent})
	}
	return d, nil
}

// recordedVersion is the citation's version in an entry's recorded result.
func recordedVersion(e *store.Entry) string {
	var r struct {
		Citation struct {
			Version *string `json:"version"`
		} `json:"citation"`
	}
	if json.Unmarshal(e.Result, &r) != nil || r.Citation.Version == nil {
		return ""
	}
	return *r.Citation.Version
}
