/**
 * The engine as an operator runs it: the compiled package in dist/ (bench/run.ts builds it first
 * when it is stale), as the API's figures are taken on dist/cli/main.js. Run from the TypeScript
 * sources instead, every function would carry the wrappers tsx's loader adds (it keeps function
 * names), a cost no installed copy pays (docs/performance.md, "How each figure is taken").
 * Typed by the sources, which dist/ is compiled from.
 */
import type * as Engine from '../engine/index.ts';

const engine = (await import(new URL('../dist/engine/index.js', import.meta.url).href)) as typeof Engine;

export const { createMonitoringEngine, createGuardedConnector, createWebhookDispatcher, ENGINE_DEFAULTS, webhookRequest } = engine;
