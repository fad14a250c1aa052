// Test helpers: the shared corpus (read in place), files, SHA-256, JSON manifests.
#pragma once
#include <openssl/evp.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

// GoogleTest prints parameters in test names and logs: a manifest case is shown by its name.
namespace nlohmann {
inline void PrintTo(const json& j, std::ostream* os) {
  *os << (j.is_object() && j.contains("name") ? j["name"].dump() : j.dump().substr(0, 60));
}
}  // namespace nlohmann

namespace testutil {

inline std::filesystem::path corpus_dir() { return std::filesystem::path(NUMDECODE_CORPUS_DIR); }

inline std::vector<uint8_t> read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + p.string());
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline nlohmann::json read_json(const std::filesystem::path& p) {
  auto bytes = read_file(p);
  return nlohmann::json::parse(bytes.begin(), bytes.end());
}

inline std::string sha256_hex(const uint8_t* data, size_t size) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data, size, md, &len, EVP_sha256(), nullptr);
  static const char* hex = "0123456789abcdef";
  std::string s;
  for (unsigned i = 0; i < len; ++i) {
    s += hex[md[i] >> 4];
    s += hex[md[i] & 15];
  }
  return s;
}

}  // namespace testutil
