/**
 * Runs the testing kit's example (examples/testing/devices.test.ts) as part of the suite: its
 * tests register with node:test when the module is imported.
 */
import '../../examples/testing/devices.test.ts';
