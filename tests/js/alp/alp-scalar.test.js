import { defineAlpSuite } from './alp-suite.js';

defineAlpSuite(false);
