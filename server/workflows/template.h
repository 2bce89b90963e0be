// Templates of workflow action fields (docs/reference/workflows.md §6): {{trigger.x}} and
// {{steps.ID.output.F}}, with the filters truncate(N) and truncate_pubkey.
// One left-to-right pass; substituted text is never rescanned; what does not
// resolve stays in the text as {{<trimmed expression>}}.
#pragma once

#include <string>
#include <string_view>

#include "engine/result.h"
#include "server/workflows/run_context.h"

namespace buzz::server {

// The rendered text, or "template error: …" (an unknown filter, a bad truncate argument).
engine::Result<std::string> render_template(std::string_view text, const RunContext& context);

}  // namespace buzz::server
