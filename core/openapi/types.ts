/**
 * The parts of an OpenAPI 3.1 document that this API's description uses. Deliberately narrow: the
 * document is built by createOpenApiDocument and read back by tests and tools, and these types keep
 * both honest without pulling in a third-party OpenAPI typing package.
 */
import type { JsonSchema } from '@valibot/to-json-schema';

export type { JsonSchema };

export interface Reference {
  $ref: string;
}

export interface HeaderObject {
  description: string;
  required?: boolean;
  schema: JsonSchema;
}

export interface ParameterObject {
  name: string;
  in: 'query' | 'header';
  description: string;
  required?: boolean;
  schema: JsonSchema;
}

export interface MediaTypeObject {
  schema: JsonSchema;
  examples?: Record<string, { summary?: string; value: unknown }>;
}

export interface ResponseObject {
  description: string;
  headers?: Record<string, HeaderObject | Reference>;
  content?: Record<string, MediaTypeObject>;
}

export interface RequestBodyObject {
  description: string;
  required: boolean;
  content: Record<string, MediaTypeObject>;
}

export interface OperationObject {
  operationId: string;
  summary: string;
  description: string;
  tags: string[];
  security: Record<string, string[]>[];
  /** The scope the key needs, or null when any valid key will do (`/me`). */
  'x-required-scope': string | null;
  parameters?: (ParameterObject | Reference)[];
  requestBody?: RequestBodyObject;
  responses: Record<string, ResponseObject | Reference>;
}

export type HttpMethod = 'get' | 'post' | 'delete';
export type PathItemObject = Partial<Record<HttpMethod, OperationObject>>;

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: {
    title: string;
    version: string;
    summary: string;
    description: string;
    license: { name: string; identifier: string };
  };
  servers: { url: string; description: string }[];
  tags: { name: string; description: string }[];
  paths: Record<string, PathItemObject>;
  components: {
    schemas: Record<string, JsonSchema>;
    responses: Record<string, ResponseObject>;
    parameters: Record<string, ParameterObject>;
    headers: Record<string, HeaderObject>;
    securitySchemes: Record<string, { type: 'http'; scheme: 'bearer'; description: string }>;
  };
  /**
   * The answers a request that matches no operation can get (wrong path, wrong method, before or
   * after authentication), by status. Not an OpenAPI field: OpenAPI only describes operations.
   */
  'x-unmatched-request-responses': Record<string, ResponseObject | Reference>;
}
