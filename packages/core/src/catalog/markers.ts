/** One `key=value` marker after the `|` of a simple-schema field. */
export interface Marker {
  key: string;
  value: string;
  /** The value was written in double quotes (so `default="3"` on a string stays the string "3"). */
  quoted: boolean;
}

export interface FieldDeclaration {
  /** The type expression before `|`: `string`, `[]integer`, `map[string]Port`, ... */
  type: string;
  markers: Marker[];
}

const isSpace = (c: string) => c === ' ' || c === '\t' || c === '\n' || c === '\r';

/** Reads a double-quoted value starting at `text[start] === '"'`; `\"` and `\\` are escapes, other backslashes stay. */
function readQuoted(text: string, start: number): { value: string; end: number } {
  let value = '';
  for (let i = start + 1; i < text.length; i++) {
    const c = text[i];
    if (c === '\\' && (text[i + 1] === '"' || text[i + 1] === '\\')) {
      value += text[i + 1];
      i++;
    } else if (c === '"') {
      return { value, end: i + 1 };
    } else {
      value += c;
    }
  }
  throw new Error('unclosed quote in markers');
}

/** Reads a JSON-ish `{...}` or `[...]` value (defaults of objects and arrays), honouring nesting and quotes. */
function readBracketed(text: string, start: number): { value: string; end: number } {
  let depth = 0;
  let inQuotes = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inQuotes) {
      if (c === '\\') i++;
      else if (c === '"') inQuotes = false;
    } else if (c === '"') inQuotes = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return { value: text.slice(start, i + 1), end: i + 1 };
    }
  }
  throw new Error('unclosed bracket in markers');
}

/** Parses `required=true default=3 description="two words"` into markers. Later duplicates win, as in kro. */
export function parseMarkers(text: string): Marker[] {
  const markers: Marker[] = [];
  let i = 0;
  while (i < text.length) {
    if (isSpace(text[i])) {
      i++;
      continue;
    }
    const eq = text.indexOf('=', i);
    const keyEnd = eq < 0 ? text.length : eq;
    const key = text.slice(i, keyEnd);
    if (eq < 0 || /\s/.test(key)) throw new Error(`marker "${key.split(/\s/)[0]}" has no value (expected key=value)`);
    if (!/^[A-Za-z]+$/.test(key)) throw new Error(`invalid marker name "${key}"`);
    let pos = eq + 1;
    let read: { value: string; end: number };
    let quoted = false;
    if (text[pos] === '"') {
      read = readQuoted(text, pos);
      quoted = true;
    } else if (text[pos] === '{' || text[pos] === '[') {
      read = readBracketed(text, pos);
    } else {
      let end = pos;
      while (end < text.length && !isSpace(text[end])) end++;
      read = { value: text.slice(pos, end), end };
    }
    pos = read.end;
    if (pos < text.length && !isSpace(text[pos])) throw new Error(`unexpected text after the value of marker "${key}"`);
    const existing = markers.findIndex((m) => m.key === key);
    if (existing >= 0) markers.splice(existing, 1);
    markers.push({ key, value: read.value, quoted });
    i = pos;
  }
  return markers;
}

/** Splits `type | markers` at the first `|` (a type never contains one; a pattern marker may). */
export function parseFieldDeclaration(text: string): FieldDeclaration {
  const bar = text.indexOf('|');
  const type = (bar < 0 ? text : text.slice(0, bar)).trim();
  if (!type) throw new Error('missing type');
  return { type, markers: bar < 0 ? [] : parseMarkers(text.slice(bar + 1)) };
}
