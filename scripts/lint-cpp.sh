#!/usr/bin/env bash
# C++ lint over wasm/ and tests/native: clang-format (.clang-format) must leave every file as it is,
# and clang-tidy (.clang-tidy: bug patterns, a few costly copies, no decoder function over 80
# lines) must find nothing. Ends with "lint-cpp: N passed, N failed" (two checks: format, tidy).
#   scripts/lint-cpp.sh            both checks (npm test runs this)
#   scripts/lint-cpp.sh --fix      reformat the files in place first
# clang-tidy reads the native build's compile_commands.json (scripts/build.sh makes it); the fuzz
# targets (built only with clang) and the Embind bindings (built only by Emscripten) get their flags
# here. Two processes in parallel: a two-core machine.
set -uo pipefail
cd "$(dirname "$0")/.."
passed=0
failed=0

mapfile -t files < <(git ls-files 'wasm/*.cpp' 'wasm/*.h' 'tests/native/*.cpp' 'tests/native/*.h')
if [ "${1:-}" = "--fix" ]; then clang-format -i "${files[@]}"; fi

if clang-format --dry-run --Werror "${files[@]}"; then
  passed=$((passed + 1))
else
  echo "lint-cpp: clang-format would change the files above (scripts/lint-cpp.sh --fix)"
  failed=$((failed + 1))
fi

if [ ! -f build/native/compile_commands.json ]; then
  cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
sysroot=/usr/share/emscripten/cache/sysroot/include
log=$(mktemp)
{
  git ls-files 'wasm/src/*.cpp' 'wasm/tools/*.cpp' | xargs -P2 -n6 clang-tidy -p build/native --quiet
  git ls-files 'wasm/fuzz/*.cpp' | xargs clang-tidy --quiet -- -std=c++17 -Iwasm/src
  clang-tidy --quiet wasm/bindings/bindings.cpp -- -std=c++17 -Iwasm/src --target=wasm32-unknown-emscripten \
    -D__EMSCRIPTEN__ -isystem "$sysroot/c++/v1" -isystem "$sysroot"
} >"$log" 2>&1
if grep -qE ': (error|warning):|error: ' "$log"; then
  grep -vE '^[0-9]+ warnings? generated\.$|^Suppressed |^Use -header-filter|^Error while processing' "$log"
  echo "lint-cpp: clang-tidy found the problems above"
  failed=$((failed + 1))
else
  passed=$((passed + 1))
fi
rm -f "$log"
echo "lint-cpp: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
