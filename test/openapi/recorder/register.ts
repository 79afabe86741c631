/**
 * `node --import tsx --import ./test/openapi/recorder/register.ts --test test/api/*.test.ts`:
 * runs the HTTP test suite with every answer of every API it creates appended, one JSON line each,
 * to the file named by OPENAPI_RECORD_FILE (see recording-api.ts).
 */
import { register } from 'node:module';

if (process.env.OPENAPI_RECORD_FILE === undefined) throw new Error('openapi recorder: OPENAPI_RECORD_FILE is not set');
register('./hooks.mjs', import.meta.url);
