import { defineEvent } from '../../events/define.js';
import { out } from '../../rpc/outputs.js';
import { CertificateSummary } from './schemas.js';

export const certificateIssued = defineEvent(
  'traceability.certificate.issued',
  'A traceability certificate was issued for a roasted lot (the snapshot it froze is read with listCertificates).',
  out({ certificate: CertificateSummary }),
);
