import { renderCsv } from './csv.js';
import type { ReportDocument } from './document.js';
import { renderPdf } from './pdf.js';

/** A report's files, rendered on a worker thread (src/lib/off-thread.ts); a QR code's PNG arrives as a Uint8Array, which PDFKit reads as it reads a Buffer. */
export default async function render(document: ReportDocument): Promise<{ pdf: Uint8Array; csv: Uint8Array }> {
  return { pdf: await renderPdf(document), csv: renderCsv(document) };
}
