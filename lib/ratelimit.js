'use strict';

// The IETF RateLimit fields (draft-ietf-httpapi-ratelimit-headers-11,
// sections 3 and 4) for a pool, with what the pool really knows:
//
//   RateLimit-Policy: "login";q=18;qu="concurrent-requests"
//   RateLimit: "login";r=0;t=2
//
// - The policy is named after the pool. Its quota `q` is the calls the pool
//   holds at once, running and waiting (threads + maxQueue), in the
//   draft's "concurrent-requests" unit: the pool bounds calls in flight, not
//   calls per window, so the policy has no window `w`.
// - `r` is the places left now (q less the busy threads and queued calls),
//   0 on a refusal; `t`, on a refusal only, is its Retry-After in seconds
//   (the draft: Retry-After must not be earlier than the end of `t`).
// Both are Structured Fields Lists of one Item, the policy name as a
// String (pool names are 1 to 7 of A-Za-z0-9_., nothing to escape).
//
// A refusal is made by the thousand per second exactly when a service is
// overloaded, so the capacity is read from stats() at most once a second
// (it changes only with configure()); `r` for a response that is not a
// refusal reads stats() each time.

const POLICY_UNIT = 'concurrent-requests';
// How long the capacity read for refusals is reused, ms.
const CAPACITY_TTL_MS = 1000;

const nonNegative = (n) => (Number.isFinite(n) && n > 0 ? Math.floor(n) : 0);

class RateLimitFields {
  #readStats;
  #name = '';
  #quota = 0;
  #policy = '';
  #readAt = -Infinity;

  // readStats: () => the pool's stats() (its name and capacity).
  constructor(readStats) {
    this.#readStats = readStats;
  }

  // The places the pool holds at once, and the used ones, from stats.
  #read() {
    const s = this.#readStats();
    this.#setPolicy(s.name, nonNegative(s.threads) + nonNegative(s.maxQueue));
    return nonNegative(s.busyThreads) + nonNegative(s.queued);
  }

  #setPolicy(name, q) {
    if (q !== this.#quota || name !== this.#name) {
      this.#name = name;
      this.#quota = q;
      this.#policy = `"${name}";q=${q};qu="${POLICY_UNIT}"`;
    }
    this.#readAt = Date.now();
  }

  #fresh() {
    if (Date.now() - this.#readAt < CAPACITY_TTL_MS) return;
    try {
      this.#read();
    } catch {
      // A closed pool: its refusals keep the last policy read.
      this.#readAt = Date.now();
    }
  }

  /** Adds both fields to a refusal's headers: r=0, t = its Retry-After. */
  addTo(headers) {
    this.#fresh();
    if (this.#policy === '') return;
    headers['ratelimit-policy'] = this.#policy;
    headers.ratelimit = `"${this.#name}";r=0;t=${headers['retry-after']}`;
  }

  /** Both fields for any other response: the places left now. */
  current() {
    const used = this.#read();
    return {
      'ratelimit-policy': this.#policy,
      ratelimit: `"${this.#name}";r=${Math.max(0, this.#quota - used)}`,
    };
  }
}

module.exports = { RateLimitFields };
