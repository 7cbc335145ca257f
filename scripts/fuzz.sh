#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, AddressSanitizer + UBSan) from the same sources as the WASM
# module, seeds each with write_fuzz_seeds (the writers' fixtures plus structure-aware variants, in
# exactly the layout its harness reads), replays every committed regression input, then fuzzes each
# target for a while (as many at once as there are cores) and prints its executions and coverage
# (cov: edges, ft: features).
#   npm run fuzz                 10 minutes per target
#   npm run fuzz -- --seconds N  N seconds per target
#   scripts/fuzz.sh --ci         a short run per target (what npm test does)
#   --only "fuzz_psk fuzz_psa"   just these targets;  --build DIR  another build directory
#   --keep-corpus                continue from the previous run's corpus instead of the seeds alone
#   --jobs N                     targets fuzzed side by side (one core each; the machine's cores by default)
#   --build-only                 build the targets and the seed writers, fuzz nothing (npm test builds
#                                them with everything else, so its fuzz step only fuzzes)
# A crash, hang or leak is copied to tests/fuzz-regressions/<target>/ to be committed as a
# regression input (and fixed).
set -uo pipefail
cd "$(dirname "$0")/.."
seconds=600
only=""
build=build/fuzz
keep=0
build_only=0
jobs=$(nproc)
while [ $# -gt 0 ]; do
  case "$1" in
    --ci) seconds=${FUZZ_SECONDS:-10} ;;
    --build-only) build_only=1 ;;
    --seconds) seconds="$2"; shift ;;
    --only) only="$2"; shift ;;
    --build) build="$2"; shift ;;
    --keep-corpus) keep=1 ;;
    --jobs) jobs="$2"; shift ;;
  esac
  shift
done

# The fuzz targets alone, with line tables for the sanitizers' stack traces (full debug info
# doubled the compile time of the core for nothing a report uses).
fuzz_names=()
for src in wasm/fuzz/fuzz_*.cpp; do
  name=$(basename "$src" .cpp)
  if [ -n "$only" ] && [[ " $only " != *" $name "* ]]; then continue; fi
  fuzz_names+=("$name")
done
if ! CXX=clang++ cmake -S . -B $build -DCMAKE_BUILD_TYPE=None -DCMAKE_CXX_FLAGS="-O2 -gline-tables-only" \
     -DRIGSCOPE_FUZZ=ON >/dev/null \
   || ! cmake --build $build -j"$(nproc)" --target "${fuzz_names[@]}" >/dev/null; then
  echo "fuzz: 0 passed, 1 failed (build)"
  exit 1
fi

# Seeds: the fixtures as write_*_fixtures write them, shaped per target by write_fuzz_seeds. The
# writers need no sanitizer: they are the native build's own tools (scripts/build.sh builds them).
# One build at a time in that tree, as in scripts/build.sh.
tools=build/native
mkdir -p build
if ! (
  flock 9
  cmake -S . -B $tools -DCMAKE_BUILD_TYPE=Release >/dev/null &&
    cmake --build $tools -j"$(nproc)" --target write_fuzz_seeds $(cd wasm/tools && ls write_*_fixtures.cpp | sed 's/\.cpp$//') >/dev/null
) 9>build/.build.lock; then
  echo "fuzz: 0 passed, 1 failed (seed writers)"
  exit 1
fi
if [ $build_only -eq 1 ]; then
  echo "fuzz: ${#fuzz_names[@]} targets and their seed writers built"
  exit 0
fi
seeds=$build/seeds
rm -rf "$seeds" "$build/fixtures"
mkdir -p "$seeds" "$build/fixtures"
for tool in $tools/write_*_fixtures; do "$tool" "$build/fixtures" >/dev/null || exit 1; done
if ! $tools/write_fuzz_seeds "$build/fixtures" "$seeds" >/dev/null; then
  echo "fuzz: 0 passed, 1 failed (seeds)"
  exit 1
fi

# "cov: 123 ft: 456" from the first libFuzzer status line matching $2 (INITED, DONE) in log $1.
coverage() { grep -m1 -E "#[0-9]+[[:space:]]+$2 " "$1" | grep -oE 'cov: [0-9]+ ft: [0-9]+'; }

# One target: replays its committed regressions, fuzzes it, and writes its report lines to
# $build/<name>.report; returns non-zero when it failed.
fuzz_target() {
  local bin=$1 name corpus regressions ok=1 status runs seeded reached artifacts a
  name=$(basename "$bin")
  corpus=$build/corpus/$name
  regressions=tests/fuzz-regressions/$name
  [ $keep -eq 1 ] || rm -rf "$corpus"
  mkdir -p "$corpus" "$regressions"
  cp "$seeds/$name"/* "$corpus/" 2>/dev/null
  exec >"$build/$name.report"
  # Committed findings must stay fixed.
  if ls "$regressions"/* >/dev/null 2>&1; then
    if ! "$bin" -runs=0 -timeout=10 "$regressions"/* >"$build/$name.replay.log" 2>&1; then
      echo "fuzz: $name fails a committed regression input (see $build/$name.replay.log)"; ok=0
    fi
  fi
  local dict=()
  [ -f "wasm/fuzz/$name.dict" ] && dict=(-dict="wasm/fuzz/$name.dict")
  artifacts=$build/artifacts/$name/
  rm -rf "$artifacts"
  mkdir -p "$artifacts"
  "$bin" "$corpus" "${dict[@]}" -max_total_time="$seconds" -rss_limit_mb=1024 -malloc_limit_mb=512 -timeout=10 \
    -artifact_prefix="$artifacts" -print_final_stats=1 >"$build/$name.log" 2>&1
  status=$?
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$build/$name.log" | grep -o '[0-9]*$')
  seeded=$(coverage "$build/$name.log" INITED)
  reached=$(coverage "$build/$name.log" DONE)
  [ -n "$reached" ] || reached=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$build/$name.log" | tail -1)
  if [ $status -ne 0 ]; then
    ok=0
    for a in "$artifacts"*; do [ -f "$a" ] && cp "$a" "$regressions/"; done
    echo "fuzz: $name FOUND A PROBLEM after ${runs:-?} executions; inputs saved to $regressions/"
    grep -m3 -E 'ERROR|SUMMARY|runtime error' "$build/$name.log"
  fi
  echo "fuzz: $name ${runs:-0} executions in ${seconds}s, ${reached:-no coverage} (seeds: $(ls "$seeds/$name" | wc -l) inputs, ${seeded:-?}), corpus $(ls "$corpus" | wc -l) inputs"
  [ $ok -eq 1 ]
}

# A libFuzzer run is one process on one core: $jobs targets fuzz side by side, each for the full
# $seconds, so every target gets the executions it would get alone in a fraction of the wall time.
targets=()
for name in "${fuzz_names[@]}"; do targets+=("$build/$name"); done
running=0
for bin in "${targets[@]}"; do
  if [ $running -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
  ( fuzz_target "$bin"; echo $? >"$build/$(basename "$bin").status" ) &
  running=$((running + 1))
done
wait

passed=0; failed=0
for bin in "${targets[@]}"; do
  name=$(basename "$bin")
  cat "$build/$name.report"
  if [ "$(cat "$build/$name.status" 2>/dev/null)" = 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
done
echo "fuzz: $passed passed, $failed failed"
[ $failed -eq 0 ]
