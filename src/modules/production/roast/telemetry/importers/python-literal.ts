import { ImportError } from './types.js';

/**
 * Parses the subset of Python literal syntax that `repr()` of Artisan's profile dict produces (what Python's
 * `ast.literal_eval` reads back): dicts, lists, tuples, str (single or double quoted, optional u/r/b prefix, escape
 * sequences), int, float, True, False, None, and a unary minus. `.alog` files are not JSON: strings switch to double
 * quotes when they contain a single quote, so no quote-swapping trick works; this is a real (small) parser.
 *
 * Tuples are returned as arrays and sets are not supported (repr of a profile never contains either).
 */

export type PythonValue = string | number | boolean | null | PythonValue[] | { [key: string]: PythonValue };

export function parsePythonLiteral(source: string): PythonValue {
  const parser = new LiteralParser(source);
  const value = parser.value();
  parser.expectEnd();
  return value;
}

/** The escapes `repr()` emits (other control characters come out as \xNN), plus backslash-newline continuation. */
const SIMPLE_ESCAPES: Record<string, string> = {
  '\\': '\\',
  "'": "'",
  '"': '"',
  n: '\n',
  r: '\r',
  t: '\t',
  '\n': '',
};

const ESCAPE = /\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[\s\S])/g;

/**
 * Resolves Python backslash escapes. Used for string literals and for Artisan's text fields, which are stored
 * `unicode_escape`-encoded inside the literal (so "\\n" in the parsed value still means a newline). Unknown escapes stay
 * verbatim, as Python keeps them.
 */
export function unescapePython(text: string): string {
  return text.replace(ESCAPE, (whole, escape: string) => {
    if (escape.length === 1) return SIMPLE_ESCAPES[escape] ?? whole;
    const codePoint = parseInt(escape.slice(1), 16);
    return codePoint <= 0x10ffff ? String.fromCodePoint(codePoint) : whole;
  });
}

const NUMBER = /[+-]?(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][+-]?\d+)?/y;
const NAME = /[A-Za-z_][A-Za-z0-9_]*/y;

class LiteralParser {
  private pos = 0;

  constructor(private readonly src: string) {}

  value(): PythonValue {
    this.skipSpace();
    const ch = this.src[this.pos];
    if (ch === undefined) this.fail('unexpected end of input');
    if (ch === '{') return this.dict();
    if (ch === '[') return this.sequence(']');
    if (ch === '(') return this.sequence(')');
    if (ch === "'" || ch === '"') return this.string();
    if (/[0-9.+-]/.test(ch)) return this.number();
    if (/[A-Za-z_]/.test(ch)) return this.name();
    return this.fail(`unexpected character ${JSON.stringify(ch)}`);
  }

  expectEnd(): void {
    this.skipSpace();
    if (this.pos < this.src.length) this.fail('unexpected text after the literal');
  }

  private dict(): { [key: string]: PythonValue } {
    this.pos++; // '{'
    const out: { [key: string]: PythonValue } = {};
    for (;;) {
      this.skipSpace();
      if (this.peek('}')) break;
      const keyAt = this.pos;
      const key = this.value();
      if (typeof key !== 'string' && typeof key !== 'number') this.fail('dict keys must be strings or numbers', keyAt);
      this.skipSpace();
      this.expect(':');
      out[String(key)] = this.value();
      if (!this.separator('}')) break;
    }
    this.expect('}');
    return out;
  }

  private sequence(close: ']' | ')'): PythonValue[] {
    this.pos++; // '[' or '('
    const out: PythonValue[] = [];
    for (;;) {
      this.skipSpace();
      if (this.peek(close)) break;
      out.push(this.value());
      if (!this.separator(close)) break;
    }
    this.expect(close);
    return out;
  }

  /** After an item: consumes ',' and returns true, or returns false when the closing bracket follows. */
  private separator(close: string): boolean {
    this.skipSpace();
    if (this.peek(',')) {
      this.pos++;
      return true;
    }
    if (this.peek(close)) return false;
    if (this.pos >= this.src.length) this.fail('unexpected end of input');
    return this.fail(`expected ',' or '${close}'`);
  }

