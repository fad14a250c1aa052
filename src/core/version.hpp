// The library version, reported by buildInfo() in JS; kept equal to package.json "version"
// (a Jest test checks that the two agree).
#pragma once

namespace numdecode {
const char* version();
}  // namespace numdecode
