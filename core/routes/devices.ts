import type { Device, NewDevice } from '../records/index.ts';
import { deviceHints, deviceSchema, parseDeviceInput, rederivedDeviceFields } from '../validation/device-input.ts';
import { parsePatch } from '../validation/patch-input.ts';
import { changedFields, changeEvents, effectOf, type ChangeRules } from './record-change.ts';
import { refuseForeignChannels } from './channel-ids.ts';
import { resourceRoutes } from './resource-routes.ts';

const FIELDS = Object.keys(deviceSchema.entries);

const RULES: ChangeRules = {
  unchecked: new Set(['location', 'is_enabled', 'check_interval_s', 'name', 'channel_ids']),
  events: { paused: 'device.paused', resumed: 'device.resumed' },
};

/**
 * GET /devices, POST /devices/create, GET /devices/get, PATCH /devices/update, DELETE /devices/delete
 * (docs/contract.md §6.1, §6.3, §6.4 and "Changing a record").
 */
export const deviceRoutes = resourceRoutes<Device, NewDevice>({
  parse: parseDeviceInput,
  list: (store, userId, page) => store.listDevices(userId, page),
  create: (store, userId, device) => store.createDevice(userId, device),
  remove: (store, userId, id) => store.deleteDevice(userId, id),
  get: (store, userId, id) => store.getDevice(userId, id),
  prepare(from, body, options, at) {
    const to = parsePatch<Device, NewDevice>(
      {
        schema: deviceSchema,
        hints: deviceHints,
        parse: (input) => parseDeviceInput(input, options, from.created_at),
        rederive: (record, given) => rederivedDeviceFields(record, given, options),
      },
      from,
      body,
    );
    const changed = changedFields(from, to, FIELDS);
    if (changed.length === 0) return { change: null };
    const effect = effectOf(RULES, from, to, changed);
    const events = changeEvents(RULES, from, { to, fields: FIELDS }, effect, at);
    return { change: { to, fields: FIELDS, effect, at, events } };
  },
  refuse: refuseForeignChannels,
  update: (store, userId, id, change) => store.updateDevice(userId, id, change),
  duplicate: 'duplicate_device',
  kind: 'device',
  notFound: 'device_not_found',
});
