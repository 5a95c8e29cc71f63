/* native.testing: what the tests use and users must not, compiled only
 * into test builds (gyp/binding.gyp's kdfpool_testing, which `npm run build`
 * turns on and the release prebuilds leave off). See testing.c. */
#ifndef NAPI_TESTING_H
#define NAPI_TESTING_H

#include "napi/env.h"

#ifdef KDFPOOL_TESTING
/* Defines exports.testing; NULL with an exception pending on failure. */
napi_value testing_register(napi_env env, napi_value exports);
#endif

#endif
