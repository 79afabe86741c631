import type { Device, DeviceProbe, NewDeviceProbeResult } from '../../core/index.ts';
import { probeOriginHttp, probePublicHttp, probePublicHttps } from '../probes/http-probe.ts';
import type { ProbeOptions } from '../probes/probe-options.ts';
import { probeService } from '../probes/service-probe.ts';
import { probeOriginTls, probePublicTls } from '../probes/tls-probe.ts';

type ProbeRun = (device: Device, options: ProbeOptions) => Promise<NewDeviceProbeResult>;

const RUNS: Record<DeviceProbe, ProbeRun> = {
  public_http: probePublicHttp,
  public_https: probePublicHttps,
  public_tls: probePublicTls,
  origin_http: probeOriginHttp,
  origin_tls: probeOriginTls,
  service: probeService,
};

/**
 * The probes a check of `device` runs (docs/engine.md, "Device probes"). A web device runs the
 * probes whose `check_*` flag is on. Any other service always runs `service`, plus `public_tls`
 * when `check_public_tls` is on (the one flag the contract allows on every service); its web-only
 * flags are ignored.
 */
export function probesOf(device: Device): DeviceProbe[] {
  if (device.service_type !== 'web') return device.check_public_tls ? ['service', 'public_tls'] : ['service'];
  const flags: [DeviceProbe, boolean][] = [
    ['public_http', device.check_public_http],
    ['public_https', device.check_public_https],
    ['public_tls', device.check_public_tls],
    ['origin_http', device.check_origin_http],
    ['origin_tls', device.check_origin_tls],
  ];
  return flags.filter(([, on]) => on).map(([probe]) => probe);
}

/** Runs one probe by name. */
export function runProbe(probe: DeviceProbe, device: Device, options: ProbeOptions): Promise<NewDeviceProbeResult> {
  return RUNS[probe](device, options);
}
