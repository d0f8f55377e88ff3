import PDFDocument from 'pdfkit';
import type { Block, Column, ReportDocument } from './document.js';
import { dayTime } from './document.js';

/**
 * The PDF a roastery hands to a buyer, an auditor or a manager: A4, the organization's name and the
 * report's title on every page, the parameters up front, tables that carry their header over page breaks
 * and end in a totals row, and "Page i of n" in every footer. Standard PDF fonts only (nothing to embed or
 * fetch); text outside their character set is shown as '?'.
 */

const INK = '#2b1d14';
const BRAND = '#6f4e37';
const MUTED = '#7a6455';
const RULE = '#d9c7b5';
const STRIPE = '#f7f1ea';
const NOTICE_FILL = '#fff4db';
const NOTICE_RULE = '#e0b04a';

const MARGIN = 48;
const HEADER_Y = 28;
const FOOTER_GAP = 30;

/** WinAnsi holds Latin-1 plus a few typographic marks; anything else would print as garbage. */
function printable(text: string): string {
  return text
    .replace(/[\u2192\u21d2]/g, '->')
    .replace(/[\u2190]/g, '<-')
    .replace(/[\u2264]/g, '<=')
    .replace(/[\u2265]/g, '>=')
    .replace(/[^\u0009\u000a\u0020-\u007e\u00a0-\u00ff\u2013\u2014\u2018\u2019\u201c\u201d\u2022\u2026\u20ac]/g, '?');
}

export async function renderPdf(document: ReportDocument): Promise<Buffer> {
  const doc = new PDFDocument({
    size: 'A4',
    margins: { top: MARGIN + 22, bottom: MARGIN + 10, left: MARGIN, right: MARGIN },
    bufferPages: true,
    info: { Title: printable(document.title), Author: printable(document.organizationName), Subject: printable(document.subtitle), Creator: 'Firstcrack' },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });

  const width = doc.page.width - MARGIN * 2;
  const bottom = () => doc.page.height - doc.page.margins.bottom;
  const ensure = (height: number) => {
    if (doc.y + height > bottom()) doc.addPage();
  };

  // Title block.
  doc.font('Helvetica-Bold').fontSize(11).fillColor(BRAND).text(printable(document.organizationName.toUpperCase()), { characterSpacing: 0.6 });
  doc.moveDown(0.3);
  doc.font('Helvetica-Bold').fontSize(20).fillColor(INK).text(printable(document.title));
  doc.moveDown(0.15);
  doc.font('Helvetica').fontSize(11).fillColor(MUTED).text(printable(document.subtitle));
  doc.moveDown(0.8);

  // Parameters.
  const facts: [string, string][] = [...document.parameters, ['Report', document.reportId], ['Generated', dayTime(document.generatedAt, document.timeZone)]];
  factsBox(doc, facts, width);

  for (const notice of document.notices) {
    doc.moveDown(0.6);
    noticeBox(doc, notice, width);
  }

  for (const block of document.blocks) {
    doc.moveDown(1.1);
    renderBlock(doc, block, width, ensure, bottom);
  }

  // Running header and footer on every page, now that the page count is known.
  const range = doc.bufferedPageRange();
  for (let i = range.start; i < range.start + range.count; i++) {
    doc.switchToPage(i);
    const savedBottom = doc.page.margins.bottom;
    doc.page.margins.bottom = 0;
    const footerY = doc.page.height - MARGIN + 8;
    doc.moveTo(MARGIN, HEADER_Y + 14).lineTo(doc.page.width - MARGIN, HEADER_Y + 14).lineWidth(0.6).strokeColor(RULE).stroke();
    doc.font('Helvetica-Bold').fontSize(8).fillColor(BRAND).text(printable(document.organizationName), MARGIN, HEADER_Y, { width: width / 2, lineBreak: false, ellipsis: true });
    doc.font('Helvetica').fontSize(8).fillColor(MUTED).text(printable(document.title), MARGIN + width / 2, HEADER_Y, { width: width / 2, align: 'right', lineBreak: false, ellipsis: true });
    doc.moveTo(MARGIN, footerY - 6).lineTo(doc.page.width - MARGIN, footerY - 6).lineWidth(0.6).strokeColor(RULE).stroke();
    doc.font('Helvetica').fontSize(8).fillColor(MUTED).text(`${printable(document.organizationName)} - ${document.reportId}`, MARGIN, footerY, { width: width * 0.7, lineBreak: false, ellipsis: true });
    doc.text(`Page ${i - range.start + 1} of ${range.count}`, MARGIN + width * 0.7, footerY, { width: width * 0.3, align: 'right', lineBreak: false });
    doc.page.margins.bottom = savedBottom;
  }
  doc.end();
  return done;
}

