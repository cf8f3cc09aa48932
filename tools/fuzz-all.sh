#!/bin/sh
# fuzz-all.sh runs every fuzz target of the module for FUZZTIME each (60s
# by default), one after the other, and stops at the first failure (the
# failing input is written to the package's testdata/fuzz/<Target>/: keep
# it as a seed once the cause is fixed). Usage: tools/fuzz-all.sh [FUZZTIME]
set -eu
cd "$(dirname "$0")/.."
time=${1:-${FUZZTIME:-60s}}
grep -rl --include='*_test.go' '^func Fuzz' . | sort | while read -r f; do
	dir=$(dirname "$f")
	for target in $(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' "$f"); do
		echo "== $dir $target ($time)"
		go test "$dir" -run '^$' -fuzz "^$target\$" -fuzztime "$time" -parallel "${FUZZPARALLEL:-1}"
	done
done
