import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../../core/http/api-error.ts';
import { errorResponse, JSON_CONTENT_TYPE, toWebResponse } from '../../core/http/api-response.ts';
import { errors } from '../../core/http/errors.ts';
import { protocolErrors } from '../../core/http/protocol-errors.ts';
import type { RateLimitDecision, RateLimitPolicy } from '../../core/store/rate-limiter.ts';

/*
 * Every answer carries the header fields it needs in the error itself, so that no adapter or
 * server has to recognise a status to complete it. The tables below hold one entry per factory
 * and are checked to be complete: a new factory must say here which fields its answer carries.
 */

const policy: RateLimitPolicy = { limit: 120, windowSeconds: 60 };
const authPolicy: RateLimitPolicy = { limit: 30, windowSeconds: 60 };
const spent: RateLimitDecision = { allowed: false, limit: 120, remaining: 0, resetSeconds: 17 };
const left: RateLimitDecision = { allowed: true, limit: 120, remaining: 42, resetSeconds: 17 };
const CLOSE = { connection: 'close' };

const keyQuota = (remaining: number) => ({
  'ratelimit-policy': '"key";q=120;w=60',
  ratelimit: `"key";r=${remaining};t=17`,
  'ratelimit-limit': '120',
  'ratelimit-remaining': String(remaining),
  'ratelimit-reset': '17',
});

type Case = [ApiError, Record<string, string>];

const errorCases: Record<keyof typeof errors, Case> = {
  // docs/contract.md §2 step 1: every 401 carries the challenge.
  missingApiKey: [errors.missingApiKey(), { 'www-authenticate': 'Bearer realm="monitoring"' }],
  invalidApiKey: [errors.invalidApiKey(), { 'www-authenticate': 'Bearer realm="monitoring"' }],
  // docs/decisions.md §3: the key's quota, uncounted, and no Retry-After (the limiter did not refuse it).
  ipNotAllowed: [errors.ipNotAllowed(left, policy), keyQuota(42)],
  // RFC 6750 §3.1: the scope needed, in the challenge.
  insufficientScope: [
    errors.insufficientScope('write'),
    { 'www-authenticate': 'Bearer realm="monitoring", error="insufficient_scope", scope="write"' },
  ],
  // docs/engine.md, "Checks on demand": the wait, in whole seconds; the pipeline adds the key's quota.
  checkTooSoon: [errors.checkTooSoon(42), { 'retry-after': '42' }],
  recordPaused: [errors.recordPaused(), {}],
  // docs/contract.md §8: the quota, and Retry-After equal to t.
  rateLimited: [errors.rateLimited(spent, policy), { ...keyQuota(0), 'retry-after': '17' }],
  // docs/decisions.md §2: the address's throttle, the draft's fields only, and Retry-After.
  authThrottled: [
    errors.authThrottled({ allowed: false, limit: 30, remaining: 0, resetSeconds: 9 }, authPolicy),
    { 'ratelimit-policy': '"failed-auth";q=30;w=60', ratelimit: '"failed-auth";r=0;t=9', 'retry-after': '9' },
  ],
  unknownRoute: [errors.unknownRoute('devices'), {}],
  // docs/contract.md §2 step 4: Allow names the methods the path takes.
  methodNotAllowed: [errors.methodNotAllowed(['GET', 'POST']), { allow: 'GET, POST' }],
  invalidContentType: [errors.invalidContentType(), {}],
  // docs/decisions.md §4: the unread body is not drained, so the connection closes.
  payloadTooLarge: [errors.payloadTooLarge(16_384), CLOSE],
  invalidJson: [errors.invalidJson(), {}],
  bodyUnreadable: [errors.bodyUnreadable(new Error('reset')), {}],
  validationFailed: [errors.validationFailed([{ field: 'port', code: 'missing', message: 'port is required.' }]), {}],
  invalidId: [errors.invalidId(), {}],
  notFound: [errors.notFound('device_not_found'), {}],
  duplicate: [errors.duplicate('duplicate_device', 7), {}],
  takenByAnotherPage: [errors.takenByAnotherPage('slug'), {}],
  webhookTestUnavailable: [errors.webhookTestUnavailable(), {}],
  emailUnavailable: [errors.emailUnavailable(), {}],
  channelTestUnavailable: [errors.channelTestUnavailable(), {}],
  serverError: [errors.serverError(), {}],
  missingTable: [errors.missingTable(), {}],
};

