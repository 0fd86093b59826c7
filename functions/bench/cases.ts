// The documents the rendering benchmark prints: built once by the orchestrator (render.ts), written to
// a JSON file and read by every worker process, so that every engine gets exactly the same content.

import { readFileSync } from "node:fs";
import { PDFDocument, PDFHexString, PDFName, PDFString } from "pdf-lib";
import { resolve } from "node:path";
import type { PrintableField, PrintableInstance, RenderedPdf, RenderOptions } from "../src/print/render";
import type { DocumentTemplate } from "../src/print/render/template";
import { drawPicture, type FixturePicture } from "../stack/seed";

export const FUNCTIONS_DIR = resolve(__dirname, "..");
export const ROOT_DIR = resolve(FUNCTIONS_DIR, "..");
export const DEMO_FIXTURE = resolve(ROOT_DIR, "emulator-data", "demo.json");
export const DEMO_TENANT = "acme-north";

/** The compiled renderer (lib/, what the function runs), typed by its source. */
export type RendererModule = typeof import("../src/print/render");
export const RENDERER_MODULE = resolve(FUNCTIONS_DIR, "lib", "print", "render", "index.js");
export const FORMAT_MODULE = resolve(FUNCTIONS_DIR, "lib", "print", "render", "format.js");
export type FormatModule = typeof import("../src/print/render/format");
export type ScriptsModule = typeof import("../src/print/render/text/scripts");
export type HanStyle = import("../src/print/render/text/scripts").HanStyle;
const SCRIPTS_MODULE = resolve(FUNCTIONS_DIR, "lib", "print", "render", "text", "scripts.js");

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
  /** Whether the case is one of those the issues name (others are extra rows). */
  primary: boolean;
  /** A world-scripts case (complex scripts, right to left): the targets of the world-scripts issue apply. */
  worldScripts: boolean;
  /** BCP 47 language of the document as our renderer decides it (the language with the most letters): its PDF's /Lang. */
  language: string;
  /** A right-to-left document (the language's direction): the peers get dir="rtl" / Typst's dir: rtl. */
  rtl: boolean;
  /** Which Han forms the document uses, as our renderer decides it (the peers order their CJK fonts by it). */
  han: HanStyle;
  /** The files of its image and signature fields, by storage path: every engine gets the same bytes. */
  pictures?: Record<string, BenchPicture>;
  /** A print template it is printed with (issue 35): our renderer only. */
  template?: DocumentTemplate;
}

/** A stored picture as the print function would download it. */
export interface BenchPicture {
  contentType: "image/jpeg" | "image/png";
  width: number;
  height: number;
  base64: string;
}

const pictureBytes = new WeakMap<BenchPicture, Buffer>();
/** A picture's bytes (decoded once per worker: the download a request would do is not the engines' work). */
export function bytesOf(p: BenchPicture): Buffer {
  let bytes = pictureBytes.get(p);
  if (!bytes) pictureBytes.set(p, (bytes = Buffer.from(p.base64, "base64")));
  return bytes;
}

export function renderOptions(c: BenchCase): RenderOptions {
  return { instanceId: c.instanceId, targetName: c.targetName, generatedAt: new Date(c.generatedAt), ...(c.template && { template: c.template }) };
}

/**
 * The templated cases' template (issue 35's benchmark): half rows, photos two to a row, a header and
 * a footer with page numbers, a watermark and a QR code: every feature a page pays for at once.
 */
export const BENCH_TEMPLATE: DocumentTemplate = {
  header: { left: "{title}", right: "Ref. {field:Boiler tag}", firstPage: true },
  footer: { left: "{target} \u00b7 {instanceId}", center: "{generatedAt}", right: "Page {page} of {pages}" },
  sections: [
    { title: "Equipment & Inspection Details", fields: ["Boiler tag", "Manufacturer", "Model", "Serial number", "Year of manufacture", "Rated output (kW)", "Inspection date", "Inspection type"].map((label) => ({ label, width: "half" as const })) },
    { title: "Inspection", fields: ["Boiler tag", "Inspector", "Inspection date", "Overall condition"].map((label) => ({ label, width: "half" as const })) },
    { title: "Photos", photosPerRow: 2 },
  ],
  watermark: { text: "DRAFT" },
  code: { kind: "qr", value: "https://print.example.com/records/{instanceId}", position: "title-right" },
};

