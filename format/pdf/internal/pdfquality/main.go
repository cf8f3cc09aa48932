// Command pdfquality measures format/pdf against pdftotext (poppler) on a
// directory of PDFs: per document and as medians, the word recall and
// precision of our text against pdftotext's (bag of words), reading order
// (the share of pdftotext's consecutive word pairs that ours has too: a
// column read across, or a table read down, breaks pairs), whether text
// was yielded (every failure a typed error), and the CPU time per page of
// both. bench/pdfcorpus.sh fetches the corpus and runs it; docs/documents.md
// ("PDF quality") holds the table it printed.
//
//	go run ./format/pdf/internal/pdfquality [-runs 3] [-v] DIR
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"
	"unicode"

	"github.com/retrieve-dev/retrieve/format"
	"github.com/retrieve-dev/retrieve/format/pdf"
)

func main() {
	runs := flag.Int("runs", 3, "runs per document for the CPU times (the fastest counts)")
	verbose := flag.Bool("v", false, "print the words pdftotext has and we miss")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: pdfquality [-runs N] [-v] DIR")
		os.Exit(2)
	}
	files, _ := filepath.Glob(filepath.Join(flag.Arg(0), "*.pdf"))
	sort.Strings(files)
	var recalls, precisions, orders, ratios []float64
	withText, yielded := 0, 0
	var ourCPU, refCPU time.Duration
	fmt.Printf("%-44s %5s %7s %7s %7s %9s %9s %5s  %s\n", "document", "pages", "recall", "prec", "order", "ours/pg", "ptt/pg", "ratio", "note")
	for _, f := range files {
		ref, refT, refErr := pdftotext(f, *runs)
		refWords := words(ref)
		text, pages, ourT, err := ours(f, *runs)
		base := filepath.Base(f)
		if len(base) > 44 {
			base = base[:41] + "..."
		}
		hasText := refErr == nil && len(refWords) >= 20
		if hasText {
			withText++
		}
		if err != nil {
			typed := "UNTYPED"
			for _, s := range []error{format.ErrEncrypted, format.ErrNoText, format.ErrMalformed, format.ErrTooLarge, format.ErrUnsupported} {
				if errors.Is(err, s) {
					typed = "typed"
				}
			}
			note := err.Error()
			if len(note) > 90 {
				note = note[:90]
			}
			fmt.Printf("%-44s %5s %7s %7s %7s %9s %9s %5s  %s error: %s (pdftotext: %d words)\n", base, "-", "-", "-", "-", "-", "-", "-", typed, note, len(refWords))
			continue
		}
		if hasText {
			yielded++
		}
		got := words(text)
		rc, pr := overlap(refWords, got)
		ord, _ := overlap(pairs(ref), pairs(text))
		if pages == 0 {
			pages = 1
		}
		ourPg, refPg := ourT/time.Duration(pages), refT/time.Duration(pages)
		ratio := float64(ourT) / float64(max(refT, time.Microsecond))
		note := ""
		if !hasText {
			note = "no text layer per pdftotext: not counted"
		} else {
			recalls = append(recalls, rc)
			precisions = append(precisions, pr)
			orders = append(orders, ord)
			ratios = append(ratios, ratio)
			ourCPU += ourT
			refCPU += refT
		}
		fmt.Printf("%-44s %5d %7.3f %7.3f %7.3f %9s %9s %5.2f  %s\n", base, pages, rc, pr, ord, ourPg.Round(time.Microsecond), refPg.Round(time.Microsecond), ratio, note)
		if *verbose && hasText && rc < 0.97 {
			fmt.Printf("    missing: %s\n", strings.Join(missing(refWords, got, 40), " "))
		}
	}
	fmt.Printf("\nPDFs with a text layer (pdftotext gives >= 20 words): %d; yielded text: %d (%.1f%%)\n", withText, yielded, 100*float64(yielded)/float64(max(withText, 1)))
	fmt.Printf("median recall %.3f, median precision %.3f, median order %.3f, min recall %.3f\n", median(recalls), median(precisions), median(orders), minOf(recalls))
	fmt.Printf("CPU ours/pdftotext: median per document %.2fx, whole corpus %.2fx (%v vs %v)\n", median(ratios), float64(ourCPU)/float64(max(refCPU, 1)), ourCPU.Round(time.Millisecond), refCPU.Round(time.Millisecond))
}

func cpuNow() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func ours(path string, runs int) (string, int, time.Duration, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", 0, 0, err
	}
	best := time.Duration(1 << 62)
	var t *format.Text
	for i := 0; i < runs; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		start := cpuNow()
		t, err = pdf.New().Extract(ctx, bytes.NewReader(data), int64(len(data)), format.Options{})
		el := cpuNow() - start
		cancel()
		if err != nil {
			return "", 0, 0, err
		}
		best = min(best, el)
	}
	return t.Text, len(t.Parts), best, nil
}

func pdftotext(path string, runs int) (string, time.Duration, error) {
	best := time.Duration(1 << 62)
	var out []byte
	for i := 0; i < runs; i++ {
		cmd := exec.Command("pdftotext", path, "-")
		var buf bytes.Buffer
		cmd.Stdout = &buf
		if err := cmd.Run(); err != nil {
			return "", 0, err
		}
		out = buf.Bytes()
		best = min(best, cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
	}
	return string(out), best, nil
}

// pairs is the bag of consecutive word pairs of a text.
func pairs(s string) map[string]int {
	m := map[string]int{}
	prev := ""
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		w = strings.ToLower(w)
		if prev != "" {
			m[prev+" "+w]++
		}
		prev = w
	}
	return m
}

// words is the bag of words of a text: runs of letters and digits, lower
// case.
func words(s string) map[string]int {
	m := map[string]int{}
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		m[strings.ToLower(w)]++
	}
	return m
}

func overlap(ref, got map[string]int) (recall, precision float64) {
	common, nr, ng := 0, 0, 0
	for w, n := range ref {
		common += min(n, got[w])
		nr += n
	}
	for _, n := range got {
		ng += n
	}
	if nr == 0 || ng == 0 {
		return 0, 0
	}
	return float64(common) / float64(nr), float64(common) / float64(ng)
}

func missing(ref, got map[string]int, n int) []string {
	var out []string
	for w, c := range ref {
		if c > got[w] {
			out = append(out, fmt.Sprintf("%s(%d)", w, c-got[w]))
		}
	}
	sort.Strings(out)
	if len(out) > n {
		out = out[:n]
	}
	return out
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func minOf(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	m := xs[0]
	for _, x := range xs {
		m = min(m, x)
	}
	return m
}
