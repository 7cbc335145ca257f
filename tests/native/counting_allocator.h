// A counting allocator for the one test binary that includes this header (each native test is
// its own executable): gLive is the bytes alive now, gPeak the most alive at once, so a test can
// check the peak allocation of one decode against a budget.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <new>

static std::atomic<size_t> gLive{0}, gPeak{0};
static void* counted(size_t n) {
  void* p = std::malloc(n + 16);
  if (!p) throw std::bad_alloc();
  *static_cast<size_t*>(p) = n;
  size_t live = gLive += n;
  size_t peak = gPeak.load();
  while (live > peak && !gPeak.compare_exchange_weak(peak, live)) {
  }
  return static_cast<char*>(p) + 16;
}
static void uncounted(void* p) {
  if (!p) return;
  char* base = static_cast<char*>(p) - 16;
  gLive -= *reinterpret_cast<size_t*>(base);
  std::free(base);
}
void* operator new(size_t n) { return counted(n); }
void* operator new[](size_t n) { return counted(n); }
void operator delete(void* p) noexcept { uncounted(p); }
void operator delete[](void* p) noexcept { uncounted(p); }
void operator delete(void* p, size_t) noexcept { uncounted(p); }
void operator delete[](void* p, size_t) noexcept { uncounted(p); }
