// `npm run bench`: every benchmark, each printing its ratio against a bare baseline measured in the
// same run. Set DATABASE_URL to measure on PostgreSQL (the goals are stated for it).
import { benchCatalogRead } from './catalog-read.js';
import { benchRoastComplete } from './roast-complete.js';
import { benchTrace } from './trace.js';
import { benchTelemetry } from './telemetry.js';
import { benchQuality } from './quality.js';
import { benchSourcing } from './sourcing.js';
import { benchCafe } from './cafe.js';
import { benchIdentity } from './identity.js';
import { benchWebhooks } from './webhooks.js';
import { benchReporting } from './reporting.js';
import { benchBridge } from './bridge.js';

await benchCatalogRead();
await benchRoastComplete();
await benchTrace();
await benchTelemetry();
await benchQuality();
await benchSourcing();
await benchCafe();
await benchIdentity();
await benchWebhooks();
await benchReporting();
await benchBridge();
