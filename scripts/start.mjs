// `npm start`: runs the sample operator. Until the WebPage sample lands this says so and fails
// loudly, so nobody mistakes silence for a running operator.
import { existsSync } from 'node:fs';

const sample = new URL('../apps/webpage/package.json', import.meta.url);
if (!existsSync(sample)) {
  console.error('tosdk: no sample operator yet (apps/webpage arrives with the sample operator issue).');
  process.exit(1);
}
