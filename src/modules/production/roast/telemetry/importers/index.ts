import { parseAillioJson } from './aillio.js';
import { parseArtisanAlog, parseArtisanJson } from './artisan.js';
import { parseArtisanCsv } from './artisan-csv.js';
import { parseCropsterXls } from './cropster.js';
import { finishImport } from './finish.js';
import { parseIkawaCsv } from './ikawa.js';
import { parseLoringCsv } from './loring.js';
import { parseRoestCsv } from './roest.js';
import { ImportError, type ImportFormat, type ImportedRoast, type ParsedLog } from './types.js';

export { ImportError } from './types.js';
export type { ImportFormat, ImportedRoast, LogDetails, RoastMeta, SpecialEvent } from './types.js';

/**
 * Roast-logger import: `importRoastLog(content)` detects the format from the content (never the file name), parses
 * it and returns the curve in °C with times rebased on charge. Text formats are passed as decoded text; the binary
 * Cropster .xls is passed base64-encoded.
 */

const PARSERS: Record<ImportFormat, (content: string) => ParsedLog> = {
  artisan_alog: parseArtisanAlog,
  artisan_json: parseArtisanJson,
  artisan_csv: parseArtisanCsv,
  ikawa_csv: parseIkawaCsv,
  roest_csv: parseRoestCsv,
  loring_csv: parseLoringCsv,
  aillio_json: parseAillioJson,
  cropster_xls: (content) => parseCropsterXls(decodeBase64(content)),
};

/** Throws ImportError for unreadable content (the message names the problem and, where known, the line or field). */
export function importRoastLog(content: string): ImportedRoast {
  const format = detectFormat(content);
  return finishImport(format, PARSERS[format](stripBom(content)));
}

/** base64 of the OLE2 signature D0 CF 11 E0 A1 B1 1A E1 starts with these characters. */
const BASE64_OLE2 = '0M8R4KGx';

/**
 * Sniffs the format from the first characters and key names only, so truncated files are still recognised and then
 * fail in the parser with a precise message. The only OLE2 (Excel 97) roast export supported is Cropster's; the
 * parser confirms the workbook really is one.
 */
export function detectFormat(content: string): ImportedRoast['format'] {
  const text = stripBom(content).trimStart();
  if (text === '') throw new ImportError('empty content');
  if (text.startsWith(BASE64_OLE2)) return 'cropster_xls';
  // OLE2 bytes decoded as UTF-8 (D0 CF is not valid UTF-8) or as Latin-1.
  if (text.startsWith('\ufffd\ufffd\u0011\ufffd') || text.startsWith('\u00d0\u00cf\u0011\u00e0')) {
    throw new ImportError('binary Excel (.xls) content must be passed base64-encoded');
  }

  if (text.startsWith('{')) {
    // Python repr quotes keys with ' (u' in Python 2 builds); JSON with ".
    if (/^\{\s*[uU]?'/.test(text)) {
      if (/'timex'\s*:/.test(text)) return 'artisan_alog';
      throw new ImportError("Python-literal content without a 'timex' key is not an Artisan .alog profile");
    }
    if (/"timex"\s*:/.test(text)) return 'artisan_json';
    if (/"beanTemperature"\s*:/.test(text)) return 'aillio_json';
    throw new ImportError('JSON without an Artisan "timex" or RoasTime "beanTemperature" key is not a known roast log');
  }

  const firstLine = text.slice(0, text.search(/\r|\n|$/));
  if (/^Date:[^\t]*\tUnit:/.test(firstLine)) return 'artisan_csv';
  const columns = firstLine.split(',').map((name) => name.trim());
  if (columns.includes('state') && (columns.includes('exaust temp') || columns.includes('temp above'))) {
    return 'ikawa_csv';
  }
  if (columns[0] === 'Time' && columns.includes('Event') && columns.some((name) => name.startsWith('Bean temp ('))) {
    return 'roest_csv';
  }
  if (columns.includes('RoastingOnOff') && columns.includes('BeanTemperature')) return 'loring_csv';
  throw new ImportError(`unrecognised roast log format (first line: "${firstLine.slice(0, 80)}")`);
}

function stripBom(content: string): string {
  return content.charCodeAt(0) === 0xfeff ? content.slice(1) : content;
}

function decodeBase64(content: string): Uint8Array {
  const compact = content.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact)) throw new ImportError('Excel (.xls) content is not valid base64');
  return Buffer.from(compact, 'base64');
}
