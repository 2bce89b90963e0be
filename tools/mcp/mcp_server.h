// `buzz mcp`: a Model Context Protocol server on stdio. Each line of stdin is
// one JSON-RPC 2.0 message and each answer one line of stdout (the MCP stdio
// transport); logs go to stderr, so stdout carries nothing but the protocol.
// The tools are the agent CLI's commands (tool_schema.h) run through one
// Session, which resolves auth as the CLI does, from the CLI's global flags
// (--relay, --token, --private-key, --pubkey) or their environment variables
// (BUZZ_RELAY_URL, BUZZ_API_TOKEN, BUZZ_PRIVATE_KEY, BUZZ_PUBKEY).
#pragma once

namespace buzz::mcp {

int run_mcp(int argc, char** argv);

}  // namespace buzz::mcp
