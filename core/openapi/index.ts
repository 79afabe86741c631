/**
 * The OpenAPI 3.1 description of the v1 API, built from the schemas and routes that serve it.
 * `monitoring-api openapi` prints it; openapi.json at the package root is a committed copy.
 */
export {
  createOpenApiDocument,
  OPENAPI_DOCUMENT_VERSION,
  serializeOpenApiDocument,
  type OpenApiOptions,
} from './document.ts';
export { renderReference } from './reference.ts';
export type * from './types.ts';
