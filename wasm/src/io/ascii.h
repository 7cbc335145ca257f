// Names the formats compare without case: Unreal's object and package names, .uc keywords and
// file names written on Windows. ASCII only, as the engines fold them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace rs {

inline char lowerAscii(char c) { return (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : c; }

inline bool equalsNoCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (lowerAscii(a[i]) != lowerAscii(b[i])) return false;
  return true;
}

// Appends `s` unless it is empty or the list already holds it in any case (candidate names, tried in order).
inline void addUniqueNoCase(std::vector<std::string>& list, const std::string& s) {
  if (s.empty()) return;
  for (const std::string& e : list)
    if (equalsNoCase(e, s)) return;
  list.push_back(s);
}

}  // namespace rs
