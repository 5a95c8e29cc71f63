#include "common/status.h"

const char *status_message(int code) {
  switch (code) {
#define XX(name, value, msg) \
  case STATUS_##name:        \
    return msg;
    STATUS_MAP(XX)
#undef XX
    default:
      return "unknown error";
  }
}

const char *status_name(int code) {
  switch (code) {
#define XX(name, value, msg) \
  case STATUS_##name:        \
    return #name;
    STATUS_MAP(XX)
#undef XX
    default:
      return "UNKNOWN";
  }
}
