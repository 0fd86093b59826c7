// The template editor's reading of its JSON text (no DOM: unit-tested in test/web/templateJson.unit.test.ts):
// where a parse error is, line and column; which problems a 400 names ('path': problem); where each
// path's key and value lie in the text, to select them.

/** A place in the text: its offset, and its line and column counted from 1. */
export interface Place {
  offset: number;
  line: number;
  column: number;
}

/** A problem a 400 names: its JSON path within the template (undefined: not in the template), and what is wrong, named by that path. */
export interface Problem {
  path?: string[];
  text: string;
}

/** The line and column of an offset. */
export function placeOf(text: string, offset: number): Place {
  const before = text.slice(0, offset).split("\n");
  return { offset, line: before.length, column: before.at(-1)!.length + 1 };
}

/** Where JSON.parse stopped: V8 says "position N" (newer ones add the line and column), Firefox "line L column C". */
export function parseErrorPlace(text: string, error: Error): Place | undefined {
  const position = /position (\d+)/.exec(error.message);
  if (position) return placeOf(text, Number(position[1]));
  const lineColumn = /line (\d+) column (\d+)/.exec(error.message);
  if (!lineColumn) return undefined;
  const [line, column] = [Number(lineColumn[1]), Number(lineColumn[2])];
  const offset = text.split("\n").slice(0, line - 1).reduce((sum, l) => sum + l.length + 1, 0) + column - 1;
  return { offset, line, column };
}

/**
 * The problems of a 400's message ("Invalid body: 'template.sections.0.fields.1.width': Invalid
 * option...; 'template.name': ..."), with the paths under `prefix` made relative to the template (as
 * its author wrote it). A problem of unknown fields points at the first of them.
 */
export function problemsOf(message: string, prefix: string[] = []): Problem[] {
  const problems: Problem[] = [];
  for (const [, path, text] of message.matchAll(/'([^']*)': (.*?)(?=; '[^']*': |; and \d+ more problem|\.$|$)/gs)) {
    const full = path === "" ? [] : path.split(".");
    if (!prefix.every((segment, i) => full[i] === segment)) {
      problems.push({ text: `'${path}': ${text}` });
      continue;
    }
    const own = full.slice(prefix.length);
    const unknown = /^unknown fields? '([^']*)'/.exec(text);
    problems.push({ path: unknown ? [...own, unknown[1]] : own, text: own.length ? `'${own.join(".")}': ${text}` : text });
  }
  const more = /; (and \d+ more problem\(s\))\.$/.exec(message);
  if (more) problems.push({ text: more[1] });
  return problems;
}

/** Where a value lies: from its key (in an object) or its first character (in a list) to its end. */
export interface Range {
  start: number;
  end: number;
}

/** Every value of a well-formed JSON text by its path (keys and indexes joined by ".", as a 400 names them; the whole text: ""). */
export function valueRanges(text: string): Map<string, Range> {
  const ranges = new Map<string, Range>();
  let i = 0;
  const space = () => {
    while (/\s/.test(text[i] ?? "")) i++;
  };
  const skipString = () => {
    for (i++; text[i] !== '"'; i++) if (text[i] === "\\") i++;
    i++;
  };
  const value = (path: string, keyStart?: number): void => {
    space();
    const start = keyStart ?? i;
    const join = (segment: string | number) => (path === "" ? String(segment) : `${path}.${segment}`);
    if (text[i] === "{") {
      i++;
      space();
      for (; text[i] !== "}"; space()) {
        const key = i;
        skipString();
        const name = JSON.parse(text.slice(key, i)) as string;
        space();
        i++; // the colon
        value(join(name), key);
        space();
        if (text[i] === ",") i++;
      }
      i++;
    } else if (text[i] === "[") {
      i++;
      space();
      for (let n = 0; text[i] !== "]"; n++, space()) {
        value(join(n));
        space();
        if (text[i] === ",") i++;
      }
      i++;
    } else if (text[i] === '"') skipString();
    else while (i < text.length && !/[\s,\]}]/.test(text[i])) i++;
    ranges.set(path, { start, end: i });
  };
  value("");
  return ranges;
}

/** The range of a path in the text, or of the nearest value holding it (a missing field: its object); undefined if the text is not JSON. */
export function locate(text: string, path: string[]): (Range & { exact: boolean }) | undefined {
  let ranges: Map<string, Range>;
  try {
    JSON.parse(text);
    ranges = valueRanges(text);
  } catch {
    return undefined; // not JSON (or nested deeper than the stack): nowhere to point
  }
  for (let depth = path.length; depth >= 0; depth--) {
    const range = ranges.get(path.slice(0, depth).join("."));
    if (range) return { ...range, exact: depth === path.length };
  }
  return undefined;
}