type Doc = InstanceType<typeof PDFDocument>;

function heading(doc: Doc, text: string, ensure: (h: number) => void) {
  ensure(60);
  doc.font('Helvetica-Bold').fontSize(12.5).fillColor(BRAND).text(printable(text), MARGIN);
  doc.moveDown(0.35);
}

function factsBox(doc: Doc, facts: [string, string][], width: number) {
  const labelWidth = 120;
  const top = doc.y;
  const padding = 8;
  let y = top + padding;
  doc.fontSize(9.5);
  const heights = facts.map(([, value]) => doc.font('Helvetica').heightOfString(printable(value), { width: width - labelWidth - padding * 2 }));
  const total = heights.reduce((a, b) => a + b + 3, 0) + padding * 2 - 3;
  doc.roundedRect(MARGIN, top, width, total, 4).fillColor(STRIPE).fill();
  facts.forEach(([label, value], i) => {
    doc.font('Helvetica-Bold').fontSize(9.5).fillColor(MUTED).text(printable(label), MARGIN + padding, y, { width: labelWidth - 6 });
    doc.font('Helvetica').fontSize(9.5).fillColor(INK).text(printable(value), MARGIN + padding + labelWidth, y, { width: width - labelWidth - padding * 2 });
    y += heights[i] + 3;
  });
  doc.x = MARGIN;
  doc.y = top + total;
}

function noticeBox(doc: Doc, text: string, width: number) {
  const padding = 8;
  doc.font('Helvetica').fontSize(9.5);
  const height = doc.heightOfString(printable(text), { width: width - padding * 2 - 4 }) + padding * 2;
  const top = doc.y;
  doc.rect(MARGIN, top, width, height).fillColor(NOTICE_FILL).fill();
  doc.rect(MARGIN, top, 3, height).fillColor(NOTICE_RULE).fill();
  doc.fillColor(INK).text(printable(text), MARGIN + padding + 4, top + padding, { width: width - padding * 2 - 4 });
  doc.x = MARGIN;
  doc.y = top + height;
}

function renderBlock(doc: Doc, block: Block, width: number, ensure: (h: number) => void, bottom: () => number) {
  heading(doc, block.heading, ensure);
  switch (block.type) {
    case 'facts':
      factsBox(doc, block.facts, width);
      return;
    case 'paragraphs':
      for (const paragraph of block.paragraphs) {
        ensure(20);
        doc.font('Helvetica').fontSize(9.5).fillColor(INK).text(printable(paragraph), MARGIN, doc.y, { width });
        doc.moveDown(0.3);
      }
      return;
    case 'qr': {
      const size = 130;
      ensure(size + 10);
      const top = doc.y;
      doc.image(block.png, MARGIN, top, { width: size, height: size });
      let y = top + 8;
      for (const line of block.caption) {
        doc.font('Helvetica').fontSize(9.5).fillColor(INK).text(printable(line), MARGIN + size + 16, y, { width: width - size - 16 });
        y = doc.y + 3;
      }
      doc.x = MARGIN;
      doc.y = Math.max(top + size, y);
      return;
    }
    case 'table':
      if (block.note) {
        doc.font('Helvetica').fontSize(9).fillColor(MUTED).text(printable(block.note), MARGIN, doc.y, { width });
        doc.moveDown(0.4);
      }
      table(doc, block, width, ensure, bottom);
  }
}

