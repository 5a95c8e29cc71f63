/* native.faults (fault builds only): arms common/fault.c's injector from
 * JS, for test/faults.test.js.
 *   arm(n[, filter])  the n-th fault site reached from now fails, once
 *                     (only sites whose name contains `filter`, if given)
 *   disarm(), reset() (count back to 0, disarmed)
 *   count()           sites reached since reset
 *   injected()        failures injected since reset
 *   live()            allocations made through the wrappers, not yet freed
 *   lastInjected()    name of the site that failed last since reset, or null
 *   sites()           names of the sites reached so far (since load)
 *   allSites()        names of every site compiled in */
#ifdef KDFPOOL_FAULTS
#include "common/fault.h"
#include "napi/binding.h"

static napi_value number(napi_env env, double v) {
  napi_value result;
  NAPI_CALL(env, napi_create_double(env, v, &result), NULL);
  return result;
}

static napi_value js_arm(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  NAPI_CALL(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL), NULL);
  uint64_t n = 0;
  char filter[64] = "";
  size_t len;
  if (argc < 1 || get_u64(env, argv[0], &n) != 0 || n == 0) {
    napi_throw_range_error(env, "ERR_OUT_OF_RANGE", "arm(n): n must be a positive integer");
    return NULL;
  }
  napi_valuetype t = napi_undefined;
  if (argc > 1) napi_typeof(env, argv[1], &t);
  if (t == napi_string)
    NAPI_CALL(env, napi_get_value_string_utf8(env, argv[1], filter, sizeof filter, &len), NULL);
  fault_arm((unsigned long)n, filter);
  return NULL;
}

static napi_value js_disarm(napi_env env, napi_callback_info info) {
  (void)env;
  (void)info;
  fault_disarm();
  return NULL;
}

static napi_value js_reset(napi_env env, napi_callback_info info) {
  (void)env;
  (void)info;
  fault_reset();
  return NULL;
}

static napi_value js_count(napi_env env, napi_callback_info info) {
  (void)info;
  return number(env, (double)fault_count());
}

static napi_value js_injected(napi_env env, napi_callback_info info) {
  (void)info;
  return number(env, (double)fault_injected());
}

static napi_value js_live(napi_env env, napi_callback_info info) {
  (void)info;
  return number(env, (double)fault_live());
}

static napi_value js_last_injected(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value result;
  const char *name = fault_last_injected();
  if (name == NULL) {
    NAPI_CALL(env, napi_get_null(env, &result), NULL);
  } else {
    NAPI_CALL(env, napi_create_string_utf8(env, name, NAPI_AUTO_LENGTH, &result), NULL);
  }
  return result;
}

typedef struct {
  napi_env env;
  napi_value array;
  uint32_t len;
  int reached_only;
} site_list;

static void add_site(const fault_site *site, void *arg) {
  site_list *l = arg;
  if (l->reached_only && __atomic_load_n(&site->hits, __ATOMIC_RELAXED) == 0) return;
  napi_value name;
  if (napi_create_string_utf8(l->env, site->name, NAPI_AUTO_LENGTH, &name) == napi_ok)
    napi_set_element(l->env, l->array, l->len++, name);
}

static napi_value site_names(napi_env env, int reached_only) {
  site_list l = { env, NULL, 0, reached_only };
  NAPI_CALL(env, napi_create_array(env, &l.array), NULL);
  fault_each_site(add_site, &l);
  return l.array;
}

static napi_value js_sites(napi_env env, napi_callback_info info) {
  (void)info;
  return site_names(env, 1);
}

static napi_value js_all_sites(napi_env env, napi_callback_info info) {
  (void)info;
  return site_names(env, 0);
}

napi_value make_faults(napi_env env) {
  napi_value obj;
  NAPI_CALL(env, napi_create_object(env, &obj), NULL);
  napi_property_descriptor props[] = {
    { "arm", NULL, js_arm, NULL, NULL, NULL, napi_enumerable, NULL },
    { "disarm", NULL, js_disarm, NULL, NULL, NULL, napi_enumerable, NULL },
    { "reset", NULL, js_reset, NULL, NULL, NULL, napi_enumerable, NULL },
    { "count", NULL, js_count, NULL, NULL, NULL, napi_enumerable, NULL },
    { "injected", NULL, js_injected, NULL, NULL, NULL, napi_enumerable, NULL },
    { "live", NULL, js_live, NULL, NULL, NULL, napi_enumerable, NULL },
    { "lastInjected", NULL, js_last_injected, NULL, NULL, NULL, napi_enumerable, NULL },
    { "sites", NULL, js_sites, NULL, NULL, NULL, napi_enumerable, NULL },
    { "allSites", NULL, js_all_sites, NULL, NULL, NULL, napi_enumerable, NULL },
  };
  NAPI_CALL(env, napi_define_properties(env, obj, sizeof props / sizeof props[0], props), NULL);
  NAPI_CALL(env, napi_object_freeze(env, obj), NULL);
  return obj;
}
#else
typedef int faults_disabled;
#endif
