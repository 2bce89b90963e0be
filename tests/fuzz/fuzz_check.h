// FUZZ_CHECK: an invariant a fuzz target asserts on every input.
//
// Unlike assert() it stays on in release builds, and it prints the broken
// condition before aborting, so a libFuzzer run and a corpus replay stop at
// the same place with the same message.
#pragma once

#include <cstdio>
#include <cstdlib>

#define FUZZ_CHECK(cond)                                                              \
  do {                                                                                \
    if (!(cond)) {                                                                    \
      std::fprintf(stderr, "%s:%d: invariant broken: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                   \
    }                                                                                 \
  } while (0)