  private string(raw = false): string {
    const quote = this.src[this.pos];
    const delimiter = this.src.startsWith(quote.repeat(3), this.pos) ? quote.repeat(3) : quote;
    const start = this.pos;
    let end = this.pos + delimiter.length;
    for (;;) {
      if (end >= this.src.length) this.fail('unterminated string', start);
      if (this.src.startsWith(delimiter, end)) break;
      if (this.src[end] === '\n' && delimiter.length === 1) this.fail('unterminated string', start);
      end += this.src[end] === '\\' ? 2 : 1;
    }
    const body = this.src.slice(start + delimiter.length, end);
    this.pos = end + delimiter.length;
    return raw ? body : unescapePython(body);
  }

  private number(): number {
    NUMBER.lastIndex = this.pos;
    const match = NUMBER.exec(this.src);
    if (!match || !/\d/.test(match[0])) return this.fail('expected a number');
    this.pos += match[0].length;
    return Number(match[0].replace(/_/g, ''));
  }

  private name(): PythonValue {
    NAME.lastIndex = this.pos;
    const word = NAME.exec(this.src)![0];
    const next = this.src[this.pos + word.length];
    // String prefixes (u'..', r'..', b'..'); old Python 2 Artisan builds wrote u'..'.
    if (/^[uUrRbB]$/.test(word) && (next === "'" || next === '"')) {
      this.pos += 1;
      return this.string(word === 'r' || word === 'R');
    }
    this.pos += word.length;
    if (word === 'True') return true;
    if (word === 'False') return false;
    if (word === 'None') return null;
    return this.fail(`unexpected name ${word}`, this.pos - word.length);
  }

  private skipSpace(): void {
    while (this.pos < this.src.length && /\s/.test(this.src[this.pos])) this.pos++;
  }

  private peek(ch: string): boolean {
    return this.src[this.pos] === ch;
  }

  private expect(ch: string): void {
    this.skipSpace();
    if (this.src[this.pos] !== ch) {
      this.fail(this.pos >= this.src.length ? 'unexpected end of input' : `expected '${ch}'`);
    }
    this.pos++;
  }

  private fail(problem: string, at = this.pos): never {
    const before = this.src.slice(0, at);
    const line = before.split('\n').length;
    const column = at - before.lastIndexOf('\n');
    throw new ImportError(`line ${line}, column ${column}: ${problem}`);
  }
}

/**
 * Writes a value as the Python literal `repr()` would, for files Artisan reads with `ast.literal_eval` (and
 * parsePythonLiteral reads back exactly): dict keys and strings in single quotes with `\\`, `'` and control
 * characters escaped; numbers as floats (`200.0`, `1e-07`-style exponents are Python too), so every reading
 * parses back to the same double; null as None. Integers are written as ints only when asked (`int()`).
 */
export function toPythonLiteral(value: PythonWritable): string {
  if (value === null) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (value instanceof PythonInt) return String(value.value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`${value} has no Python literal`);
    const text = String(value);
    return /[.e]/.test(text) ? text : `${text}.0`;
  }
  if (typeof value === 'string') return `'${value.replace(/[\\'\x00-\x1f\x7f]/g, pythonEscape)}'`;
  if (Array.isArray(value)) return `[${value.map(toPythonLiteral).join(', ')}]`;
  return `{${Object.entries(value).map(([key, item]) => `${toPythonLiteral(key)}: ${toPythonLiteral(item)}`).join(', ')}}`;
}

/** What toPythonLiteral writes: a parsed literal's values, plus ints. */
export type PythonWritable = string | number | boolean | null | PythonInt | PythonWritable[] | { [key: string]: PythonWritable };

/** A whole number written as a Python int (Artisan indexes lists with them, and `roastepoch` must be one). */
export class PythonInt {
  constructor(readonly value: number) {
    if (!Number.isSafeInteger(value)) throw new Error(`${value} is not an integer`);
  }
}

export const int = (value: number) => new PythonInt(value);

function pythonEscape(ch: string): string {
  if (ch === '\\' || ch === "'") return `\\${ch}`;
  if (ch === '\n') return '\\n';
  if (ch === '\r') return '\\r';
  if (ch === '\t') return '\\t';
  return `\\x${ch.charCodeAt(0).toString(16).padStart(2, '0')}`;
}

/**
 * Artisan's `encodeLocal` (Python's `unicode_escape` codec) for its text fields: backslash, control and
 * non-ASCII characters as escapes, so the literal stays ASCII and unescapePython restores the text.
 */
export function encodeLocal(text: string): string {
  let out = '';
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (code >= 0x20 && code < 0x7f) out += ch;
    else if (code < 0x100) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else if (code < 0x10000) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += `\\U${code.toString(16).padStart(8, '0')}`;
  }
  return out;
}
