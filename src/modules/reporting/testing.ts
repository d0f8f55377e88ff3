import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestOrg, TestServer } from '../../testing/harness.js';

/** Test fixtures for reports, shared by the reporting tests and their tenancy cases. */

/** Asks for a report and polls getReport until the job has finished with it (ready or failed). */
export async function generated(org: TestOrg, input: Record<string, unknown>): Promise<any> {
  const res = await org.call('reporting.generateReport', input);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.status, 'queued', 'a new report is queued');
  return finished(org, res.body.id);
}

export async function finished(org: TestOrg, id: string): Promise<any> {
  for (let attempt = 0; attempt < 600; attempt++) {
    const res = await org.call('reporting.getReport', { id });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    if (res.body.status === 'ready' || res.body.status === 'failed') return res.body;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`report ${id} did not finish`);
}

/** The report's files through the links getDownloadUrl answers. */
export async function download(server: TestServer, org: TestOrg, id: string): Promise<{ pdf: Buffer; csv: string; links: any }> {
  const links = await org.call('reporting.getDownloadUrl', { id });
  assert.equal(links.status, 200, JSON.stringify(links.body));
  const pdf = await server.request(links.body.pdfUrl);
  assert.equal(pdf.status, 200, await pdf.clone().text());
  assert.equal(pdf.headers.get('content-type'), 'application/pdf');
  const csv = await server.request(links.body.csvUrl);
  assert.equal(csv.status, 200, await csv.clone().text());
  const bytes = Buffer.from(await pdf.arrayBuffer());
  // REPORT_PDF_DIR=<dir> keeps every PDF a test downloads, to look at.
  if (process.env.REPORT_PDF_DIR) writeFileSync(join(process.env.REPORT_PDF_DIR, `${id}.pdf`), bytes);
  return { pdf: bytes, csv: (await csv.text()).replace(/^\uFEFF/, ''), links: links.body };
}

/** The PDF's text, laid out as printed (poppler's pdftotext). */
export function pdfText(pdf: Buffer): string {
  const dir = mkdtempSync(join(tmpdir(), 'fc-report-'));
  try {
    const file = join(dir, 'report.pdf');
    writeFileSync(file, pdf);
    return execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** CSV text as rows of fields (the reports' own CSV: quoted fields never span lines in these tests). */
export function csvRows(csv: string): string[][] {
  return csv
    .trim()
    .split('\r\n')
    .map((line) => {
      const fields: string[] = [];
      let field = '';
      let quoted = false;
      for (let i = 0; i < line.length; i++) {
        const c = line[i];
        if (quoted) {
          if (c === '"' && line[i + 1] === '"') (field += '"'), i++;
          else if (c === '"') quoted = false;
          else field += c;
        } else if (c === '"') quoted = true;
        else if (c === ',') fields.push(field), (field = '');
        else field += c;
      }
      fields.push(field);
      return fields;
    });
}
