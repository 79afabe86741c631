import { adapterSuite } from './suite.ts';

adapterSuite('node');
