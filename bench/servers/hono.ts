// The peer to beat: Hono on @hono/node-server answering GET /v1/me with constant JSON (no
// authentication at all, so this flatters Hono).
import { serve } from '@hono/node-server';
import { Hono } from 'hono';

const data = { user_id: 1, key_id: 1, scopes: ['read', 'write'], expires_at: null };
const app = new Hono();
app.get('/v1/me', (c) => c.json({ success: true, data }));
const server = serve({ fetch: app.fetch, port: Number(process.env.PORT ?? 0), hostname: '127.0.0.1' }, (info) => {
  console.log(`listening on http://127.0.0.1:${info.port}/v1`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
