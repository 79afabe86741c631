/**
 * JSON Schemas of the engine's check results (docs/engine.md, "The checks"), typed against
 * core/records/ like the other records: a field added to a result fails to compile until it is
 * described here. Each probe family has two forms: the stored result, with its `id`, as the
 * results routes answer it, and the same without `id`, as a device's `last_results` holds it.
 */
import type { JsonSchema } from '@valibot/to-json-schema';
import {
  DEVICE_PROBES,
  type DeviceLastResults,
  type DeviceProbe,
  type DnsblResult,
  type HttpProbeResult,
  type ServiceProbeResult,
  type TlsProbeResult,
} from '../records/index.ts';
import { described, exhaustive, nullable, record, ref, STRING, BOOLEAN } from './schema-helpers.ts';

type HttpProbe = HttpProbeResult['probe'];
type TlsProbe = TlsProbeResult['probe'];
const HTTP_PROBES = exhaustive<HttpProbe>()(['public_http', 'public_https', 'origin_http']);
const TLS_PROBES = exhaustive<TlsProbe>()(['public_tls', 'origin_tls']);
/** Which result shape each device probe produces: `last_results` is keyed by these names. */
const SHAPE_OF: Record<DeviceProbe, 'HttpProbeResult' | 'TlsProbeResult' | 'ServiceProbeResult'> = {
  public_http: 'HttpProbeResult',
  public_https: 'HttpProbeResult',
  origin_http: 'HttpProbeResult',
  public_tls: 'TlsProbeResult',
  origin_tls: 'TlsProbeResult',
  service: 'ServiceProbeResult',
};

const INTEGER: JsonSchema = { type: 'integer' };
const RESPONSE_MS = described(
  'How long the probe took, in whole milliseconds; null when it never got to connect.',
  nullable({ type: 'integer', minimum: 0 }),
);
const ERROR = described(
  'Why the probe failed (timeout, forbidden_address, ECONNREFUSED, ...); null when ok.',
  nullable(STRING),
);

/** The fields every stored result has, whatever its probe. */
function base(probe: JsonSchema) {
  return {
    id: described('Larger ids are later results.', ref('Id')),
    check_id: described(
      'The check the result belongs to: every result of one check has the same; a later check has a larger one.',
      ref('Id'),
    ),
    checked_at: described('When the probe finished.', ref('Timestamp')),
    probe,
    ok: BOOLEAN,
    response_ms: RESPONSE_MS,
    error: ERROR,
    maintenance: described('Present (true) on a result of a check made during a maintenance window.', { const: true }),
    check_location: described(
      "The location whose worker made the check, for a device with check_locations; null for a device checked from any one location, and for a blacklist monitor. Not named `location`: an HTTP probe's result has a `location` of its own (a 3xx answer's Location header).",
      nullable(STRING),
    ),
  } as const;
}

/** `maintenance` is present only on results of checks made during a maintenance window. */
const optionalMaintenance = (schema: JsonSchema): JsonSchema => ({
  ...schema,
  required: (schema.required ?? []).filter((name) => name !== 'maintenance'),
});

const probeEnum = (values: readonly string[]): JsonSchema =>
  values.length === 1 ? { const: values[0]! } : { type: 'string', enum: [...values] };

/** The stored (`withId`) or last-result form of each probe family, by component name. */
function families(withId: boolean, prefix: string): Record<string, JsonSchema> {
  // `record` checks the keys against the result type; the id-less form is the same object without `id`.
  const strip = (schema: JsonSchema): JsonSchema => {
    if (withId) return optionalMaintenance(schema);
    const {
      id: _id,
      check_id: _checkId,
      check_location: _checkLocation,
      ...properties
    } = schema.properties as Record<string, JsonSchema>;
    return {
      ...schema,
      required: (schema.required ?? []).filter(
        (name) => name !== 'id' && name !== 'check_id' && name !== 'check_location' && name !== 'maintenance',
      ),
      properties,
    };
  };
  return {
    [`${prefix}DnsblResult`]: strip(
      record<DnsblResult>("One DNSBL zone's answer for a blacklist monitor's target.", {
        ...base(probeEnum(['dnsbl'])),
        zone: STRING,
        listed: described(
          'True when the zone listed the target; false when it did not, or its lookup failed.',
          BOOLEAN,
        ),
        answer: described(
          'The A records the zone answered, comma-joined (e.g. 127.0.0.2); null for NXDOMAIN or a failure.',
          nullable(STRING),
        ),
        meaning: described(
          "What a listing's answer means, as in the monitor's listings; null when not listed or not known.",
          nullable(STRING),
        ),
        policy: described('True for a policy listing; false otherwise, and when not listed.', BOOLEAN),
        delist_url: described(
          'Where to look up or remove the listing; null when not listed or not known.',
          nullable(STRING),
        ),
        since: described('The first check that saw the listing; null when not listed.', nullable(ref('Timestamp'))),
      }),
    ),
    [`${prefix}HttpProbeResult`]: strip(
      record<HttpProbeResult>('One GET of / (public_http, public_https, origin_http); redirects are not followed.', {
        ...base(probeEnum(HTTP_PROBES)),
        http_status: nullable(INTEGER),
        location: described('The Location header of a 3xx answer; null otherwise.', nullable(STRING)),
      }),
    ),
    [`${prefix}TlsProbeResult`]: strip(
      record<TlsProbeResult>('A TLS handshake and the certificate it showed (public_tls, origin_tls).', {
        ...base(probeEnum(TLS_PROBES)),
        tls_valid_to: nullable(ref('Timestamp')),
        tls_days_left: described('Whole days until tls_valid_to, negative once expired.', nullable(INTEGER)),
        tls_error: described(
          'The code of a refused certificate (CERT_HAS_EXPIRED, ERR_TLS_CERT_ALTNAME_INVALID, ...).',
          nullable(STRING),
        ),
      }),
    ),
    [`${prefix}ServiceProbeResult`]: strip(
      record<ServiceProbeResult>("A TCP connection and the protocol's greeting (service).", {
        ...base(probeEnum(['service'])),
        banner: described(
          'The first line the service sent, at most 200 characters; null when it sends none first.',
          nullable({ type: 'string', maxLength: 200 }),
        ),
      }),
    ),
  };
}

/**
 * The result components: the four stored shapes, `DeviceProbeResult` as one of the device's three
 * chosen by `probe` (the probe values of the shapes do not overlap, so exactly one matches),
 * and `DeviceLastResults`, the last result of each probe, keyed by probe name.
 */
export function resultSchemas(): Record<string, JsonSchema> {
  const lastResults: { [P in keyof DeviceLastResults]-?: JsonSchema } = Object.fromEntries(
    DEVICE_PROBES.map((probe) => [probe, ref(`Last${SHAPE_OF[probe]}`)]),
  ) as { [P in keyof DeviceLastResults]-?: JsonSchema };
  // A device's last results never hold a DNSBL answer, so that family has no id-less form.
  const { LastDnsblResult: _unused, ...lastFamilies } = families(false, 'Last');
  return {
    ...families(true, ''),
    ...lastFamilies,
    DeviceProbeResult: {
      description: "A device probe's result; `probe` tells which shape.",
      oneOf: [ref('HttpProbeResult'), ref('TlsProbeResult'), ref('ServiceProbeResult')],
    },
    DeviceLastResults: {
      type: 'object',
      description:
        'The last result of each probe that ran, keyed by probe name; {} before the first check. A probe that never ran has no key.',
      properties: lastResults,
    },
  };
}
