// The documents the rendering benchmark prints: built once by the orchestrator (render.ts), written to
// a JSON file and read by every worker process, so that every engine gets exactly the same content.

import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { PrintableField, PrintableInstance, RenderedPdf, RenderOptions } from "../src/print/render";

export const FUNCTIONS_DIR = resolve(__dirname, "..");
export const ROOT_DIR = resolve(FUNCTIONS_DIR, "..");
export const DEMO_FIXTURE = resolve(ROOT_DIR, "emulator-data", "demo.json");
export const DEMO_TENANT = "acme-north";

/** The compiled renderer (lib/, what the function runs), typed by its source. */
export type RendererModule = typeof import("../src/print/render");
export const RENDERER_MODULE = resolve(FUNCTIONS_DIR, "lib", "print", "render", "index.js");
export const FORMAT_MODULE = resolve(FUNCTIONS_DIR, "lib", "print", "render", "format.js");
export type FormatModule = typeof import("../src/print/render/format");

/** One document to print, and how it was made. */
export interface BenchCase {
  key: string;
  /** Short name for the table. */
  name: string;
  /** How the instance was made (printed under the table). */
  description: string;
  instanceId: string;
  targetName: string;
  /** ISO 8601; the same for every render (footer and PDF dates). */
  generatedAt: string;
  instance: PrintableInstance;
  /** Field and table-row counts, for the description. */
  fieldCount: number;
  tableRows: number;
  /** Whether the case is one of the three the issue names (others are extra rows). */
  primary: boolean;
}

export function renderOptions(c: BenchCase): RenderOptions {
  return { instanceId: c.instanceId, targetName: c.targetName, generatedAt: new Date(c.generatedAt) };
}

/** A fixed generation time: every render of a case is the same document. */
const GENERATED_AT = "2026-05-04T16:20:00.000Z";

interface Fixture {
  documents: Record<string, Record<string, unknown>>;
}

function loadFixture(): Fixture {
  return JSON.parse(readFileSync(DEMO_FIXTURE, "utf8")) as Fixture;
}

/** A demo instance as the print function reads it (the `updatedAt` timestamp marker left out). */
function demoInstance(fixture: Fixture, id: string): PrintableInstance {
  const doc = fixture.documents[`tenants/${DEMO_TENANT}/objectInstances/${id}`];
  if (!doc) throw new Error(`demo instance '${id}' is not in ${DEMO_FIXTURE}`);
  const { updatedAt: _ignored, ...rest } = doc;
  return structuredClone(rest) as unknown as PrintableInstance;
}

function counts(instance: PrintableInstance): { fieldCount: number; tableRows: number } {
  let fieldCount = 0;
  let tableRows = 0;
  for (const s of instance.sections) {
    for (const f of s.fields) {
      fieldCount++;
      if (f.type === "table") tableRows += ((f.value as { rows?: unknown[] } | null)?.rows ?? []).length;
    }
  }
  return { fieldCount, tableRows };
}

// ---- the 2,000-row table ------------------------------------------------------------------------

/** A small deterministic pseudo-random generator (32-bit xorshift), so the table is the same every run. */
function xorshift(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 0x100000000;
  };
}

const INSPECTORS = ["F. Lefèvre", "A. Okafor", "Ν. Παπαδόπουλος", "И. Смирнова", "J. García", "K. Nowak", "M. Jensen", "S. Øvergaard"];
const STATUSES = ["OK", "OK", "OK", "OK", "Check", "Out of range", "Sensor fault"];
const REMARKS = [
  "",
  "",
  "",
  "Reading taken after restart",
  "Valve re-seated, reading repeated",
  "Gauge glass fogged; value estimated",
  "Client representative present",
  "Προσωρινή μέτρηση / временное значение",
];

