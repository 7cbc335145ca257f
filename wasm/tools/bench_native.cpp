// bench_native <dir> [runs]: decodes each input written by write_bench_inputs natively, with the
// same sources the WASM module is built from, and prints JSON: per input its size, the median
// decode time of `runs` runs (default 7) and MB/s of input (MB = 1e6 bytes); plus a memcpy of each
// input's bytes, the native limit line. A warm-up run precedes the timed ones, and freed memory stays
// in the process (as in WASM), so runs after the first reuse pages already mapped.
#include <malloc.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

#include "formats/psg/psg.h"
#include "formats/psk/psa.h"
#include "formats/psk/psk.h"
#include "formats/ue1/ue1.h"
#include "formats/zeroad/pmd.h"
#include "formats/zeroad/pssa.h"
#include "model/model.h"

using namespace rs;

namespace {

std::vector<uint8_t> readAll(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

double nowMs() {
  using namespace std::chrono;
  return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

struct Result {
  std::string name;
  size_t bytes = 0;
  double decodeMs = 0, memcpyMs = 0;
  bool ok = true;
  std::string error;
};

// Times `decode` (which returns a Status) `runs` times after one warm-up; each run gets a fresh Model.
Result timeIt(const std::string& name, size_t bytes, int runs, const std::function<Status(Model&)>& decode,
              const std::vector<const std::vector<uint8_t>*>& inputs) {
  Result r;
  r.name = name;
  r.bytes = bytes;
  {
    Model m;
    Status s = decode(m);
    if (!s.ok()) {
      r.ok = false;
      r.error = s.error;
      return r;
    }
  }
  std::vector<double> t;
  for (int i = 0; i < runs; ++i) {
    Model m;
    double t0 = nowMs();
    decode(m);
    t.push_back(nowMs() - t0);
  }
  r.decodeMs = median(t);
  // memcpy of the same bytes into a destination touched once beforehand (as the decoder's outputs are new).
  std::vector<double> c;
  std::vector<uint8_t> dst(bytes, 1);
  volatile uint8_t sink = 0;
  for (int i = 0; i < runs; ++i) {
    double t0 = nowMs();
    size_t at = 0;
    for (const auto* in : inputs) {
      std::memcpy(dst.data() + at, in->data(), in->size());
      at += in->size();
    }
    c.push_back(nowMs() - t0);
    sink = sink + dst[bytes / 2];
  }
  r.memcpyMs = median(c);
  return r;
}

std::string jsonEscape(const std::string& s) {
  std::string o;
  for (char ch : s) {
    if (ch == '"' || ch == '\\')
      o += '\\', o += ch;
    else if (uint8_t(ch) < 0x20)
      o += ' ';
    else
      o += ch;
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_native <dir> [runs]\n");
    return 2;
  }
  // Keep freed memory in the heap, as the WASM module's allocator does: glibc otherwise hands every
  // large array back to the kernel and the next run pays a page fault per 4 KiB again, which on a
  // busy virtual machine made the native decoders look slower than the WASM ones.
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  const std::string dir = argv[1];
  const int runs = argc > 2 ? std::max(1, std::atoi(argv[2])) : 7;
  auto in = [&](const char* n) { return readAll(dir + "/" + n); };
  const std::vector<uint8_t> psk = in("bench.psk"), psa = in("bench.psa"), bigPsa = in("bench_big.psa"),
                             ue1d = in("bench_d.3d"), ue1a = in("bench_a.3d"), ucBytes = in("bench.uc"),
                             pmd = in("bench.pmd"), pssa = in("bench_pssa.psa"), psg = in("bench.psg");
  const std::string uc(ucBytes.begin(), ucBytes.end());
  if (psk.empty() || bigPsa.empty() || ue1a.empty() || pmd.empty() || psg.empty()) {
    std::fprintf(stderr, "bench_native: inputs missing in %s (run write_bench_inputs)\n", dir.c_str());
    return 1;
  }

  std::vector<Result> results;
  results.push_back(timeIt("psk", psk.size(), runs,
                           [&](Model& m) { return decodePsk(psk.data(), psk.size(), "bench.psk", m); }, {&psk}));
  results.push_back(timeIt("psa", psa.size(), runs,
                           [&](Model& m) { return decodePsa(psa.data(), psa.size(), "bench.psa", "", m); }, {&psa}));
  results.push_back(timeIt("psa_big", bigPsa.size(), runs,
                           [&](Model& m) { return decodePsa(bigPsa.data(), bigPsa.size(), "bench_big.psa", "", m); },
                           {&bigPsa}));
  results.push_back(timeIt("ue1", ue1d.size() + ue1a.size() + uc.size(), runs,
                           [&](Model& m) {
                             return decodeUe1(ue1d.data(), ue1d.size(), "bench_d.3d", ue1a.data(), ue1a.size(),
                                              "bench_a.3d", uc, "bench.uc", m);
                           },
                           {&ue1d, &ue1a, &ucBytes}));
  results.push_back(timeIt("pmd", pmd.size(), runs,
                           [&](Model& m) { return decodePmd(pmd.data(), pmd.size(), "bench.pmd", m); }, {&pmd}));
  results.push_back(timeIt("pssa", pssa.size(), runs,
                           [&](Model& m) { return decodePssa(pssa.data(), pssa.size(), "bench_pssa.psa", m); },
                           {&pssa}));
  results.push_back(timeIt("psg", psg.size(), runs,
                           [&](Model& m) { return decodePsg(psg.data(), psg.size(), "bench.psg", m); }, {&psg}));

  std::printf("{\n  \"runs\": %d,\n  \"inputs\": {\n", runs);
  for (size_t i = 0; i < results.size(); ++i) {
    const Result& r = results[i];
    std::printf("    \"%s\": {\"bytes\": %zu, \"ok\": %s, ", r.name.c_str(), r.bytes, r.ok ? "true" : "false");
    if (!r.ok) std::printf("\"error\": \"%s\", ", jsonEscape(r.error).c_str());
    std::printf("\"decodeMs\": %.4f, \"decodeMBps\": %.2f, \"memcpyMs\": %.4f, \"memcpyMBps\": %.2f}%s\n", r.decodeMs,
                r.decodeMs > 0 ? r.bytes / 1e3 / r.decodeMs : 0.0, r.memcpyMs,
                r.memcpyMs > 0 ? r.bytes / 1e3 / r.memcpyMs : 0.0, i + 1 < results.size() ? "," : "");
  }
  std::printf("  }\n}\n");
  bool allOk = true;
  for (const Result& r : results) allOk &= r.ok;
  return allOk ? 0 : 1;
}
