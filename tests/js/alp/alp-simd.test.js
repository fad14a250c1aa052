import { defineAlpSuite } from './alp-suite.js';

defineAlpSuite(true);