const TEMPLATE_FEATURES = "half rows, photos two to a row, a header and a footer with page numbers, a DRAFT watermark and a QR code beside the title";

/** A fixed generation time: every render of a case is the same document. */
const GENERATED_AT = "2026-05-04T16:20:00.000Z";

interface Fixture {
  documents: Record<string, Record<string, unknown>>;
  pictures: Record<string, FixturePicture>;
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

// ---- the ~20-page Arabic and Japanese documents --------------------------------------------------

/** The words of a generated world-scripts document: labels, a sentence pool and the table's vocabulary. */
interface ScriptVocabulary {
  title: string;
  objectTypeName: string;
  sections: [summary: string, notes: string, readings: string];
  fields: [label: string, type: PrintableField["type"], value: unknown][];
  notesLabel: (n: number) => string;
  /** Sentences with Latin words and numbers mixed in, as field reports have them. */
  sentences: string[];
  /** Between two sentences: a space, or nothing in Japanese. */
  sentenceGap: string;
  readingsLabel: string;
  columns: string[];
  statuses: string[];
  inspectors: string[];
  remarks: string[];
}

const ARABIC: ScriptVocabulary = {
  title: "تقرير فحص الموقع — محطة N3، الشمال",
  objectTypeName: "سجل القراءات والملاحظات",
  sections: ["ملخص", "ملاحظات الفحص", "القراءات"],
  fields: [
    ["الموقع", "text", "محطة N3، المنطقة الصناعية الشمالية، الإسكندرية"],
    ["الفترة", "text", "1 يناير 2026 – 10 سبتمبر 2026"],
    ["عدد العدادات", "number", 80],
    ["رئيس الفريق", "text", "فاطمة الزهراء (F. Al-Zahraa)"],
    ["المعيار", "choice", "ISO 9001:2015"],
    ["تاريخ التصدير", "datetime", "2026-09-10T08:00:00Z"],
    ["تمت المراجعة", "boolean", true],
    ["البريد الإلكتروني", "email", "n3-inspections@acme-north.example"],
  ],
  notesLabel: (n) => `ملاحظة ${n}`,
  sentences: [
    "تم فحص الصمام رقم V-12 وفق الإجراء ISO 9001 ولم تُلاحظ أي تسربات.",
    "بلغ الضغط في الخط الرئيسي 4.6 bar عند الساعة 08:30، وهو ضمن الحدود المسموح بها.",
    "أُعيدت معايرة جهاز القياس Fluke 87V بعد استبدال البطارية.",
    "لاحظ الفريق تآكلاً طفيفاً في الأنبوب P-204، ويُوصى بإعادة الفحص خلال 30 يوماً.",
    "تمت مراجعة سجل الصيانة مع ممثل العميل السيد Ahmed Hassan.",
    "درجة حرارة المضخة 72.5 °C، أي أعلى من المتوسط الشهري بثلاث درجات.",
    "تم تنظيف المرشحات واستبدال الحشوات في الوحدة رقم 3.",
    "لا توجد ملاحظات إضافية على لوحة التحكم PLC-7 بعد إعادة التشغيل.",
    "يجب تحديث الرسومات الهندسية لتعكس التعديلات التي أُجريت في شهر مايو.",
    "استقرت قراءات التدفق عند 12,400 l/h طوال فترة الاختبار.",
    "أُرسلت العينات إلى المختبر (رقم الطلب LAB-2026-0415) وستصل النتائج خلال أسبوع.",
    "يعمل نظام الإنذار بشكل صحيح، وقد اختُبر مرتين باستخدام SCADA.",
  ],
  sentenceGap: " ",
  readingsLabel: "قراءات العدادات",
  columns: ["#", "التاريخ (UTC)", "العداد", "الضغط (bar)", "الحرارة (°C)", "التدفق (l/h)", "الحالة", "المفتش", "ملاحظات"],
  statuses: ["سليم", "سليم", "سليم", "سليم", "مراجعة", "خارج النطاق", "عطل في الحساس"],
  inspectors: ["فاطمة الزهراء", "أحمد حسن", "ليلى منصور", "عمر خالد", "J. García", "يوسف إبراهيم"],
  remarks: ["", "", "", "أُخذت القراءة بعد إعادة التشغيل", "أُعيد تركيب الصمام PV-3", "زجاج المقياس مغطى بالضباب؛ القيمة تقديرية", "بحضور ممثل العميل"],
};

const JAPANESE: ScriptVocabulary = {
  title: "現場点検報告書 — N3 プラント（北地区）",
  objectTypeName: "測定記録と所見",
  sections: ["概要", "点検所見", "測定値"],
  fields: [
    ["所在地", "text", "N3 プラント、北工業地区、大阪府堺市"],
    ["期間", "text", "2026年1月1日 – 2026年9月10日"],
    ["メーター数", "number", 80],
    ["班長", "text", "山田 太郎（T. Yamada）"],
    ["規格", "choice", "ISO 9001:2015"],
    ["出力日時", "datetime", "2026-09-10T08:00:00Z"],
    ["確認済み", "boolean", true],
    ["メール", "email", "n3-inspections@acme-north.example"],
  ],
  notesLabel: (n) => `所見 ${n}`,
  sentences: [
    "バルブ V-12 を ISO 9001 の手順に従って点検し、漏れは確認されませんでした。",
    "午前 8:30 の主配管の圧力は 4.6 bar で、許容範囲内でした。",
    "電池交換後、測定器 Fluke 87V の校正をやり直しました。",
    "配管 P-204 に軽微な腐食が見られたため、30 日以内の再点検を推奨します。",
    "保守記録を顧客担当者の佐藤様（Ms. Sato）と一緒に確認しました。",
    "ポンプの温度は 72.5 °C で、月平均より 3 度高くなっています。",
    "3 号機のフィルターを清掃し、ガスケットを交換しました。",
    "再起動後、制御盤 PLC-7 に追加の指摘事項はありません。",
    "5 月に行った変更を反映するため、図面を更新する必要があります。",
    "試験期間中、流量は 12,400 l/h で安定していました。",
    "試料を分析室に送付しました（依頼番号 LAB-2026-0415）。結果は一週間以内に届く予定です。",
    "警報システムは正常に作動し、SCADA から二回試験しました。",
  ],
  sentenceGap: "",
  readingsLabel: "メーター測定値",
  columns: ["#", "記録日時 (UTC)", "メーター", "圧力 (bar)", "温度 (°C)", "流量 (l/h)", "状態", "検査員", "備考"],
  statuses: ["正常", "正常", "正常", "正常", "要確認", "範囲外", "センサー異常"],
  inspectors: ["山田 太郎", "佐藤 花子", "鈴木 一郎", "高橋 美咲", "J. García", "田中 健"],
  remarks: ["", "", "", "再起動後に測定", "バルブ PV-3 を再取付け", "ゲージが曇っていたため推定値", "顧客立会い"],
};

/**
 * A long report in one script (deterministic, like bigTableInstance): eight summary fields, `notes`
 * longtext paragraphs of 3-7 sentences from the pool, then a 9-column readings table of `rows` rows.
 */
export function scriptReportInstance(v: ScriptVocabulary, notes: number, rows: number, seed: number): PrintableInstance {
  const rnd = xorshift(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
  const noteFields: PrintableField[] = [];
  for (let i = 0; i < notes; i++) {
    const lines: string[] = [];
    const paragraphs = 1 + Math.floor(rnd() * 2);
    for (let p = 0; p < paragraphs; p++) {
      const n = 3 + Math.floor(rnd() * 5);
      lines.push(Array.from({ length: n }, () => pick(v.sentences)).join(v.sentenceGap));
    }
    noteFields.push({ label: v.notesLabel(i + 1), type: "longtext", value: lines.join("\n") });
  }
  const tableRows: { cells: (string | number | null)[] }[] = [];
  const start = Date.UTC(2026, 0, 1);
  for (let i = 0; i < rows; i++) {
    const when = new Date(start + i * 3 * 3600_000);
    const remark = pick(v.remarks);
    tableRows.push({
      cells: [
        i + 1,
        when.toISOString().slice(0, 16).replace("T", " "),
        `M-${String(100 + Math.floor(rnd() * 80)).padStart(3, "0")}`,
        Math.round((3.5 + rnd() * 2) * 100) / 100,
        Math.round((60 + rnd() * 40) * 10) / 10,
        Math.round(1000 + rnd() * 48000),
        pick(v.statuses),
        pick(v.inspectors),
        remark === "" ? null : remark,
      ],
    });
  }
  return {
    title: v.title,
    objectTypeName: v.objectTypeName,
    sections: [
      { title: v.sections[0], fields: v.fields.map(([label, type, value]) => ({ label, type, value })) },
      { title: v.sections[1], fields: noteFields },
      { title: v.sections[2], fields: [{ label: v.readingsLabel, type: "table", value: { columns: v.columns, rows: tableRows } }] },
    ],
  };
}

/** Sizes of the generated documents: about 20 pages each in our renderer (checked when the cases are built). */
const ARABIC_SIZE = { notes: 24, rows: 400 };
const JAPANESE_SIZE = { notes: 32, rows: 620 };

// ---- building the cases -------------------------------------------------------------------------

/** The language our renderer chose for a document: its PDF's /Lang (in the catalog, in an object stream). */
async function pdfLanguage(bytes: Uint8Array): Promise<string> {
  const doc = await PDFDocument.load(bytes, { updateMetadata: false });
  const lang = doc.catalog.lookup(PDFName.of("Lang"));
  if (!(lang instanceof PDFString || lang instanceof PDFHexString)) throw new Error("our renderer's PDF has no /Lang");
  return lang.decodeText();
}

/** A language's writing direction (CLDR, through Intl.Locale). */
function isRtl(language: string): boolean {
  const info = (new Intl.Locale(language) as Intl.Locale & { textInfo?: { direction?: string } }).textInfo;
  return info?.direction === "rtl";
}

/** The pictures a demo instance shows, drawn as the seed draws them. */
async function demoPictures(fixture: Fixture, id: string, imagePaths: FormatModule["imagePaths"]): Promise<Record<string, BenchPicture>> {
  const out: Record<string, BenchPicture> = {};
  for (const path of imagePaths(fixture.documents[`tenants/${DEMO_TENANT}/objectInstances/${id}`])) {
    const picture = fixture.pictures[path];
    if (!picture) throw new Error(`${id}: no fixture picture ${path}`);
    const { bytes, contentType } = await drawPicture(picture);
    out[path] = { contentType, width: picture.width, height: picture.height, base64: bytes.toString("base64") };
  }
  return out;
}

/**
 * Builds every case. `renderer` decides the one-page cut, the language and reports page counts; it and
 * `scripts` are the compiled modules (lib/) unless given (the output check passes the sources).
 */
export async function buildCases(renderer: RendererModule, scripts: ScriptsModule = require(SCRIPTS_MODULE) as ScriptsModule): Promise<BenchCase[]> {
  const fixture = loadFixture();
  const targetName = String(fixture.documents[`tenants/${DEMO_TENANT}`]?.name ?? DEMO_TENANT);
  const make = async (key: string, name: string, description: string, instanceId: string, instance: PrintableInstance, primary: boolean, worldScripts = false, pictures?: Record<string, BenchPicture>, template?: DocumentTemplate): Promise<BenchCase> => {
    const base = { key, name, description, instanceId, targetName, generatedAt: GENERATED_AT, instance, primary, worldScripts, ...counts(instance), pictures, template };
    const rendered = await renderer.renderInstancePdf(instance, { instanceId, targetName, generatedAt: new Date(GENERATED_AT) });
    const language = await pdfLanguage(rendered.bytes);
    // As the renderer: Han forms from the locale when there is one (none here), else from the content.
    const han = scripts.hanStyleOfText(`${instance.title}\n${instance.objectTypeName}\n${targetName}\n${JSON.stringify(instance)}`);
    return { ...base, language, rtl: isRtl(language), han };
  };
  const options = { instanceId: "inspection-short", targetName, generatedAt: new Date(GENERATED_AT) };
  const short = demoInstance(fixture, "inspection-short");
  const shortPages = (await renderer.renderInstancePdf(short, options)).pageCount;
  const cases: BenchCase[] = [];
  if (shortPages === 1) {
    cases.push(await make("one-page", "a. one page", "demo `inspection-short` as stored (it fits one page)", "inspection-short", short, true));
  } else {
    const cut = await onePageCut(short, renderer.renderInstancePdf, options);
    cases.push(await make("one-page", "a. one page", `demo \`inspection-short\` (which as stored takes ${shortPages} pages here) with ${cut.note}`, "inspection-short", cut.instance, true));
    cases.push(await make("inspection-short", "a*. inspection-short", `demo \`inspection-short\` as stored (30 fields; ${shortPages} pages in our renderer)`, "inspection-short", short, false));
  }
  const onePage = cases[0];
  cases.push(await make("one-page-templated", "t. one page, templated", `case a. printed with a template: ${TEMPLATE_FEATURES}`, onePage.instanceId, onePage.instance, true, false, undefined, BENCH_TEMPLATE));
  cases.push(await make("audit-long", "b. ~300 fields", "demo `audit-long` as stored", "audit-long", demoInstance(fixture, "audit-long"), true));
  cases.push(await make("table-2000", "c. 2,000-row table", "generated in bench/cases.ts (deterministic): 4 fields and a 9-column table of 2,000 rows, Latin, Greek and Cyrillic text", "meter-readings-2000", bigTableInstance(2000), true));
  cases.push(
    await make(
      "world-one-page",
      "w1. world scripts, one page",
      "demo `world-scripts` as stored: Japanese, Chinese (simplified, traditional), Korean, Arabic, Hebrew, Hindi, Bengali, Tamil, Thai, Khmer, Greek, Cyrillic and emoji on one page",
      "world-scripts",
      demoInstance(fixture, "world-scripts"),
      true,
      true,
    ),
  );
  const long = (key: string, name: string, what: string, id: string, v: ScriptVocabulary, size: { notes: number; rows: number }, seed: number) =>
    make(
      key,
      name,
      `generated in bench/cases.ts (deterministic): a ${what} report with Latin words and numbers mixed in: ` +
        `8 summary fields, ${size.notes} longtext notes of 3-7 sentences each, a 9-column readings table of ${size.rows} rows (about 20 pages in our renderer)`,
      id,
      scriptReportInstance(v, size.notes, size.rows, seed),
      true,
      true,
    );
  cases.push(
    await make(
      "photos",
      "p. four photos and a signature",
      "demo `inspection-photos` as stored: four 1600 x 1200 JPEG photos and a 480 x 140 PNG signature with transparency, drawn as the seed draws them; every engine gets the same files (ours scales them into 930 x 530 pixels with sharp, inside the timing)",
      "inspection-photos",
      demoInstance(fixture, "inspection-photos"),
      true,
      false,
      await demoPictures(fixture, "inspection-photos", renderer.imagePaths),
    ),
  );
  const photos = cases.find((c) => c.key === "photos")!;
  cases.push(await make("photos-templated", "tp. photos, templated", `case p. printed with a template: ${TEMPLATE_FEATURES}`, photos.instanceId, photos.instance, true, false, photos.pictures, BENCH_TEMPLATE));
  cases.push(await long("arabic-20", "w2. Arabic, ~20 pages", "right-to-left Arabic", "site-report-ar", ARABIC, ARABIC_SIZE, 20260611));
  cases.push(await long("japanese-20", "w3. Japanese, ~20 pages", "Japanese", "site-report-ja", JAPANESE, JAPANESE_SIZE, 20260612));
  return cases;
}

export type { RenderedPdf };
