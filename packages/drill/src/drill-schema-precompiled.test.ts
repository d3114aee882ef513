import assert from 'node:assert/strict';
import { test } from 'node:test';
import { schemaValidator } from '@rocelab/topology';
import { drillSchema } from './drill-schema.js';

test('the drill file schema is served by the build\'s standalone code (npm run build writes drill-validator.cjs), not compiled when a drill loads', () => {
  assert.equal(schemaValidator(drillSchema()).source, 'precompiled');
});
