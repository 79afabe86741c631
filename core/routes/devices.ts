import { parseDeviceInput } from '../validation/device-input.ts';
import { resourceRoutes } from './resource-routes.ts';

/** GET /devices, POST /devices/create, DELETE /devices/delete (docs/contract.md §6.1, §6.3, §6.4). */
export const deviceRoutes = resourceRoutes({
  parse: parseDeviceInput,
  list: (store, userId, page) => store.listDevices(userId, page),
  create: (store, userId, device) => store.createDevice(userId, device),
  remove: (store, userId, id) => store.deleteDevice(userId, id),
  duplicate: 'duplicate_device',
  notFound: 'device_not_found',
});
