// Module customization hook (plain JavaScript: hooks load in their own thread, before any
// TypeScript loader can be relied on there). After tsx has compiled core/create-monitoring-api.ts,
// appends a few lines that wrap the exported factory, so every API the HTTP test suite creates
// records its answers. Nothing in the suite or in core changes.

const RECORDER = new URL('./recording-api.ts', import.meta.url).href;

/**
 * @param {string} url
 * @param {object} context
 * @param {(url: string, context: object) => Promise<{ format: string; source: string | ArrayBuffer | Uint8Array }>} nextLoad
 */
export async function load(url, context, nextLoad) {
  const result = await nextLoad(url, context);
  if (!url.split('?')[0].endsWith('/core/create-monitoring-api.ts')) return result;
  const source = typeof result.source === 'string' ? result.source : new TextDecoder().decode(result.source);
  // tsx (esbuild) emits `function createMonitoringApi(...)` and `export{createMonitoringApi}`: a
  // function declaration, hence a binding the appended code may reassign (importers see the new value).
  if (!/\bfunction createMonitoringApi\(/.test(source)) {
    throw new Error('openapi recorder: createMonitoringApi is no longer a function declaration; update test/openapi/recorder/hooks.mjs');
  }
  const wrap = `
import { recordingApi as __openapiRecordingApi } from ${JSON.stringify(RECORDER)};
{ const original = createMonitoringApi; createMonitoringApi = (options) => __openapiRecordingApi(original(options)); }
`;
  return { ...result, source: source + wrap };
}
