#!/usr/bin/env bash
# Installs what Rigscope needs on a fresh Debian machine, and nothing that is already there:
# Emscripten (Debian's 3.1.6), Chromium for browser tests, CMake/GoogleTest/clang for native
# tests and fuzzers, and the npm dependencies. Idempotent: a second run takes a second.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v emcc >/dev/null 2>&1 || need+=(emscripten)
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v cmake >/dev/null 2>&1 || need+=(cmake)
command -v g++ >/dev/null 2>&1 || need+=(g++)
command -v clang++ >/dev/null 2>&1 || need+=(clang)
# The C++ lint (scripts/lint-cpp.sh): Debian 12's clang-format and clang-tidy 14.
command -v clang-format >/dev/null 2>&1 || need+=(clang-format)
command -v clang-tidy >/dev/null 2>&1 || need+=(clang-tidy)
[ -f /usr/include/gtest/gtest.h ] || need+=(libgtest-dev)
# libFuzzer and the sanitizer runtimes for clang.
ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 || need+=(libclang-rt-14-dev)
# The MediaWiki extension's tests (tests/e2e/mediawiki.test.js): Debian's MediaWiki 1.39 and PHP,
# a throwaway wiki on SQLite served by `php -S` (Apache comes only with the recommended packages).
[ -f /usr/share/mediawiki/maintenance/install.php ] || need+=(mediawiki)
command -v php >/dev/null 2>&1 || need+=(php-cli)
# The wiki runs its commands (upload checks, posters) in firejail where it is installed, as an
# administrator's should: the tests run them so too.
command -v firejail >/dev/null 2>&1 || need+=(firejail)
for ext in pdo_sqlite intl mbstring dom; do
  php -m 2>/dev/null | grep -qix "$ext" || need+=("php-$(case $ext in pdo_sqlite) echo sqlite3 ;; dom) echo xml ;; *) echo $ext ;; esac)")
done

if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

# npm dependencies, as pinned by package-lock.json, when missing or older than the lock file.
# `npm install --no-save` rather than `npm ci`: npm 11 leaves other platforms' optional packages
# (rollup's native builds) out of the lock file, and `npm ci` then refuses it as out of sync.
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup: installing npm dependencies"
  npm install --no-save --no-audit --no-fund --loglevel=error
fi
