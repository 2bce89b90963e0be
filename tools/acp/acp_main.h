// `buzz acp`: the agent harness (docs/reference/agents-and-cli.md Part A). Parses the
// configuration (flags over environment) and runs the harness loop.
#pragma once

namespace buzz::acp {

int run_acp(int argc, char** argv);

}  // namespace buzz::acp