// docs/decisions.md §3: the standalone server's own answers all close their connection.
const protocolCases: Record<keyof typeof protocolErrors, Case> = {
  malformed: [protocolErrors.malformed(), CLOSE],
  missingHost: [protocolErrors.missingHost(), CLOSE],
  connect: [protocolErrors.connect(), CLOSE],
  headersTooLarge: [protocolErrors.headersTooLarge(), CLOSE],
  requestTimeout: [protocolErrors.requestTimeout(), CLOSE],
  expectationFailed: [protocolErrors.expectationFailed(), CLOSE],
  shutdownDeadline: [protocolErrors.shutdownDeadline(), CLOSE],
};

describe('each error factory carries the headers its answer needs', () => {
  it('the tables name every factory', () => {
    assert.deepEqual(Object.keys(errorCases).sort(), Object.keys(errors).sort());
    assert.deepEqual(Object.keys(protocolCases).sort(), Object.keys(protocolErrors).sort());
  });

  for (const [name, [error, expected]] of Object.entries({ ...errorCases, ...protocolCases })) {
    it(`${name}: ${error.status} ${error.code}`, () => {
      assert.deepEqual({ ...error.headers }, expected);
      // The answer carries them as they are, after the envelope's media type.
      const response = errorResponse(error);
      assert.equal(response.status, error.status);
      assert.deepEqual(response.headers, { 'content-type': JSON_CONTENT_TYPE, ...expected });
    });
  }

  it('a 429 always says Retry-After, whatever decision it is given', () => {
    const odd: RateLimitDecision = { ...spent, allowed: true };
    assert.equal(errors.rateLimited(odd, policy).headers['retry-after'], '17');
    assert.equal(errors.authThrottled(odd, authPolicy).headers['retry-after'], '17');
  });

  it("shutdownDeadline is the API's own 500, closing", () => {
    const { code, message, status } = protocolErrors.shutdownDeadline();
    assert.deepEqual(
      { code, message, status },
      { code: 'server_error', message: errors.serverError().message, status: 500 },
    );
  });
});

describe('ApiError', () => {
  it('takes one options object; the body shows details and existing_id, never the cause', () => {
    const cause = new Error('SELECT secret FROM keys');
    const details = [{ field: 'port', code: 'missing' as const, message: 'port is required.' }];
    const error = new ApiError(409, 'duplicate_device', 'Exists.', { details, existingId: 3, cause });
    assert.equal(error.cause, cause);
    assert.equal(
      errorResponse(error).body,
      '{"success":false,"error":{"code":"duplicate_device","message":"Exists.","details":[{"field":"port","code":"missing","message":"port is required."}],"existing_id":3}}',
    );
    assert.equal(
      errorResponse(new ApiError(404, 'x', 'No.')).body,
      '{"success":false,"error":{"code":"x","message":"No."}}',
    );
  });

  it("keeps header names lower-case and its headers frozen, since factories' errors are shared", () => {
    const error = new ApiError(405, 'method_not_allowed', 'No.', { headers: { Allow: 'GET', 'X-Custom': 'a' } });
    assert.deepEqual({ ...error.headers }, { allow: 'GET', 'x-custom': 'a' });
    assert.ok(Object.isFrozen(error.headers));
    assert.ok(Object.isFrozen(new ApiError(400, 'x', 'y').headers));
  });

  it('withHeaders adds fields to a copy, the given ones winning', () => {
    const error = errors.methodNotAllowed(['GET']);
    const closing = error.withHeaders({ Connection: 'close', allow: 'GET, POST' });
    assert.deepEqual({ ...closing.headers }, { allow: 'GET, POST', connection: 'close' });
    assert.deepEqual({ ...error.headers }, { allow: 'GET' });
    assert.deepEqual([closing.status, closing.code, closing.message], [error.status, error.code, error.message]);
  });

  it('errorResponse gives a fresh headers object each time, for the pipeline to add to', () => {
    const error = errors.invalidApiKey();
    errorResponse(error).headers['x-request-id'] = 'a';
    assert.equal(errorResponse(error).headers['x-request-id'], undefined);
    assert.equal(error.headers['x-request-id'], undefined);
  });
});

describe('toWebResponse', () => {
  it('leaves out Connection (hop-by-hop: Bun and Deno manage their own connections) and keeps the rest', () => {
    const web = toWebResponse(errorResponse(errors.payloadTooLarge(10)));
    assert.equal(web.status, 413);
    assert.equal(web.headers.get('connection'), null);
    assert.equal(web.headers.get('content-type'), JSON_CONTENT_TYPE);
    assert.equal(
      toWebResponse(errorResponse(errors.invalidApiKey())).headers.get('www-authenticate'),
      'Bearer realm="monitoring"',
    );
  });
});
