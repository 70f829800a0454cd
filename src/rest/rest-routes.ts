import type { AnyTRPCRouter } from '@trpc/server';
import { forEachOpenApiProcedure, getInputOutputParsers, getPathParameters, normalizePath } from 'trpc-to-openapi';
import type { HttpMeta } from '../procedures/http-meta.ts';
import { numericFieldsOf, unwrapOptional } from '../http/query-input.ts';
import { percentDecoded } from '../http/percent-decoded.ts';

export interface RestRoute {
  method: string;
  /** The path as the OpenAPI document writes it, e.g. /api/tasks/{id}: the route label of the metrics. */
  template: string;
  /** The procedure itself (the one /api/trpc reaches), looked up once here rather than on every request. */
  procedure: unknown;
  pattern: RegExp;
  pathParameters: string[];
  procedurePath: string;
  type: 'query' | 'mutation';
  http: HttpMeta;
  /** Whether the procedure takes input at all (`z.void()` takes none). */
  takesInput: boolean;
  /** Query parameters the input schema reads as numbers; their strings are converted first. */
  numericQueryParameters: Set<string>;
}

/** The REST routing table, built once from the procedures' OpenAPI meta. */
export function buildRestRoutes(router: AnyTRPCRouter): RestRoute[] {
  const routes: RestRoute[] = [];
  forEachOpenApiProcedure(router._def.procedures, ({ path, type, procedure, meta }) => {
    if (type === 'subscription') return;
    const openapiPath = normalizePath(meta.openapi.path);
    const pathParameters = getPathParameters(openapiPath);
    const { inputParser } = getInputOutputParsers(procedure);
    const inputType = unwrapOptional(inputParser as Parameters<typeof unwrapOptional>[0])?._zod?.def.type;
    const escaped = openapiPath.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
    routes.push({
      procedure,
      method: meta.openapi.method,
      template: openapiPath,
      pattern: new RegExp(`^${escaped.replace(/\\?\{(.+?)\\?\}/g, '([^/]+)')}$`),
      pathParameters,
      procedurePath: path,
      type,
      http: (meta as { http?: HttpMeta }).http ?? {},
      takesInput: inputType !== 'void',
      numericQueryParameters: numericFieldsOf(inputParser),
    });
  });
  return routes;
}

export interface RouteMatch {
  route: RestRoute;
  pathInput: Record<string, string>;
}

export function matchRoute(routes: readonly RestRoute[], method: string, pathname: string): RouteMatch | undefined {
  const wanted = method === 'HEAD' ? 'GET' : method;
  for (const route of routes) {
    if (route.method !== wanted) continue;
    const match = route.pattern.exec(pathname);
    if (!match) continue;
    const pathInput: Record<string, string> = {};
    route.pathParameters.forEach((name, index) => {
      pathInput[name] = percentDecoded(match[index + 1] ?? '');
    });
    return { route, pathInput };
  }
  return undefined;
}
