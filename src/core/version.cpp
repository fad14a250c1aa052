#include "core/version.hpp"

namespace numdecode {
const char* version() { return "0.1.0"; }
}  // namespace numdecode
