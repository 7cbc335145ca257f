// Content-based format detection: magic bytes first, size arithmetic for the headerless UE1
// files; the file name only breaks ties (".psa" is both Unreal and 0 A.D.), and lets a UE1 file
// with a plausible header but the wrong size (cut short) reach the decoder that explains it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace rs {

// Returns one of: "psk", "psa", "pmd", "pssa", "ue1-data", "ue1-anim", "psg", "pcx", "uc",
// "config", "unknown".
// `head` is the start of the file (64 KiB is plenty), `fileSize` its whole size: the front end
// sniffs a dropped file without reading all of it.
std::string detectFormat(const uint8_t* head, size_t headSize, size_t fileSize, const std::string& file);

}  // namespace rs
