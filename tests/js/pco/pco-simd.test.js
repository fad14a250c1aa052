import { definePcoSuite } from './pco-suite.js';

definePcoSuite(true);
