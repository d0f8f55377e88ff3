import { ImportError } from './types.js';

/**
 * Just enough of the legacy Excel format to read cell values: an OLE2 compound file (MS-CFB) holding a BIFF8
 * "Workbook" stream (MS-XLS). Reads sheet names and string/number/boolean cell values, including cached formula
 * results; ignores formatting, so dates come back as Excel serial numbers. Excel 95 (BIFF5) and older are rejected.
 *
 * Written in-house because the only caller needs values from one export type, and a full spreadsheet dependency
 * would be far larger than this reader.
 */

export type XlsCell = string | number | boolean;

export interface XlsSheet {
  name: string;
  /** rows[r][c]; missing rows/cells are undefined */
  rows: XlsCell[][];
}

const OLE2_SIGNATURE = Uint8Array.of(0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1);

export function readXlsWorkbook(bytes: Uint8Array): XlsSheet[] {
  const stream = readCompoundFileStream(bytes, ['Workbook', 'Book']);
  return readBiff8(stream);
}

// ---------------------------------------------------------------------------------------------------------------
// MS-CFB: a FAT file system in 512- or 4096-byte sectors. Small streams (< cutoff) live in the "mini stream".

const END_OF_CHAIN = 0xfffffffe;
const FREE_SECTOR = 0xffffffff;

interface DirectoryEntry {
  name: string;
  /** 1 = storage, 2 = stream, 5 = root */
  type: number;
  start: number;
  size: number;
}

function readCompoundFileStream(bytes: Uint8Array, names: string[]): Uint8Array {
  const fail = (problem: string): never => {
    throw new ImportError(`Excel file: ${problem}`);
  };
  if (bytes.length < 512 || !OLE2_SIGNATURE.every((b, i) => bytes[i] === b)) fail('not an OLE2 compound file');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const u32 = (offset: number) => {
    if (offset + 4 > bytes.length) fail('truncated (a sector lies past the end of the file)');
    return view.getUint32(offset, true);
  };
  const sectorShift = view.getUint16(0x1e, true);
  if (sectorShift !== 9 && sectorShift !== 12) fail(`unsupported sector size 2^${sectorShift}`);
  const sectorSize = 1 << sectorShift;
  const miniSectorSize = 1 << view.getUint16(0x20, true); // always 64 in practice
  const fatSectorCount = u32(0x2c);
  const firstDirectorySector = u32(0x30);
  const miniStreamCutoff = u32(0x38);
  const firstMiniFatSector = u32(0x3c);
  let difatSector = u32(0x44);
  const sectorOffset = (sector: number) => (sector + 1) * sectorSize;

  // The FAT's own sectors are listed in the DIFAT: 109 entries in the header, then a chain of DIFAT sectors.
  const fatSectors: number[] = [];
  for (let i = 0; i < 109 && fatSectors.length < fatSectorCount; i++) fatSectors.push(u32(0x4c + i * 4));
  const entriesPerSector = sectorSize / 4;
  for (let guard = 0; fatSectors.length < fatSectorCount && difatSector !== END_OF_CHAIN; guard++) {
    if (guard > bytes.length / sectorSize) fail('DIFAT chain loops');
    const base = sectorOffset(difatSector);
    for (let i = 0; i < entriesPerSector - 1 && fatSectors.length < fatSectorCount; i++) fatSectors.push(u32(base + i * 4));
    difatSector = u32(base + (entriesPerSector - 1) * 4);
  }
  const fat: number[] = [];
  for (const sector of fatSectors) {
    const base = sectorOffset(sector);
    for (let i = 0; i < entriesPerSector; i++) fat.push(u32(base + i * 4));
  }

  const chain = (start: number, table: number[]): number[] => {
    const sectors: number[] = [];
    for (let sector = start; sector !== END_OF_CHAIN; sector = table[sector]) {
      if (sector === FREE_SECTOR || sector >= table.length || sectors.length > table.length) fail('broken sector chain');
      sectors.push(sector);
    }
    return sectors;
  };
  const readChain = (start: number, size?: number): Uint8Array => {
    const sectors = chain(start, fat);
    const out = new Uint8Array(sectors.length * sectorSize);
    sectors.forEach((sector, i) => {
      const from = sectorOffset(sector);
      if (from + sectorSize > bytes.length) fail('truncated (a sector lies past the end of the file)');
      out.set(bytes.subarray(from, from + sectorSize), i * sectorSize);
    });
    return size === undefined ? out : out.subarray(0, size);
  };

  // Directory: 128-byte entries; name is UTF-16LE with its byte length (including the terminator) at 0x40.
  const directory = readChain(firstDirectorySector);
  const dirView = new DataView(directory.buffer, directory.byteOffset, directory.byteLength);
  const entries: DirectoryEntry[] = [];
  for (let offset = 0; offset + 128 <= directory.length; offset += 128) {
    const nameBytes = Math.max(0, Math.min(64, dirView.getUint16(offset + 0x40, true)) - 2);
    entries.push({
      name: new TextDecoder('utf-16le').decode(directory.subarray(offset, offset + nameBytes)),
      type: directory[offset + 0x42],
      start: dirView.getUint32(offset + 0x74, true),
      size: dirView.getUint32(offset + 0x78, true),
    });
  }
  const root = entries[0];
  const stream = entries.find((entry) => entry.type === 2 && names.includes(entry.name));
  if (!root || !stream) return fail(`no ${names.join('/')} stream (not an Excel workbook)`);
  if (stream.size >= miniStreamCutoff) return readChain(stream.start, stream.size);

  // Small stream: its sectors are mini sectors inside the root entry's stream, chained by the mini FAT.
  const miniFatBytes = readChain(firstMiniFatSector);
  const miniFatView = new DataView(miniFatBytes.buffer, miniFatBytes.byteOffset, miniFatBytes.byteLength);
  const miniFat = Array.from({ length: miniFatBytes.length / 4 }, (_, i) => miniFatView.getUint32(i * 4, true));
  const miniStream = readChain(root.start, root.size);
  const miniSectors = chain(stream.start, miniFat);
  const out = new Uint8Array(miniSectors.length * miniSectorSize);
  miniSectors.forEach((sector, i) => {
    out.set(miniStream.subarray(sector * miniSectorSize, (sector + 1) * miniSectorSize), i * miniSectorSize);
  });
  return out.subarray(0, stream.size);
}

