#!/usr/bin/env bash
# The office and e-book corpus of issue 27 (docs/documents.md, "Office files
# and e-books"): real files nobody on the team wrote, fetched reproducibly
# into a cache directory outside the repository, then compared against the
# references by bench/officecompare (a module of its own, so that excelize
# stays out of the main module's go.mod):
#
#   DOCX, ODT, EPUB  word recall and precision against `pandoc -t plain`
#   XLSX             cells against excelize's GetRows (formatted and raw)
#   PPTX, ODS, ODP   extracted without error (no reference in pandoc 2.17)
#
#   bash bench/officecorpus.sh            # fetch (once) and compare
#   OFFICE_CORPUS=/tmp/oc bash bench/officecorpus.sh
#   FETCH_ONLY=1 bash bench/officecorpus.sh
#
# Sources (pinned): Go modules from the module proxy (go mod download) and
# Debian bookworm packages (apt-get download; no install). Needs pandoc.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
cache=${OFFICE_CORPUS:-${XDG_CACHE_HOME:-$HOME/.cache}/retrieve-officecorpus}
files=$cache/files
mkdir -p "$cache/debs" "$cache/x" "$files"

modules=(
  github.com/xuri/excelize/v2@v2.11.1    # BSD-3-Clause: test/*.xlsx
  github.com/thedatashed/xlsxreader@v1.2.8 # MIT: test/*.xlsx
  github.com/gomutex/godocx@v0.1.5       # MIT: testdata/test.docx, templates/default.docx
)
debs=(
  r-cran-officer      # GPL-3: doc_examples/*.docx, *.pptx, template/*
  r-cran-readxl       # MIT: extdata/*.xlsx
  r-cran-openxlsx     # MIT: extdata/*.xlsx
  python3-docx        # MIT: templates/default.docx
  live-manual-epub    # GPL-3+: the Debian Live manual in 10 languages
  ubuntu-packaging-guide-epub # CC-BY-SA-3.0
  libreoffice-common  # MPL-2.0: templates (.ott, .otp), idxexample.odt, cl-test.ods
)

copy() { # copy SRC into $files/KIND/ under a name that says where it came from
  local src=$1 kind=$2 tag=$3
  mkdir -p "$files/$kind"
  cp -n "$src" "$files/$kind/$tag--$(basename "$src")" 2>/dev/null || true
}

if [ ! -e "$cache/.fetched" ]; then
  for m in "${modules[@]}"; do
    dir=$(go mod download -json "$m" | sed -n 's/.*"Dir": "\(.*\)",/\1/p')
    tag=$(basename "${m%@*}")
    find "$dir" -type f \( -name '*.xlsx' -o -name '*.docx' -o -name '*.pptx' \) | while read -r f; do
      case $f in *encrypt*) kind=encrypted ;; *.xlsx) kind=xlsx ;; *.docx) kind=docx ;; *.pptx) kind=pptx ;; esac
      copy "$f" "$kind" "$tag"
    done
  done
  (cd "$cache/debs" && apt-get download "${debs[@]}" >/dev/null 2>&1)
  for d in "$cache"/debs/*.deb; do
    p=$(basename "$d"); p=${p%%_*}
    mkdir -p "$cache/x/$p" && dpkg-deb -x "$d" "$cache/x/$p"
    find "$cache/x/$p" -type f -not -path '*/wizard/*' \( -name '*.xlsx' -o -name '*.docx' -o -name '*.pptx' -o -name '*.odt' -o -name '*.ott' \
      -o -name '*.ods' -o -name '*.otp' -o -name '*.epub' \) | while read -r f; do
      ext=${f##*.}
      case $ext in ott) ext=odt ;; otp) ext=odp ;; esac
      copy "$f" "$ext" "$p"
    done
  done
  # Larger DOCX and ODT with headings, lists and tables: e-books and an ODT
  # above rewritten by pandoc (the text is theirs, the layout pandoc's);
  # pandoc 2.17 cannot convert some of them (a link it cannot resolve).
  mkdir -p "$files/docx" "$files/odt"
  for e in "$files"/epub/*.epub "$files"/odt/*idxexample.odt; do
    b=$(basename "$e"); b=${b%.*}
    case $e in *.epub) from=epub ;; *) from=odt ;; esac
    pandoc -f $from -t docx -o "$files/docx/pandoc-made--$b.docx" "$e" 2>/dev/null || rm -f "$files/docx/pandoc-made--$b.docx"
    [ $from = epub ] && { pandoc -f epub -t odt -o "$files/odt/pandoc-made--$b.odt" "$e" 2>/dev/null || rm -f "$files/odt/pandoc-made--$b.odt"; }
  done
  touch "$cache/.fetched"
fi
find "$files" -type f | sort | sed "s|$files/||" > "$cache/list.txt"
echo "corpus: $(wc -l < "$cache/list.txt") files in $files" >&2
[ -n "${FETCH_ONLY:-}" ] && exit 0

cd "$here/bench/officecompare"
go run . "$files"