export function bigTableInstance(rows: number): PrintableInstance {
  const rnd = xorshift(20260504);
  const tableRows: { cells: (string | number | null)[] }[] = [];
  const start = Date.UTC(2026, 0, 1);
  for (let i = 0; i < rows; i++) {
    const when = new Date(start + i * 3 * 3600_000);
    const asset = `M-${String(100 + Math.floor(rnd() * 80)).padStart(3, "0")}`;
    const pressure = Math.round((3.5 + rnd() * 2) * 100) / 100;
    const temperature = Math.round((60 + rnd() * 40) * 10) / 10;
    const flow = Math.round(1000 + rnd() * 48000);
    const status = STATUSES[Math.floor(rnd() * STATUSES.length)];
    const inspector = INSPECTORS[Math.floor(rnd() * INSPECTORS.length)];
    const remark = REMARKS[Math.floor(rnd() * REMARKS.length)];
    tableRows.push({
      cells: [i + 1, when.toISOString().slice(0, 16).replace("T", " "), asset, pressure, temperature, flow, status, inspector, remark === "" ? null : remark],
    });
  }
  const fields: PrintableField[] = [
    { label: "Site", type: "text", value: "Plant N3, Acme North" },
    { label: "Period", type: "text", value: "1 January 2026 – 10 September 2026" },
    { label: "Meters", type: "number", value: 80 },
    { label: "Exported", type: "datetime", value: "2026-09-10T08:00:00Z" },
  ];
  return {
    title: `Meter Readings Export — ${rows.toLocaleString("en-GB")} rows`,
    objectTypeName: "Reading Log",
    sections: [
      { title: "Export", fields },
      {
        title: "Readings",
        fields: [
          {
            label: "Readings",
            type: "table",
            value: {
              columns: ["#", "Recorded (UTC)", "Meter", "Pressure (bar)", "Temperature (°C)", "Flow (l/h)", "Status", "Inspector", "Remarks"],
              rows: tableRows,
            },
          },
        ],
      },
    ],
  };
}

// ---- the one-page instance ----------------------------------------------------------------------

/**
 * inspection-short as stored is 30 fields and may not fit one page. The one-page case keeps its
 * content but drops the two longtext notes, cuts the table to its first two rows, then keeps the
 * longest prefix of the remaining fields that our renderer lays out on one page.
 */
async function onePageCut(base: PrintableInstance, render: RendererModule["renderInstancePdf"], options: RenderOptions): Promise<{ instance: PrintableInstance; note: string }> {
  const trimmed = structuredClone(base);
  for (const s of trimmed.sections) {
    s.fields = s.fields.filter((f) => f.type !== "longtext");
    for (const f of s.fields) {
      const v = f.value as { rows?: unknown[] } | null;
      if (f.type === "table" && v && Array.isArray(v.rows)) v.rows = v.rows.slice(0, 2);
    }
  }
  const total = counts(trimmed).fieldCount;
  for (let keep = total; keep > 0; keep--) {
    const cut = structuredClone(trimmed);
    let i = 0;
    for (const s of cut.sections) s.fields = s.fields.filter(() => i++ < keep);
    cut.sections = cut.sections.filter((s) => s.fields.length > 0);
    // A row's height to spare, so that the peers (whose layouts differ by a point or two) fit it on one page too.
    const probe = structuredClone(cut);
    probe.sections[probe.sections.length - 1].fields.push({ label: "Spare row", type: "text", value: "x" });
    if ((await render(probe, options)).pageCount === 1) {
      return { instance: cut, note: `its two longtext notes dropped, its table cut to 2 rows, then its first ${keep} remaining fields (the most that fit one page with a row to spare)` };
    }
  }
  throw new Error("no prefix of inspection-short fits one page");
}

/** Builds every case. `renderer` decides the one-page cut and reports page counts. */
export async function buildCases(renderer: RendererModule): Promise<BenchCase[]> {
  const fixture = loadFixture();
  const targetName = String(fixture.documents[`tenants/${DEMO_TENANT}`]?.name ?? DEMO_TENANT);
  const make = (key: string, name: string, description: string, instanceId: string, instance: PrintableInstance, primary: boolean): BenchCase => ({
    key,
    name,
    description,
    instanceId,
    targetName,
    generatedAt: GENERATED_AT,
    instance,
    primary,
    ...counts(instance),
  });
  const options = { instanceId: "inspection-short", targetName, generatedAt: new Date(GENERATED_AT) };
  const short = demoInstance(fixture, "inspection-short");
  const shortPages = (await renderer.renderInstancePdf(short, options)).pageCount;
  const cases: BenchCase[] = [];
  if (shortPages === 1) {
    cases.push(make("one-page", "a. one page", "demo `inspection-short` as stored (it fits one page)", "inspection-short", short, true));
  } else {
    const cut = await onePageCut(short, renderer.renderInstancePdf, options);
    cases.push(make("one-page", "a. one page", `demo \`inspection-short\` (which as stored takes ${shortPages} pages here) with ${cut.note}`, "inspection-short", cut.instance, true));
    cases.push(make("inspection-short", "a*. inspection-short", `demo \`inspection-short\` as stored (30 fields; ${shortPages} pages in our renderer)`, "inspection-short", short, false));
  }
  cases.push(make("audit-long", "b. ~300 fields", "demo `audit-long` as stored", "audit-long", demoInstance(fixture, "audit-long"), true));
  cases.push(make("table-2000", "c. 2,000-row table", "generated in bench/cases.ts (deterministic): 4 fields and a 9-column table of 2,000 rows, Latin, Greek and Cyrillic text", "meter-readings-2000", bigTableInstance(2000), true));
  return cases;
}

export type { RenderedPdf };
