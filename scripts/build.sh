#!/usr/bin/env bash
# Builds the native tools and tests, the WebAssembly decoders, the demo model and the test fixtures.
set -euo pipefail
cd "$(dirname "$0")/.."
# Debian's emcc needs Debian's node modules (acorn) for optimised links.
export NODE_PATH=/usr/share/nodejs
jobs=$(nproc)
# One build at a time in this tree (several people or tools may call it at once).
mkdir -p build
exec 9>build/.build.lock
flock 9

cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/native -j"$jobs" >/dev/null

if [ ! -f build/wasm/CMakeCache.txt ]; then
  emcmake cmake -S . -B build/wasm -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build build/wasm -j"$jobs" >/dev/null

# The demo model and fixtures come from the project's own writers.
mkdir -p web/public/demo build/fixtures
build/native/write_demo web/public/demo
for tool in build/native/write_*_fixtures; do
  [ -x "$tool" ] && "$tool" build/fixtures
done
# The standalone page's template (Save page, rigscope page): the player with the WASM inline.
node scripts/build-standalone.mjs >/dev/null
echo "build: native, wasm ($(stat -c %s build/wasm/decoders.wasm) bytes), demo, fixtures and the standalone page template ready"
