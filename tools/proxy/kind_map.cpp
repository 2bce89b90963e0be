#include "tools/proxy/kind_map.h"

namespace buzz::proxy {

uint16_t to_buzz(uint16_t kind) {
  switch (kind) {
    case 1: case 40: case 42: return 9;
    case 4: return 41001;
    case 41: case 44: return 40003;
    case 43: return 9005;
    default: return kind;
  }
}

uint16_t to_standard(uint16_t kind) {
  switch (kind) {
    case 9: case 40002: return 42;
    case 40003: return 41;
    case 41001: return 4;
    case 9005: return 43;
    default: return kind;
  }
}

bool accepted_inbound(uint16_t kind) { return kind == 1 || kind == 7 || kind == 41 || kind == 42; }
bool is_outbound_message(uint16_t kind) { return kind == 9 || kind == 40002 || kind == 40003; }
bool is_outbound_target(uint16_t kind) { return kind == 7 || kind == 5; }

}  // namespace buzz::proxy
