// The one place index/ includes CLucene (2.3.3.4, Debian's libclucene-dev).
//
// CLucene is wchar_t-based, reports failures by throwing CLuceneError, and its
// headers trip C++20 warnings (-Wdeprecated-enum-enum-conversion and friends);
// all three stay inside index/: the warnings are silenced here, and every
// CLucene call is wrapped so that no exception crosses the SearchIndex interface.
#pragma once

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-enum-enum-conversion"
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include <CLucene.h>
#include <CLucene/analysis/standard/StandardFilter.h>
#include <CLucene/analysis/standard/StandardTokenizer.h>
#include <CLucene/search/ConstantScoreQuery.h>
#include <CLucene/store/FSDirectory.h>
#include <CLucene/util/BitSet.h>
#pragma GCC diagnostic pop

namespace buzz::index {

// Field flags are separate enums that CLucene expects OR-ed into an int; doing
// it here keeps C++20's enum-enum warning out of the calling code.
template <class... Flags>
constexpr int field_flags(Flags... flags) {
  return (int(flags) | ...);
}

}  // namespace buzz::index
