// Prints, as its last line, the environment the test files need to find the migrated template.
import { preparePgliteTemplate, preparePostgresTemplate } from '../src/testing/template.js';

const url = process.env.DATABASE_URL;
const env = url
  ? { FIRSTCRACK_TEST_PG_TEMPLATE: await preparePostgresTemplate(url) }
  : { FIRSTCRACK_TEST_PGLITE_TEMPLATE: await preparePgliteTemplate() };
console.log(JSON.stringify(env));
