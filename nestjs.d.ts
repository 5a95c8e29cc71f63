// Types of the `kdfpool/nestjs` entry (lib/frameworks/nestjs.js). NestJS
// is an optional peer dependency and ships ES modules only: these types
// name nothing of it, so they compile under any TypeScript module setting;
// the filter is assignable to Nest's ExceptionFilter.

import type { PoolSaturatedError, PoolClosedError } from './index.js';

/** What the filter uses of Nest's ArgumentsHost. */
export interface RefusalHost {
  getType(): string;
  getArgByIndex(index: number): any;
}

/**
 * Answers PoolSaturatedError as 503 (a full pool) or 429 (a client over its
 * share) with Retry-After and PoolClosedError as 503, with Nest's error
 * body `{ statusCode, message }`, unlogged. It extends Nest's BaseExceptionFilter: `new PoolRefusalFilter(app.get(HttpAdapterHost).httpAdapter)`
 * for app.useGlobalFilters(), or the class as an APP_FILTER provider.
 */
export declare class PoolRefusalFilter {
  /** Nest's HTTP adapter (BaseExceptionFilter's applicationRef). */
  constructor(httpAdapter?: unknown);
  catch(exception: PoolSaturatedError | PoolClosedError, host: RefusalHost): void;
}