// ---------------------------------------------------------------------------------------------------------------
// BIFF8 records: [type u16][length u16][payload]. Offsets below are from MS-XLS.

const BOF = 0x0809;
const EOF = 0x000a;
const BOUNDSHEET = 0x0085;
const SST = 0x00fc;
const CONTINUE = 0x003c;
const LABELSST = 0x00fd;
const LABEL = 0x0204;
const NUMBER = 0x0203;
const RK = 0x027e;
const MULRK = 0x00bd;
const FORMULA = 0x0006;
const STRING = 0x0207;
const BOOLERR = 0x0205;
const BIFF8_VERSION = 0x0600;

interface BiffRecord {
  type: number;
  data: Uint8Array;
  view: DataView;
  /** offset of the record header in the stream */
  offset: number;
}

function readBiff8(stream: Uint8Array): XlsSheet[] {
  const records = splitRecords(stream);
  const first = records[0];
  if (!first || first.type !== BOF || first.view.getUint16(0, true) !== BIFF8_VERSION) {
    throw new ImportError('Excel file: only Excel 97-2003 (BIFF8) workbooks are supported');
  }
  const byOffset = new Map(records.map((record, i) => [record.offset, i]));
  let strings: string[] = [];
  const sheets: { name: string; bofOffset: number }[] = [];
  for (let i = 0; i < records.length && records[i].type !== EOF; i++) {
    const record = records[i];
    if (record.type === BOUNDSHEET) {
      const kind = record.data[5]; // 0 = worksheet; charts and macro sheets are skipped
      if (kind === 0) {
        sheets.push({ name: new ByteReader([record.data], 6).shortString(), bofOffset: record.view.getUint32(0, true) });
      }
    } else if (record.type === SST) {
      const pieces = [record.data];
      while (records[i + 1]?.type === CONTINUE) pieces.push(records[++i].data);
      strings = readSharedStrings(pieces);
    }
  }
  return sheets.map(({ name, bofOffset }) => {
    const start = byOffset.get(bofOffset);
    if (start === undefined) throw new ImportError(`Excel file: sheet "${name}" points outside the workbook stream`);
    return { name, rows: readSheetCells(records, start + 1, strings) };
  });
}

function splitRecords(stream: Uint8Array): BiffRecord[] {
  const view = new DataView(stream.buffer, stream.byteOffset, stream.byteLength);
  const records: BiffRecord[] = [];
  for (let offset = 0; offset + 4 <= stream.length; ) {
    const type = view.getUint16(offset, true);
    const length = view.getUint16(offset + 2, true);
    if (type === 0 && length === 0) break; // zero padding after the last record
    if (offset + 4 + length > stream.length) throw new ImportError('Excel file: truncated record in the workbook stream');
    const data = stream.subarray(offset + 4, offset + 4 + length);
    records.push({ type, data, view: new DataView(data.buffer, data.byteOffset, data.byteLength), offset });
    offset += 4 + length;
  }
  return records;
}

