#include "common/status.h"

const char *kdf_strerror(int code) {
  switch (code) {
#define XX(name, value, msg) case KDF_##name: return msg;
    KDF_ERRNO_MAP(XX)
#undef XX
    default: return "unknown error";
  }
}

const char *kdf_errname(int code) {
  switch (code) {
#define XX(name, value, msg) case KDF_##name: return "KDF_" #name;
    KDF_ERRNO_MAP(XX)
#undef XX
    default: return "KDF_UNKNOWN";
  }
}
