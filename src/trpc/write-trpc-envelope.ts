import type { ServerResponse } from 'node:http';
import { transformTRPCResponse, type AnyTRPCRouter } from '@trpc/server';
import { writeBody } from '../http/write-body.ts';

/** The end of a tRPC answer written without tRPC's handler: its envelope, as JSON, through the router's transformer. */
export function writeTrpcEnvelope(res: ServerResponse, router: AnyTRPCRouter, status: number, envelope: object): void {
  res.setHeader('Content-Type', 'application/json');
  writeBody(res, status, JSON.stringify(transformTRPCResponse(router._def._config, envelope as never)));
}
