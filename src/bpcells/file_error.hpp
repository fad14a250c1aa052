// Errors about one array file of a matrix ("index_idx", "/mat@version"). The message begins with
// the file's name, as every BPCells message does; the name also travels on its own (file()), so
// that JS gives it as err.file (src/bindings/bpcells_bindings.cpp) instead of reading it back out
// of the text.
#pragma once
#include <string>
#include <string_view>
#include <utility>

#include "core/error.hpp"

namespace numdecode::bpcells {

class FileError : public DecodeError {
 public:
  FileError(std::string file, const std::string& message, ErrorKind kind)
      : DecodeError(message, kind), file_(std::move(file)) {}
  const std::string& file() const noexcept { return file_; }

 private:
  std::string file_;
};

// Throws FileError(file, message, kind); one copy of the throw for every fail_file below.
[[noreturn, gnu::noinline]] void throw_file_error(std::string_view file, const std::string& message, ErrorKind kind);

// Throws a FileError about `file` with the message "<named>: <parts joined as fail() joins them>";
// `named` is the file's own name, or its stream's when the message speaks of the stream's values
// ("index: value 7 at position ..." is about index_data). Out of line and cold: error paths stay out
// of the code that calls them.
template <class... Parts>
[[noreturn, gnu::noinline, gnu::cold]] void fail_file(ErrorKind kind, std::string_view file, std::string_view named, Parts&&... parts) {
  std::string out(named);
  out += ": ";
  (detail::append_part(out, parts), ...);
  throw_file_error(file, out, kind);
}

// fail_in("shape", a.count, " entries, expected 2") throws "shape: 3 entries, expected 2" about shape.
template <class... Parts>
[[noreturn]] void fail_in(std::string_view file, Parts&&... parts) {
  fail_file(ErrorKind::BadData, file, file, std::forward<Parts>(parts)...);
}

// The name of one of a stream's files: stream_file("index", "_idx") is "index_idx".
inline std::string stream_file(std::string_view stream, std::string_view suffix) {
  std::string out(stream);
  out += suffix;
  return out;
}

}  // namespace numdecode::bpcells