function table(doc: Doc, block: Extract<Block, { type: 'table' }>, width: number, ensure: (h: number) => void, bottom: () => number) {
  const pad = 4;
  const { size, widths } = tableLayout(doc, block, width, pad, block.columns.length > 7 ? 7.8 : 8.6);
  const xs = widths.map((_, i) => MARGIN + widths.slice(0, i).reduce((a, b) => a + b, 0));

  const rowHeight = (cells: string[], font: string) => {
    doc.font(font).fontSize(size);
    return Math.max(...cells.map((cell, i) => doc.heightOfString(printable(cell), { width: widths[i] - pad * 2 }))) + pad * 2;
  };
  const drawRow = (cells: string[], font: string, color: string, fill?: string) => {
    const h = rowHeight(cells, font);
    const y = doc.y;
    if (fill) doc.rect(MARGIN, y, width, h).fillColor(fill).fill();
    doc.font(font).fontSize(size).fillColor(color);
    cells.forEach((cell, i) => {
      const column: Column = block.columns[i];
      doc.text(printable(cell), xs[i] + pad, y + pad, { width: widths[i] - pad * 2, align: column.align ?? 'left' });
    });
    doc.x = MARGIN;
    doc.y = y + h;
  };
  const header = () => {
    drawRow(block.columns.map((c) => c.label), 'Helvetica-Bold', '#ffffff', BRAND);
  };

  ensure(rowHeight(block.columns.map((c) => c.label), 'Helvetica-Bold') + 40);
  header();
  if (block.rows.length === 0) {
    const y = doc.y;
    doc.font('Helvetica-Oblique').fontSize(size).fillColor(MUTED).text(printable(block.emptyText ?? 'Nothing in this range.'), MARGIN + pad, y + pad, { width: width - pad * 2 });
    doc.x = MARGIN;
    doc.y = doc.y + pad;
  }
  block.rows.forEach((row, index) => {
    if (doc.y + rowHeight(row, 'Helvetica') > bottom()) {
      doc.addPage();
      header();
    }
    drawRow(row, 'Helvetica', INK, index % 2 === 1 ? STRIPE : undefined);
  });
  for (const total of block.totals ?? []) {
    if (doc.y + rowHeight(total, 'Helvetica-Bold') + 2 > bottom()) {
      doc.addPage();
      header();
    }
    doc.moveTo(MARGIN, doc.y).lineTo(MARGIN + width, doc.y).lineWidth(1).strokeColor(INK).stroke();
    drawRow(total, 'Helvetica-Bold', INK);
  }
}

/**
 * The table's font size and each column's width. Codes (`nowrap`) and figures (right-aligned) are never broken
 * over lines, so each such column must hold its longest cell (totals in bold; its header may wrap between
 * words, never inside one). In order: the columns' shares when they hold every such cell; else codes and
 * figures widened to what they need (at least their share) with the wrapping columns (names, descriptions)
 * sharing the rest; else codes and figures exactly as wide as they need; each of these only while the
 * wrapping columns keep a sixth of the table. Failing all three, the font steps down (to 6.6 pt) and the
 * same is tried again; at the smallest size the shares stand and long cells wrap.
 */
function tableLayout(doc: Doc, block: Extract<Block, { type: 'table' }>, width: number, pad: number, baseSize: number): { size: number; widths: number[] } {
  const share = block.columns.reduce((a, c) => a + c.width, 0);
  const proportional = block.columns.map((c) => (c.width / share) * width);
  const whole = (c: Column) => c.nowrap === true || c.align === 'right';
  const flexibleShare = block.columns.reduce((a, c) => a + (whole(c) ? 0 : c.width), 0);
  const widest = (i: number, size: number) => {
    const body = block.rows.map((row) => doc.font('Helvetica').fontSize(size).widthOfString(printable(row[i] ?? '')));
    const totals = (block.totals ?? []).map((row) => doc.font('Helvetica-Bold').fontSize(size).widthOfString(printable(row[i] ?? '')));
    const words = block.columns[i].label.split(/\s+/).map((w) => doc.font('Helvetica-Bold').fontSize(size).widthOfString(printable(w)));
    // A few points of slack: pdfkit's line breaking measures a hair wider than widthOfString.
    return Math.max(0, ...body, ...totals, ...words) + pad * 2 + 4;
  };
  for (let size = baseSize; size >= 6.6 - 1e-9; size -= 0.6) {
    const needed = block.columns.map((c, i) => (whole(c) ? widest(i, size) : 0));
    if (needed.every((n, i) => n <= proportional[i])) return { size, widths: proportional };
    const attempts = [needed.map((n, i) => (whole(block.columns[i]) ? Math.max(n, proportional[i]) : 0)), needed];
    for (const fixedWidths of attempts) {
      const fixed = fixedWidths.reduce((a, b) => a + b, 0);
      if (flexibleShare === 0 && fixed <= width) {
        // Only codes and figures: the room left goes to them by their shares.
        return { size, widths: fixedWidths.map((w, i) => w + (block.columns[i].width / share) * (width - fixed)) };
      }
      if (flexibleShare > 0 && width - fixed >= width / 6) {
        return { size, widths: block.columns.map((c, i) => (whole(c) ? fixedWidths[i] : (c.width / flexibleShare) * (width - fixed))) };
      }
    }
  }
  return { size: baseSize, widths: proportional };
}