function readSheetCells(records: BiffRecord[], from: number, strings: string[]): XlsCell[][] {
  const rows: XlsCell[][] = [];
  const put = (row: number, col: number, value: XlsCell) => {
    (rows[row] ??= [])[col] = value;
  };
  for (let i = from; i < records.length && records[i].type !== EOF; i++) {
    const { type, data, view } = records[i];
    if (data.length < 6) continue;
    const row = view.getUint16(0, true);
    const col = view.getUint16(2, true);
    switch (type) {
      case LABELSST: {
        const value = strings[view.getUint32(6, true)];
        if (value === undefined) throw new ImportError(`Excel file: cell (${row},${col}) refers to a missing shared string`);
        put(row, col, value);
        break;
      }
      case LABEL:
        put(row, col, new ByteReader([data], 6).longString());
        break;
      case NUMBER:
        put(row, col, view.getFloat64(6, true));
        break;
      case RK:
        put(row, col, decodeRk(view.getUint32(6, true)));
        break;
      case MULRK: {
        // [row][firstCol] then (xf u16, rk u32) per cell, then lastCol u16
        const count = (data.length - 6) / 6;
        for (let k = 0; k < count; k++) put(row, col + k, decodeRk(view.getUint32(4 + k * 6 + 2, true)));
        break;
      }
      case FORMULA: {
        // Cached result: a float, or (bytes 12..13 = 0xFFFF) a tagged value; tag 0 = string in the next STRING record.
        if (view.getUint16(12, true) !== 0xffff) {
          put(row, col, view.getFloat64(6, true));
        } else if (data[6] === 0 && records[i + 1]?.type === STRING) {
          put(row, col, new ByteReader([records[++i].data], 0).longString());
        } else if (data[6] === 1) {
          put(row, col, data[8] !== 0);
        }
        break;
      }
      case BOOLERR:
        if (data[7] === 0) put(row, col, data[6] !== 0); // data[7] = 1 marks an error code, not a boolean
        break;
    }
  }
  return rows;
}

/** RK: a 30-bit int or the top 30 bits of a double; bit 0 = divide by 100. */
function decodeRk(rk: number): number {
  let value: number;
  if (rk & 2) {
    value = rk >> 2;
  } else {
    const view = new DataView(new ArrayBuffer(8));
    view.setUint32(4, rk & 0xfffffffc, true);
    value = view.getFloat64(0, true);
  }
  return rk & 1 ? value / 100 : value;
}

/** The shared string table; strings may run across CONTINUE records (each continuation restarts with a flags byte). */
function readSharedStrings(pieces: Uint8Array[]): string[] {
  const reader = new ByteReader(pieces, 8);
  const uniqueCount = new DataView(pieces[0].buffer, pieces[0].byteOffset + 4, 4).getUint32(0, true);
  const strings: string[] = [];
  for (let i = 0; i < uniqueCount; i++) strings.push(reader.longString());
  return strings;
}

/** Reads BIFF8 unicode strings from one or more record payloads (CONTINUE pieces). */
class ByteReader {
  private piece = 0;

  constructor(
    private readonly pieces: Uint8Array[],
    private pos: number,
  ) {}

  /** XLUnicodeString / XLUnicodeRichExtendedString: cch u16, flags, [runs u16], [ext u32], chars, [runs], [ext]. */
  longString(): string {
    const length = this.u16();
    return this.stringBody(length);
  }

  /** ShortXLUnicodeString: cch u8, flags, chars. */
  shortString(): string {
    const length = this.u8();
    return this.stringBody(length);
  }

  private stringBody(length: number): string {
    let flags = this.u8();
    const runs = flags & 0x08 ? this.u16() : 0;
    const extLength = flags & 0x04 ? this.u32() : 0;
    let out = '';
    while (out.length < length) {
      const wide = (flags & 0x01) !== 0;
      const available = Math.floor((this.current().length - this.pos) / (wide ? 2 : 1));
      if (available === 0) {
        // Character data split across records: the continuation starts with a new flags byte.
        this.nextPiece();
        flags = this.u8();
        continue;
      }
      const take = Math.min(length - out.length, available);
      const bytes = this.current().subarray(this.pos, this.pos + take * (wide ? 2 : 1));
      // Compressed (8-bit) characters are the low bytes of UTF-16 code units, i.e. ISO-8859-1, not windows-1252.
      out += wide ? new TextDecoder('utf-16le').decode(bytes) : String.fromCharCode(...bytes);
      this.pos += bytes.length;
    }
    this.skip(runs * 4 + extLength);
    return out;
  }

  private current(): Uint8Array {
    return this.pieces[this.piece];
  }

  private nextPiece(): void {
    this.piece++;
    this.pos = 0;
    if (this.piece >= this.pieces.length) throw new ImportError('Excel file: string table ends mid-string');
  }

  private u8(): number {
    while (this.pos >= this.current().length) this.nextPiece();
    return this.current()[this.pos++];
  }

  private u16(): number {
    return this.u8() | (this.u8() << 8);
  }

  private u32(): number {
    return (this.u16() | (this.u16() << 16)) >>> 0;
  }

  private skip(count: number): void {
    for (let i = 0; i < count; i++) this.u8();
  }
}
