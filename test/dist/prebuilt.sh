#!/usr/bin/env bash
# Binaries built and checked on their own runners, packed by one GoReleaser
# run (GoReleaser OSS has no prebuilt builder; .goreleaser.yaml).
#
#   test/dist/prebuilt.sh collect DIR
#       copies the binaries of dist/ (from `goreleaser build`) to
#       DIR/<goos>_<goarch>/retrieve[.exe], as a build job uploads them;
#   RETRIEVE_PREBUILT=DIR test/dist/prebuilt.sh build [go build flags] -o PATH MAIN
#       what GoReleaser runs as the build `tool` when RETRIEVE_PREBUILT is
#       set: instead of compiling, it copies DIR/$GOOS_$GOARCH/retrieve to
#       PATH, after checking with `go version -m` that the binary was built
#       for that GOOS/GOARCH, with the same CGO_ENABLED, -tags and -ldflags
#       (so the same version, commit and date) as this very build asks for.
#       A mismatch fails the release; nothing is rebuilt silently.
set -euo pipefail

die() { echo "prebuilt.sh: $*" >&2; exit 1; }

case "${1:-}" in
collect)
  out=${2:?usage: prebuilt.sh collect DIR}
  n=0
  for bin in dist/*_*_*/retrieve dist/*_*_*/retrieve.exe; do
    [ -f "$bin" ] || continue
    meta=$(go version -m "$bin")
    goos=$(sed -n 's/^[[:space:]]*build[[:space:]]GOOS=//p' <<<"$meta")
    goarch=$(sed -n 's/^[[:space:]]*build[[:space:]]GOARCH=//p' <<<"$meta")
    [ -n "$goos" ] && [ -n "$goarch" ] || die "$bin: no GOOS/GOARCH in its build info"
    mkdir -p "$out/${goos}_$goarch"
    cp "$bin" "$out/${goos}_$goarch/"
    echo "$bin -> $out/${goos}_$goarch/$(basename "$bin")"
    n=$((n + 1))
  done
  [ "$n" -gt 0 ] || die "no binaries under dist/: run goreleaser build first"
  ;;
build)
  shift
  : "${RETRIEVE_PREBUILT:?prebuilt.sh build: RETRIEVE_PREBUILT names the folder of prebuilt binaries}"
  : "${GOOS:?}" "${GOARCH:?}"
  want_ldflags="" want_tags="" out=""
  while [ $# -gt 0 ]; do
    case "$1" in
      -ldflags=*) want_ldflags=${1#-ldflags=} ;;
      -tags=*) want_tags=${1#-tags=} ;;
      -o) out=$2; shift ;;
    esac
    shift
  done
  [ -n "$out" ] || die "no -o PATH in the build line"
  exe=retrieve; [ "$GOOS" = windows ] && exe=retrieve.exe
  src="$RETRIEVE_PREBUILT/${GOOS}_$GOARCH/$exe"
  [ -f "$src" ] || die "$src is missing: the ${GOOS}_$GOARCH build job did not upload it"
  meta=$(go version -m "$src")
  setting() { sed -n "s/^[[:space:]]*build[[:space:]]$1=//p" <<<"$meta"; }
  # go version -m quotes a value that has spaces, as Go's build info does.
  got_ldflags=$(setting -ldflags); got_ldflags=${got_ldflags#\"}; got_ldflags=${got_ldflags%\"}
  got_ldflags=${got_ldflags//\\\"/\"}
  check() { [ "$2" = "$3" ] || die "$src: $1 is [$2], this build asks for [$3]"; }
  check GOOS "$(setting GOOS)" "$GOOS"
  check GOARCH "$(setting GOARCH)" "$GOARCH"
  check CGO_ENABLED "$(setting CGO_ENABLED)" "${CGO_ENABLED:-1}"
  check -tags "$(setting -tags)" "$want_tags"
  check -ldflags "$got_ldflags" "$want_ldflags"
  check -trimpath "$(setting -trimpath)" true
  mkdir -p "$(dirname "$out")"
  cp "$src" "$out"
  chmod 755 "$out"
  ;;
*)
  die "usage: prebuilt.sh collect DIR | build [go build flags] -o PATH MAIN"
  ;;
esac
