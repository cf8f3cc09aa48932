#!/usr/bin/env bash
# The PDF quality corpus: real PDFs nobody on the team wrote, fetched
# reproducibly (test data of pinned Go modules from the module proxy, and
# PDFs of Debian documentation packages), measured against pdftotext
# (poppler, default mode): per document and as medians, word recall and
# precision (bag of words), whether text was yielded (every failure a typed
# error) and CPU time per page, ours against pdftotext.
#   bench/pdfcorpus.sh              (or make bench-pdf)
# Environment: PDFCORPUS (the cache directory, default
# ~/.cache/retrieve-pdfcorpus, outside the repository), RUNS (3: the fastest
# run of each counts), VERBOSE=1 lists the words we miss where recall < 0.97.
# docs/documents.md ("PDF quality") holds the table this printed.
set -euo pipefail
cd "$(dirname "$0")/.."
cache=${PDFCORPUS:-$HOME/.cache/retrieve-pdfcorpus}
runs=${RUNS:-3}
command -v pdftotext >/dev/null || { echo "bench/pdfcorpus.sh needs pdftotext: apt-get install -y poppler-utils" >&2; exit 2; }
mkdir -p "$cache/pdfs" "$cache/deb"

# Go modules shipping PDFs as test data (exact versions: the proxy serves these).
modules=(
  "github.com/pdfcpu/pdfcpu@v0.11.1 pkg/testdata"
  "github.com/go-pdf/fpdf@v0.9.0 pdf/reference"
  "github.com/digitorus/pdfsign@v0.0.0-20250819064552-5f74f69dda1d testfiles"
)
for m in "${modules[@]}"; do
  set -- $m
  dir=$(cd "$cache" && GOFLAGS=-mod=mod go mod download -json "$1" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  [ -n "$dir" ] || { echo "go mod download $1 failed" >&2; exit 1; }
  tag=$(basename "${1%@*}")
  find "$dir/$2" -name '*.pdf' | while read -r f; do
    rel=${f#"$dir/$2/"}
    cp -f "$f" "$cache/pdfs/$tag-${rel//\//-}"
  done
done

# Debian documentation packages that ship PDFs (downloaded, not installed), at
# the bookworm versions measured; the current version when that one is gone.
debs=(shared-mime-info=2.2-1 libtasn1-doc=4.19.0-2+deb12u1 r-doc-pdf=4.2.2.20221110-2 asymptote-doc=2.85+ds-1 gnuplot-doc=5.4.4+dfsg1-2)
(cd "$cache/deb" && for pv in "${debs[@]}"; do
  p=${pv%%=*}
  ls "$p"_*.deb >/dev/null 2>&1 && continue
  apt-get -q -o APT::Sandbox::User=root download "$pv" >/dev/null 2>&1 || apt-get -q -o APT::Sandbox::User=root download "$p" >/dev/null
done)
for deb in "$cache"/deb/*.deb; do
  x="$cache/deb/$(basename "$deb" .deb)"
  [ -d "$x" ] || dpkg-deb -x "$deb" "$x"
  tag=$(basename "$deb" | cut -d_ -f1)
  find "$x" -name '*.pdf' | while read -r f; do cp -f "$f" "$cache/pdfs/deb-$tag-$(basename "$f")"; done
done
chmod -R u+w "$cache/pdfs"
echo "corpus: $(ls "$cache/pdfs" | wc -l) PDFs in $cache/pdfs"
go run ./format/pdf/internal/pdfquality -runs "$runs" ${VERBOSE:+-v} "$cache/pdfs"
