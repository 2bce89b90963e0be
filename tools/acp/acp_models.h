// `buzz acp models` (docs/reference/agents-and-cli.md §A.2.2): starts the agent, asks it
// initialize and session/new (10 s), prints the models it offers, stops it.
#pragma once

namespace buzz::acp {

int run_acp_models(int argc, char** argv);

}  // namespace buzz::acp
