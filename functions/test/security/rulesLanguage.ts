/**
 * A reader of the subset of the Firebase security rules language that firestore.rules and
 * storage.rules use (rules_version, service, nested match blocks with paths, allow statements,
 * function declarations), enough to say what every `allow` grants without Google's emulators
 * (Java 21), which security/rules.stack.test.ts needs and this project's machines lack. Anything
 * outside the subset is an error, so a construct it does not know can never pass as "denies all".
 */

export interface Allow {
  /** The match paths from the service down to this statement, e.g. ["/b/{bucket}/o", "/{allPaths=**}"]. */
  matches: string[];
  methods: string[];
  /** The condition as written (spaces collapsed), e.g. "false" or "request.auth != null"; "" for `allow read;`, which allows always. */
  condition: string;
  /** The condition is the literal `false`, in as many parentheses as any: the statement allows nothing. */
  never: boolean;
}

export interface RulesFile {
  service: string;
  allows: Allow[];
  /** Every match path, as `matches` of an Allow, whether or not it holds an allow. */
  matchBlocks: string[][];
}

const METHODS = new Set(["read", "write", "get", "list", "create", "update", "delete"]);

interface Token {
  kind: "word" | "string" | "number" | "punct" | "path";
  text: string;
  offset: number;
}

const PATTERNS: [Token["kind"], RegExp][] = [
  ["word", /^[A-Za-z_]\w*/],
  ["string", /^'(?:[^'\\\n]|\\.)*'|^"(?:[^"\\\n]|\\.)*"/],
  ["number", /^\d+(?:\.\d+)?/],
  ["punct", /^(?:==|!=|<=|>=|&&|\|\||[{}()[\];,:.=<>!+\-*/%?])/],
];

/** Splits rules source into tokens; a path is read as one token after `match`. */
export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const fail = (what: string): never => {
    const line = source.slice(0, i).split("\n").length;
    throw new Error(`rules, line ${line}: ${what}`);
  };
  while (i < source.length) {
    const rest = source.slice(i);
    const space = /^\s+/.exec(rest);
    if (space) {
      i += space[0].length;
      continue;
    }
    if (rest.startsWith("//")) {
      const end = source.indexOf("\n", i);
      i = end === -1 ? source.length : end;
      continue;
    }
    if (rest.startsWith("/*")) {
      const end = source.indexOf("*/", i + 2);
      if (end === -1) fail("unterminated comment");
      i = end + 2;
      continue;
    }
    // A match path: segments of literals, {name} or {name=**}, written without spaces.
    if (tokens.at(-1)?.text === "match" && tokens.at(-1)?.kind === "word") {
      const path = /^(?:\/(?:\{[A-Za-z_]\w*(?:=\*\*)?\}|[^/\s{}]+))+/.exec(rest);
      if (!path) fail("a match needs a path such as /collection/{id}");
      tokens.push({ kind: "path", text: path![0], offset: i });
      i += path![0].length;
      continue;
    }
    let token: Omit<Token, "offset"> | undefined;
    for (const [kind, pattern] of PATTERNS) {
      const found = pattern.exec(rest);
      if (found) {
        token = { kind, text: found[0] };
        break;
      }
    }
    if (!token) fail(`unexpected character '${rest[0]}'`);
    tokens.push({ ...token!, offset: i });
    i += token!.text.length;
  }
  return tokens;
}

/** Parses a rules file of the subset; throws on anything else. */
export function parseRules(source: string): RulesFile {
  const tokens = tokenize(source);
  let at = 0;
  const peek = () => tokens[at];
  const fail = (what: string): never => {
    const token = peek();
    const line = token ? source.slice(0, token.offset).split("\n").length : source.split("\n").length;
    throw new Error(`rules, line ${line}: ${what}${token ? ` (found '${token.text}')` : " (found the end of the file)"}`);
  };
  const expect = (text: string) => (peek()?.text === text ? tokens[at++] : fail(`expected '${text}'`));
  const word = () => (peek()?.kind === "word" ? tokens[at++].text : fail("expected a name"));

  if (peek()?.text === "rules_version") {
    at++;
    expect("=");
    if (peek()?.kind !== "string") fail("expected a version string");
    at++;
    expect(";");
  }
  expect("service");
  const service = [word()];
  while (peek()?.text === ".") {
    at++;
    service.push(word());
  }
  const allows: Allow[] = [];
  const matchBlocks: string[][] = [];

  /** Skips a function declaration: a function grants nothing unless an allow calls it, and every allow must be `if false`. */
  const skipFunction = () => {
    expect("function");
    word();
    expect("(");
    while (peek() && peek().text !== ")") at++;
    expect(")");
    expect("{");
    let depth = 1;
    while (depth > 0) {
      if (!peek()) fail("unterminated function");
      const text = tokens[at++].text;
      if (text === "{") depth++;
      if (text === "}") depth--;
    }
  };

  /** The statements of a block, up to and including its closing brace. */
  const block = (matches: string[]) => {
    expect("{");
    while (peek()?.text !== "}") {
      const text = peek()?.text;
      if (text === "match") {
        at++;
        if (peek()?.kind !== "path") fail("expected a match path");
        const inner = [...matches, tokens[at++].text];
        matchBlocks.push(inner);
        block(inner);
      } else if (text === "function") {
        skipFunction();
      } else if (text === "allow") {
        if (matches.length === 0) fail("an allow outside every match");
        at++;
        const methods = [word()];
        while (peek()?.text === ",") {
          at++;
          methods.push(word());
        }
        for (const method of methods) if (!METHODS.has(method)) fail(`unknown method '${method}'`);
        const condition: Token[] = [];
        if (peek()?.text === ":") {
          at++;
          expect("if");
          while (peek() && peek().text !== ";") {
            if (peek().text === "}" || peek().text === "allow" || peek().text === "match") fail("expected ';' after the condition");
            condition.push(tokens[at++]);
          }
          if (condition.length === 0) fail("expected a condition after 'if'");
        }
        expect(";");
        const words = condition.map((t) => t.text);
        const opening = words.findIndex((w) => w !== "(");
        const never = words[opening] === "false" && words.length === 2 * opening + 1 && words.slice(opening + 1).every((w) => w === ")");
        const text = condition.length === 0 ? "" : source.slice(condition[0].offset, condition.at(-1)!.offset + condition.at(-1)!.text.length).replace(/\s+/g, " ");
        allows.push({ matches, methods, condition: text, never });
      } else {
        fail("expected match, allow, function or '}'");
      }
    }
    expect("}");
  };
  block([]);
  if (peek()) fail("expected the end of the file after the service");
  return { service: service.join("."), allows, matchBlocks };
}

/**
 * What keeps a rules file from denying every client read and write: each `allow` whose condition is
 * not `false` (a missing condition allows always), or the file's service is not `service`. Empty
 * when the file denies everything; throws when it is not of the subset.
 */
export function denyAllProblems(source: string, service: string): string[] {
  const rules = parseRules(source);
  const problems: string[] = [];
  if (rules.service !== service) problems.push(`the service is ${rules.service}, not ${service}`);
  for (const allow of rules.allows) {
    if (!allow.never) problems.push(`match ${allow.matches.join(" ")}: allow ${allow.methods.join(", ")}${allow.condition ? `: if ${allow.condition}` : " (no condition: always)"}`);
  }
  return problems;
}
