'use strict';

// The `kdfpool/nestjs` entry: PoolRefusalFilter, a NestJS exception filter
// for kdfpool's refusals.
//
//   app.useGlobalFilters(new PoolRefusalFilter(app.get(HttpAdapterHost).httpAdapter));
//
// Nest's own filter answers an error shaped like http-errors' with its
// status and `{ statusCode, message }`, but drops its headers (no
// Retry-After) and logs its stack as an unknown error. This filter catches
// PoolSaturatedError and PoolClosedError, sets their headers, and answers
// the same body as a Nest HttpException, which Nest does not log: a 503
// (a full pool) or 429 (a client over its share) with Retry-After (a
// closed pool: 503, its message hidden as Nest hides a 5xx's). With a LocalStrategy of @nestjs/passport, validate()'s refusal
// reaches it through the AuthGuard.
//
// @nestjs/common and @nestjs/core are optional peer dependencies (ES
// modules since Nest 12: required through require(esm), Node >= 20.19 or
// 22.12), loaded when this entry is.

const { STATUS_CODES } = require('node:http');
const errors = require('../errors');

function load(name) {
  try {
    return require(name);
  } catch (err) {
    if (err && err.code === 'MODULE_NOT_FOUND' && String(err.message).includes(`'${name}'`)) {
      throw errors.missingPeer(name, 'kdfpool/nestjs');
    }
    throw err;
  }
}

const { Catch, HttpException } = load('@nestjs/common');
const { BaseExceptionFilter } = load('@nestjs/core');

/**
 * Answers PoolSaturatedError as 503 or 429 with Retry-After and
 * PoolClosedError as 503, with Nest's error body, unlogged. Construct it with the HTTP
 * adapter for app.useGlobalFilters(), or register it as APP_FILTER.
 */
class PoolRefusalFilter extends BaseExceptionFilter {
  catch(exception, host) {
    const status = exception.statusCode;
    const adapter = this.applicationRef || (this.httpAdapterHost && this.httpAdapterHost.httpAdapter);
    const response = host.getArgByIndex(1);
    if (adapter && host.getType() === 'http' && !adapter.isHeadersSent(response)) {
      for (const [name, value] of Object.entries(exception.headers || {})) adapter.setHeader(response, name, value);
    }
    const message = exception.expose ? exception.message : STATUS_CODES[status];
    return super.catch(new HttpException({ statusCode: status, message }, status, { cause: exception }), host);
  }
}

Catch(errors.PoolSaturatedError, errors.PoolClosedError)(PoolRefusalFilter);

module.exports = { PoolRefusalFilter };
