#include "sha.h"
typedef int kdf_sha_arm_unused;
