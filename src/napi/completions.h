/* How a job ends: its promise is settled on its environment's JS thread,
 * woken through one threadsafe function (TSFN) per environment. See
 * completions.c. */
#ifndef NAPI_COMPLETIONS_H
#define NAPI_COMPLETIONS_H

#include "napi/env.h"
#include "napi/jobs.h"
#include "pool/pool.h"

/* Creates the environment's TSFN (unreferenced: an idle pool never keeps
 * the process alive). NULL with an exception pending on failure. */
napi_value completions_start(napi_env env, env_state *es);

/* setCompletionHandler(fn): lib/'s handler and the ArrayBuffer it reads
 * finished jobs from (returned; one per environment). */
napi_value completions_set_handler(napi_env env, env_state *es, napi_value fn);
/* Drops the references to lib/'s handler and memory (instance data free). */
void completions_forget_handler(napi_env env, env_state *es);

/* pool_job.done of every job: pool thread (or whichever thread ended it). */
void job_done(pool_job *base, int status);

/* JS thread: the job's promise is out in JS (the TSFN keeps the loop
 * alive while any is), or no longer is. */
void count_in_flight(napi_env env, env_state *es, job *j);
void uncount_job(napi_env env, env_state *es, job *j);

/* JS thread, on entry to submit, cancel, closePool and runSync: settles
 * the jobs whose wake-up failed, if no completion has come since. */
void drain_owed(napi_env env, env_state *es);

/* The environment is going away: finished jobs are freed unseen, from now
 * on as they finish. */
void completions_close(env_state *es);
/* Non-zero once completions_close() ran. */
int completions_closed(env_state *es);

#endif
