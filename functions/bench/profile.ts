// Where our renderer's time goes, measured: a worker process renders a case warm, again and again,
// under V8's sampling CPU profiler (node:inspector), and each sample's function is put in a stage of
// the pipeline by the file it belongs to (see STAGES). Run by render.ts after the timed renders:
//   node --import tsx bench/profile.ts <cases.json> <case key>   prints RESULT {json}

import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { Session, type Profiler } from "node:inspector";
import { renderOptions, RENDERER_MODULE, type BenchCase, type RendererModule } from "./cases";

/** Stages, first match wins: [stage, test on "function url"]. */
const STAGES: [string, RegExp][] = [
  ["shaping (HarfBuzz)", /harfbuzzjs|wasm|text\/shape\.js/],
  ["line breaking (UAX #14, dictionaries)", /linebreak|unicode-trie|text\/breaks\.js/],
  ["fonts per character, bidi, paragraphs", /bidi-js|text\/(paragraph|scripts|index|fonts)\.js|^(glyphId|advanceWidth|horizontalMetrics) /],
  ["subsetting fonts", /render\/ttf\.js/],
  // zlib's native calls have no url: writeSync, Zlib, init and close are its handle's.
  ["compressing streams (deflate)", /node:zlib|^(writeSync|Zlib|init|close) $/],
  ["document model and formatting", /render\/(model|format|words)\.js/],
  ["layout and pagination", /render\/(render|style|layout|blocks|table)\.js/],
  ["drawing (content streams, marked content)", /render\/(draw|content|language|tags)\.js/],
  ["writing the file (fonts, structure, objects)", /render\/(fontUse|structureTree|objects|pdf|file)\.js|node:internal\/crypto|^(Hash|digest|update) $/],
  ["garbage collection", /^\(garbage collector\)/],
];
export const STAGE_NAMES = [...STAGES.map(([name]) => name), "other (Node.js, V8)"];

export interface WhereTimeGoes {
  caseKey: string;
  /** ms per PDF, by stage (sums to the profiled ms per PDF). */
  msPerPdf: Record<string, number>;
  renders: number;
}

const WORKER = __filename;

/** Profiles `c` in a fresh worker process. */
export function whereTimeGoes(casesFile: string, c: BenchCase): WhereTimeGoes {
  const r = spawnSync(process.execPath, ["--import", "tsx", WORKER, casesFile, c.key], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  const line = r.stdout.split("\n").find((l) => l.startsWith("RESULT "));
  if (!line) throw new Error(`profile worker for ${c.key} failed: ${r.stderr.slice(-2000)}`);
  return JSON.parse(line.slice(7)) as WhereTimeGoes;
}

function stageOf(node: Profiler.ProfileNode): string {
  const key = `${node.callFrame.functionName} ${node.callFrame.url}`;
  return STAGES.find(([, re]) => re.test(key))?.[0] ?? STAGE_NAMES[STAGE_NAMES.length - 1];
}

async function worker(casesFile: string, key: string): Promise<void> {
  const c = (JSON.parse(readFileSync(casesFile, "utf8")) as BenchCase[]).find((x) => x.key === key)!;
  const renderer = require(RENDERER_MODULE) as RendererModule;
  const render = () => renderer.renderInstancePdf(c.instance, renderOptions(c));
  for (let i = 0; i < 10; i++) await render(); // fonts loaded, code warm
  const session = new Session();
  session.connect();
  const post = <T>(method: string, params?: object): Promise<T> =>
    new Promise((resolve, reject) => session.post(method, params ?? {}, (error, result) => (error ? reject(error) : resolve(result as T))));
  await post("Profiler.enable");
  await post("Profiler.setSamplingInterval", { interval: 100 });
  await post("Profiler.start");
  let renders = 0;
  const started = performance.now();
  while (performance.now() - started < 3000 || renders < 5) {
    await render();
    renders++;
  }
  const { profile } = await post<{ profile: Profiler.Profile }>("Profiler.stop");
  session.disconnect();
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const us: Record<string, number> = Object.fromEntries(STAGE_NAMES.map((s) => [s, 0]));
  profile.samples!.forEach((id, i) => {
    const node = byId.get(id)!;
    if (node.callFrame.functionName === "(idle)") return; // waiting, not rendering
    us[stageOf(node)] += profile.timeDeltas![i] ?? 0;
  });
  const msPerPdf = Object.fromEntries(Object.entries(us).map(([s, t]) => [s, t / 1000 / renders]));
  console.log(`RESULT ${JSON.stringify({ caseKey: key, msPerPdf, renders } satisfies WhereTimeGoes)}`);
}

if (require.main === module) {
  const [casesFile, key] = process.argv.slice(2);
  worker(casesFile, key).catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
}
