import * as v from 'valibot';
import type { DetailCode, ErrorDetail } from '../http/api-error.ts';
import type { StatusPageComponent, StatusPageSettings } from '../records/index.ts';
import { normalizeDomain } from '../targets/normalize-target.ts';
import { isTimeZone } from '../time-zones.ts';
import type { FieldHints } from './details.ts';
import { flag, integer, optional, plainText, text } from './field-schemas.ts';
import { failIfAny, parseFields } from './parse-fields.ts';

// A status page's fields (docs/status-pages.md, "Managing pages"). Components are judged item by
// item, so that each problem names its index (`components[2].device_id`); whether an id is the
// user's, and a component's default name, are the route's to judge against the store.

export const SLUG = /^[a-z0-9-]{3,64}$/;
export const MAX_COMPONENTS = 100;
export const HISTORY_DAYS = { min: 7, max: 365, default: 90 } as const;
/** The kinds of record a component may name, by the field that names it. */
export const COMPONENT_ID_FIELDS = ['device_id', 'blacklist_monitor_id', 'heartbeat_id'] as const;

const named = (max: number) =>
  v.pipe(
    text(max),
    v.check((s) => s.trim().length > 0, 'invalid_value'),
  );

export const statusPageSchema = v.object(
  {
    slug: v.pipe(v.string('invalid_type'), v.regex(SLUG, 'invalid_value')),
    title: named(100),
    description: optional(plainText(1000)),
    // Judged item by item below, so that each problem names its index.
    components: v.pipe(
      v.array(v.unknown(), 'invalid_type'),
      v.minLength(1, 'out_of_range'),
      v.maxLength(MAX_COMPONENTS, 'out_of_range'),
    ),
    history_days: optional(integer(HISTORY_DAYS.min, HISTORY_DAYS.max)),
    time_zone: optional(v.pipe(v.string('invalid_type'), v.check(isTimeZone, 'invalid_value'))),
    show_response_times: optional(flag()),
    show_targets: optional(flag()),
    hostname: optional(
      v.pipe(
        v.string('invalid_type'),
        v.check((s) => normalizeDomain(s) !== null, 'invalid_value'),
      ),
    ),
    is_public: optional(flag()),
  },
  'invalid_type',
);

const componentSchema = v.object(
  {
    name: optional(named(100)),
    group: optional(named(100)),
    device_id: optional(integer(1, Number.MAX_SAFE_INTEGER)),
    blacklist_monitor_id: optional(integer(1, Number.MAX_SAFE_INTEGER)),
    heartbeat_id: optional(integer(1, Number.MAX_SAFE_INTEGER)),
  },
  'invalid_type',
);

export const statusPageHints: FieldHints = {
  slug: '3 to 64 characters of a-z, 0-9 and -',
  title: 'text of 1 to 100 characters without control characters',
  description: 'plain text of at most 1000 characters (line feeds allowed, no other control characters)',
  components: `a list of 1 to ${MAX_COMPONENTS} components {name, group, device_id | blacklist_monitor_id | heartbeat_id}`,
  history_days: `an integer from ${HISTORY_DAYS.min} to ${HISTORY_DAYS.max} (days)`,
  time_zone: 'an IANA time zone such as Europe/Berlin',
  show_response_times: 'true, false, 0 or 1',
  show_targets: 'true, false, 0 or 1',
  hostname: 'a domain name such as status.example.com',
  is_public: 'true, false, 0 or 1',
};

const componentHints: FieldHints = {
  name: 'text of 1 to 100 characters without control characters',
  group: 'text of 1 to 100 characters without control characters',
  device_id: 'the id of one of your devices',
  blacklist_monitor_id: 'the id of one of your blacklist monitors',
  heartbeat_id: 'the id of one of your heartbeats',
};

/** A component as given: its name may be left to the record's (`resolveComponentNames`). */
export type ParsedComponent = Omit<StatusPageComponent, 'name'> & { name: string | null };

/** A status page's settings as given, before the store is asked about its components. */
export interface ParsedStatusPage extends Omit<StatusPageSettings, 'components'> {
  components: ParsedComponent[];
}

/** A detail for the field `components[i].<field>` (or `components[i]` itself). */
export function componentDetail(index: number, field: string | null, code: DetailCode, message: string): ErrorDetail {
  return { field: field === null ? `components[${index}]` : `components[${index}].${field}`, code, message };
}

function parseComponent(item: unknown, index: number, details: ErrorDetail[]): ParsedComponent | null {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) {
    details.push(componentDetail(index, null, 'invalid_type', `components[${index}] must be an object.`));
    return null;
  }
  const { fields, details: found } = parseFields(componentSchema, item as Record<string, unknown>, componentHints);
  for (const d of found) details.push(componentDetail(index, d.field, d.code, `components[${index}].${d.message}`));
  if (found.length > 0) return null;
  const ids = COMPONENT_ID_FIELDS.filter((field) => fields[field] != null);
  if (ids.length !== 1) {
    const message = `components[${index}] must name exactly one of ${COMPONENT_ID_FIELDS.join(', ')}.`;
    details.push(componentDetail(index, null, 'invalid_value', message));
    return null;
  }
  const base = { name: fields.name ?? null, group: fields.group ?? null };
  if (fields.device_id != null) return { ...base, device_id: fields.device_id };
  if (fields.heartbeat_id != null) return { ...base, heartbeat_id: fields.heartbeat_id };
  return { ...base, blacklist_monitor_id: fields.blacklist_monitor_id! };
}

/**
 * A status page's body as its settings (docs/status-pages.md, "Managing pages"), or a 400 listing
 * every problem. The hostname is stored in its ASCII, lower-case form.
 */
export function parseStatusPageInput(input: Record<string, unknown>): ParsedStatusPage {
  const { fields: f, details } = parseFields(statusPageSchema, input, statusPageHints);
  const components: ParsedComponent[] = [];
  if (f.components !== undefined) {
    f.components.forEach((item, index) => {
      const component = parseComponent(item, index, details);
      if (component !== null) components.push(component);
    });
  }
  failIfAny(details);
  return {
    slug: f.slug!,
    title: f.title!,
    description: f.description ?? null,
    components,
    history_days: f.history_days ?? HISTORY_DAYS.default,
    time_zone: f.time_zone ?? 'UTC',
    show_response_times: f.show_response_times ?? false,
    show_targets: f.show_targets ?? false,
    hostname: f.hostname == null ? null : normalizeDomain(f.hostname)!,
    is_public: f.is_public ?? true,
  };
}

/** The 400's detail for a component whose id is not one of the user's records of its kind. */
export function foreignComponentDetail(index: number, component: ParsedComponent): ErrorDetail {
  const [field, noun] =
    component.device_id !== undefined
      ? ['device_id', 'device']
      : component.heartbeat_id !== undefined
        ? ['heartbeat_id', 'heartbeat']
        : ['blacklist_monitor_id', 'blacklist monitor'];
  const id = component.device_id ?? component.heartbeat_id ?? component.blacklist_monitor_id;
  return componentDetail(
    index,
    field,
    'invalid_value',
    `components[${index}].${field}: ${id} is not one of your ${noun}s.`,
  );
}

/** The 400's detail for a component without a name whose record has none to lend it. */
export function unnamedComponentDetail(index: number): ErrorDetail {
  const message = `components[${index}].name is required: its record has no name to lend it.`;
  return componentDetail(index, 'name', 'missing', message);
}
