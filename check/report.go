package check

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteTable writes the report as a table for a terminal: one row per
// citation, then a summary line.
func WriteTable(w io.Writer, r *Report) error {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tLINE\tSTATUS\tREFERENCE\tREASON")
	for _, f := range r.Findings {
		reason := f.Reason
		if f.Status == StatusOK {
			reason = "resolves"
			if f.Hash != "" {
				reason += ", hash matches"
			}
			if f.Quote != "" {
				reason += ", quote found"
			}
		}
		fmt.Fprintf(tw, "%d\t%d:%d\t%s\t%s\t%s\n", f.Index, f.Line, f.Column, strings.ToUpper(f.Status), f.Reference, reason)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if r.Omitted > 0 {
		fmt.Fprintf(w, "(%d findings left out to fit the message budget, ok ones first)\n", r.Omitted)
	}
	noun := "citations"
	if r.Citations == 1 {
		noun = "citation"
	}
	_, err := fmt.Fprintf(w, "%s: %d %s, %d ok, %d failed, %d refused\n", r.Document, r.Citations, noun, r.OK, r.Failed, r.Refused)
	return err
}

// WriteJSON writes the report as indented JSON.
func WriteJSON(w io.Writer, r *Report) error {
	if r.Findings == nil {
		r.Findings = []Finding{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// SARIF 2.1.0 (OASIS): the subset retrieve writes.
type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool    sarifTool     `json:"tool"`
	Results []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID               string       `json:"id"`
	ShortDescription sarifMessage `json:"shortDescription"`
}

type sarifMessage struct {
	Text string `json:"text"`
}

type sarifResult struct {
	RuleID    string          `json:"ruleId"`
	Level     string          `json:"level"`
	Message   sarifMessage    `json:"message"`
	Locations []sarifLocation `json:"locations"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           sarifRegion   `json:"region"`
}

type sarifArtifact struct {
	URI string `json:"uri"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn"`
}

var rules = []sarifRule{
	{RuleUnresolved, sarifMessage{"The cited reference does not resolve"}},
	{RuleHash, sarifMessage{"The hash the citation gives does not match the cited data"}},
	{RuleQuote, sarifMessage{"The quoted text is not in the cited span"}},
	{RuleRefused, sarifMessage{"The citation names a denied or outside-root source, which is never read"}},
	{RuleChanged, sarifMessage{"The cited retrieval's source changed since it was recorded"}},
}

// WriteSARIF writes the failing citations as a SARIF 2.1.0 log, for
// code-scanning annotations. version is retrieve's.
func WriteSARIF(w io.Writer, r *Report, version string) error {
	log := sarifLog{
		Schema:  "https://json.schemastore.org/sarif-2.1.0.json",
		Version: "2.1.0",
		Runs: []sarifRun{{
			Tool:    sarifTool{Driver: sarifDriver{Name: "retrieve", Version: version, InformationURI: "https://github.com/retrieve-dev/retrieve", Rules: rules}},
			Results: []sarifResult{},
		}},
	}
	for _, f := range r.Failing() {
		log.Runs[0].Results = append(log.Runs[0].Results, sarifResult{
			RuleID:  f.Rule,
			Level:   "error",
			Message: sarifMessage{Text: fmt.Sprintf("%s: %s", f.Reference, f.Reason)},
			Locations: []sarifLocation{{PhysicalLocation: sarifPhysical{
				ArtifactLocation: sarifArtifact{URI: r.Document},
				Region:           sarifRegion{StartLine: max(1, f.Line), StartColumn: max(1, f.Column)},
			}}},
		})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(log)
}

// JUnit XML, as read by CI systems (the Ant/Jenkins junit schema).
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Body    string `xml:",chardata"`
}

// WriteJUnit writes one test case per citation, failing ones with a
// <failure> naming the rule and the reason.
func WriteJUnit(w io.Writer, r *Report) error {
	s := junitSuite{Name: r.Document, Tests: r.Citations, Failures: r.Failed + r.Refused}
	for _, f := range r.Findings {
		c := junitCase{Name: fmt.Sprintf("%d:%d %s", f.Line, f.Column, f.Reference), Classname: r.Document}
		if f.Status != StatusOK {
			c.Failure = &junitFailure{Message: f.Reason, Type: f.Rule, Body: fmt.Sprintf("%s\ncode: %s\nhint: %s", f.Reason, f.Code, f.Hint)}
		}
		s.Cases = append(s.Cases, c)
	}
	doc := junitSuites{Name: "retrieve check", Tests: s.Tests, Failures: s.Failures, Suites: []junitSuite{s}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
