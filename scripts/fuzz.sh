#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, AddressSanitizer + UBSan) from the same sources as the WASM
# module, seeds them with the project's writer output, replays every committed regression input,
# then fuzzes each target for a while.
#   npm run fuzz                 10 minutes per target
#   npm run fuzz -- --seconds N  N seconds per target
#   scripts/fuzz.sh --ci         a short run per target (what npm test does)
#   --only "fuzz_psk fuzz_psa"   just these targets;  --build DIR  another build directory
# A crash is copied to tests/fuzz-regressions/<target>/ to be committed as a regression input.
set -uo pipefail
cd "$(dirname "$0")/.."
seconds=600
only=""
build=build/fuzz
while [ $# -gt 0 ]; do
  case "$1" in
    --ci) seconds=${FUZZ_SECONDS:-15} ;;
    --seconds) seconds="$2"; shift ;;
    --only) only="$2"; shift ;;
    --build) build="$2"; shift ;;
  esac
  shift
done

if ! CXX=clang++ cmake -S . -B $build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRIGSCOPE_FUZZ=ON >/dev/null \
   || ! cmake --build $build -j"$(nproc)" >/dev/null; then
  echo "fuzz: 0 passed, 1 failed (build)"
  exit 1
fi

# Seeds: every fixture the writers produce, sorted to the target that reads its kind.
seeds=$build/seeds
rm -rf "$seeds"
mkdir -p "$seeds/all"
for tool in build/native/write_*_fixtures; do [ -x "$tool" ] && "$tool" "$seeds/all" >/dev/null; done
[ -x build/native/write_demo ] && build/native/write_demo "$seeds/all" >/dev/null
seed_for() {  # target -> seed files
  case "$1" in
    fuzz_psk) ls "$seeds"/all/*.psk* 2>/dev/null ;;
    fuzz_psa) grep -l '^ANIMHEAD' -a "$seeds"/all/*.psa 2>/dev/null ;;
    fuzz_pssa) grep -l '^PSSA' -a "$seeds"/all/*.psa 2>/dev/null ;;
    fuzz_pmd) ls "$seeds"/all/*.pmd 2>/dev/null ;;
    fuzz_uc) ls "$seeds"/all/*.uc 2>/dev/null ;;
    fuzz_pcx) ls "$seeds"/all/*.pcx 2>/dev/null ;;
    fuzz_ue1) ls "$seeds"/all/*.3d 2>/dev/null ;;
    fuzz_psg|fuzz_psg_texture) ls "$seeds"/all/*.psg 2>/dev/null ;;
  esac
}

passed=0; failed=0
for bin in $build/fuzz_*; do
  [ -x "$bin" ] || continue
  name=$(basename "$bin")
  if [ -n "$only" ] && [[ " $only " != *" $name "* ]]; then continue; fi
  corpus=$build/corpus/$name
  regressions=tests/fuzz-regressions/$name
  mkdir -p "$corpus" "$regressions"
  # Small seeds only: libFuzzer explores far faster from a 1 KB file than from a 150 KB one.
  for s in $(seed_for "$name"); do [ "$(stat -c %s "$s")" -le 65536 ] && cp "$s" "$corpus/"; done
  ok=1
  # Committed crash inputs must stay fixed.
  if ls "$regressions"/* >/dev/null 2>&1; then
    if ! "$bin" -runs=0 "$regressions"/* >"$build/$name.replay.log" 2>&1; then
      echo "fuzz: $name fails a committed regression input (see $build/$name.replay.log)"; ok=0
    fi
  fi
  artifacts=$build/artifacts/$name/
  mkdir -p "$artifacts"
  "$bin" "$corpus" -max_total_time="$seconds" -rss_limit_mb=1024 -malloc_limit_mb=512 -timeout=10 \
    -artifact_prefix="$artifacts" -print_final_stats=1 >"$build/$name.log" 2>&1
  status=$?
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$build/$name.log" | grep -o '[0-9]*$')
  if [ $status -ne 0 ]; then
    ok=0
    for a in "$artifacts"*; do [ -f "$a" ] && cp "$a" "$regressions/"; done
    echo "fuzz: $name FOUND A PROBLEM after ${runs:-?} executions; inputs saved to $regressions/"
    grep -m3 -E 'ERROR|SUMMARY|runtime error' "$build/$name.log"
  fi
  echo "fuzz: $name ${runs:-0} executions in ${seconds}s, corpus $(ls "$corpus" | wc -l) inputs"
  if [ $ok -eq 1 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
done
echo "fuzz: $passed passed, $failed failed"
[ $failed -eq 0 ]
