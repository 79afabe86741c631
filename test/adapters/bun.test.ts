import { adapterSuite } from './suite.ts';

adapterSuite('bun');
