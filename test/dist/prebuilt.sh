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
#       for that GOOS/GOARCH, with the same CGO_ENABLED and -tags as this
#       very build asks for, and that it holds each -X value of its
#       -ldflags (the version, full commit and commit date; with -trimpath
#       Go does not record -ldflags itself); a -static linux one has no ELF
#       interpreter.
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
    if [ -z "$goos" ] || [ -z "$goarch" ]; then die "$bin: no GOOS/GOARCH in its build info"; fi
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
  check() { [ "$2" = "$3" ] || die "$src: $1 is [$2], this build asks for [$3]"; }
  check GOOS "$(setting GOOS)" "$GOOS"
  check GOARCH "$(setting GOARCH)" "$GOARCH"
  check CGO_ENABLED "$(setting CGO_ENABLED)" "${CGO_ENABLED:-1}"
  check -tags "$(setting -tags)" "$want_tags"
  check -trimpath "$(setting -trimpath)" true
  # With -trimpath Go does not record -ldflags: each -X value (version,
  # full commit, commit date) must be in the binary's bytes instead.
  set -f
  for word in $want_ldflags; do
    case "$word" in
      *=*) value=${word#*=}
           LC_ALL=C grep -qaF -- "$value" "$src" || die "$src: has no \"$value\" (-X $word): built from another commit or version" ;;
    esac
  done
  set +f
  case "$want_ldflags" in
    *'-extldflags "-static"'*)
      if command -v readelf >/dev/null && readelf -l "$src" | grep -q INTERP; then die "$src: not static, this build links -static"; fi ;;
  esac
  mkdir -p "$(dirname "$out")"
  cp "$src" "$out"
  chmod 755 "$out"
  ;;
*)
  die "usage: prebuilt.sh collect DIR | build [go build flags] -o PATH MAIN"
  ;;
esac
