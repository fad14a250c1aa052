#include "bpcells/file_error.hpp"

namespace numdecode::bpcells {

void throw_file_error(std::string_view file, const std::string& message, ErrorKind kind) {
  throw FileError(std::string(file), message, kind);
}

}  // namespace numdecode::bpcells
