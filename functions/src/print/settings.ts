import { createHash } from "node:crypto";
import { z } from "zod";
import type { TargetNode } from "../http/access";
import { asOneLine, ONE_LINE, ONE_LINE_MESSAGE } from "../http/validation";
import * as logs from "../logs";
import { inUploadsFolder } from "./pictures";
import { DEFAULT_LOCALE, DEFAULT_TIME_ZONE, supportedLocale, supportedTimeZone } from "./render/format";
import { BIDI_CONTROL_MESSAGE, HAS_BIDI_CONTROL } from "./render/text/bidiControls";
import { CONFORMANCE_NAMES, DEFAULT_ACCENT_COLOR, DEFAULT_CONFORMANCE, DEFAULT_PAPER_SIZE, PAPER_SIZE_NAMES, type Conformance, type PaperSize } from "./render/paper";

/** The settings a PDF is printed with (DESIGN.md: a target's `print`, inherited like `features`). */
export interface PrintSettings {
  locale: string;
  timeZone: string;
  paperSize: PaperSize;
  /** PDF/UA-1 (tagged, always), or PDF/A-2u as well. */
  conformance: Conformance;
  /** "#rrggbb" of headings and rules. */
  accentColor: string;
  /** A line of the target's own under every page's footer ("" for none). */
  footerText: string;
  /** Storage path of the logo on the first page ("" for none), under the uploads folder of the target that sets it. */
  logo: string;
  /** Whether PDFs are signed with the service's key (PAdES B-B, issue 36). Set by ADMIN only, never by a request. */
  sign: boolean;
}

/** The defaults: en-GB, UTC, A4, tagged (PDF/UA-1), the service's blue, no footer line, no logo. */
export const DEFAULT_SETTINGS: PrintSettings = {
  locale: DEFAULT_LOCALE,
  timeZone: DEFAULT_TIME_ZONE,
  paperSize: DEFAULT_PAPER_SIZE,
  conformance: DEFAULT_CONFORMANCE,
  accentColor: DEFAULT_ACCENT_COLOR,
  footerText: "",
  logo: "",
  sign: false,
};

/** Every setting, in the order of DEFAULT_SETTINGS (the order settingsKey hashes them in). */
export const SETTING_KEYS = Object.keys(DEFAULT_SETTINGS) as readonly (keyof PrintSettings)[];

const ACCENT_COLOR = /^#[0-9a-f]{6}$/i;
/** WCAG 2's least contrast for text (AA): the accent colours headings of 12 pt bold, which WCAG does not count as large. */
const MIN_ACCENT_CONTRAST = 4.5;

/** WCAG 2's contrast ratio of "#rrggbb" against white: 1 (white) to 21 (black). */
export function contrastWithWhite(color: string): number {
  const linear = (i: number) => {
    const c = parseInt(color.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const luminance = 0.2126 * linear(1) + 0.7152 * linear(3) + 0.0722 * linear(5);
  return 1.05 / (luminance + 0.05);
}

/** Why "#rrggbb" cannot be a new accent colour (too light to read on the white page), or undefined when it can. */
export function accentColorProblem(color: string): string | undefined {
  const contrast = contrastWithWhite(color);
  // Rounded down: a ratio just under the minimum never reads as the minimum.
  if (contrast < MIN_ACCENT_CONTRAST) return `must be dark enough to read on the white page: its contrast against white is ${(Math.floor(contrast * 100) / 100).toFixed(2)}:1, at least ${MIN_ACCENT_CONTRAST}:1 is needed`;
  return undefined;
}
const MAX_FOOTER_TEXT = 200;

/**
 * Each setting: its check, giving the canonical value or undefined for a value that cannot be used.
 * `owner` is the document path of the target that sets it: a logo must lie in that target's uploads folder.
 */
export const CHECKS: { [K in keyof PrintSettings]: (value: unknown, owner: string) => PrintSettings[K] | undefined } = {
  locale: (v) => (typeof v === "string" && v.length <= 35 ? supportedLocale(v) : undefined),
  timeZone: (v) => (typeof v === "string" && v.length <= 64 ? supportedTimeZone(v) : undefined),
  paperSize: (v) => PAPER_SIZE_NAMES.find((p) => p === v),
  conformance: (v) => CONFORMANCE_NAMES.find((c) => c === v),
  accentColor: (v) => (typeof v === "string" && ACCENT_COLOR.test(v) ? v.toLowerCase() : undefined),
  // Stored before session 7, a footer could hold a tab or another control character: printed as a space, not dropped.
  footerText: (v) => (typeof v === "string" && v.length <= MAX_FOOTER_TEXT && !/[\r\n]/.test(v) ? asOneLine(v).trim() : undefined),
  logo: (v, owner) => (typeof v === "string" && inUploadsFolder(owner, v) ? v : undefined),
  sign: (v) => (typeof v === "boolean" ? v : undefined),
};

/** A string that CHECKS[key] accepts, as its canonical value (400 with `message` otherwise). */
const checked = (key: "locale" | "timeZone", max: number, message: string) =>
  z
    .string()
    .max(max)
    .refine((v) => CHECKS[key](v, "") !== undefined, message)
    .transform((v) => CHECKS[key](v, "")!);

/** Overrides for one request, in the print and send-pdf bodies (400 naming the field when unusable). */
export const settingsOverrides = {
  // A BCP 47 locale Intl knows, e.g. "de-DE"; the target's (or en-GB) when absent.
  locale: checked("locale", 35, "must be a known BCP 47 locale, e.g. de-DE")
    .optional()
    .meta({ description: "BCP 47 locale of this PDF (dates, numbers, words, language, direction); default: the target's settings, else en-GB's dates, numbers and words with the language and direction of the document's text", examples: ["de-DE"] }),
  // An IANA time zone, e.g. "Europe/Berlin", or a fixed UTC offset ("+05:30"), as Intl takes them.
  timeZone: checked("timeZone", 64, "must be a known IANA time zone (e.g. Europe/Berlin) or a UTC offset (e.g. +05:30)")
    .optional()
    .meta({ description: "IANA time zone (or a UTC offset such as +05:30) of date-times in this PDF; default: the target's settings, else UTC", examples: ["Europe/Berlin"] }),
  // A4, Letter or Legal, portrait.
  paperSize: z.enum(PAPER_SIZE_NAMES).optional().meta({ description: "Paper of this PDF; default: the target's settings, else A4" }),
  // PDF/UA-1 (every PDF is tagged) or PDF/A-2u (archival as well).
  conformance: z
    .enum(CONFORMANCE_NAMES)
    .optional()
    .meta({ description: "PDF/UA-1: tagged for accessibility (every PDF is); PDF/A-2u: archival as well. Default: the target's settings, else PDF/UA-1" }),
};

export type SettingsOverrides = Partial<PrintSettings>;

/** The locale as answered and recorded: the default's name where none is set, and whether the language and direction came from the text. */
const shownLocale = (locale: string) => ({ locale: locale || DEFAULT_LOCALE, languageFromText: locale === LOCALE_FROM_TEXT });

/** What print and send-pdf answer of the settings used (the four a request may set, and whether the PDF is signed). */
export const shownSettings = ({ locale, timeZone, paperSize, conformance, sign }: PrintSettings) => ({ ...shownLocale(locale), timeZone, paperSize, conformance, sign });

/** Every setting, as an audit event records it (the locale as shownSettings answers it). */
export const recordedSettings = (settings: PrintSettings) => ({ ...settings, ...shownLocale(settings.locale) });

/** The schema of shownSettings in print's and send-pdf's answers. */
export const shownSettingsSchema = {
  locale: z.string().describe("The locale the PDF is printed in: the request's, else the target's settings, else en-GB (its dates, numbers and words; see languageFromText)."),
  languageFromText: z.boolean().describe("True when neither the request nor a target set a locale: the document's language (/Lang) and direction came from its text (a document mostly in Arabic is laid out right to left)."),
  timeZone: z.string().describe("The time zone of its date-times: the request's, else the target's, else UTC."),
  paperSize: z.enum(PAPER_SIZE_NAMES).describe("Its paper: the request's, else the target's, else A4."),
  conformance: z.enum(CONFORMANCE_NAMES).describe("What it conforms to: the request's, else the target's, else PDF/UA-1 (tagged)."),
  sign: z.boolean().describe("Whether the PDF is signed with the service's key (the target's print setting `sign`; POST verify checks such a file)."),
};

/** Where an effective setting comes from: the request, a target's document path, or the default. */
export type SettingSource = "request" | "default" | string;

/**
 * The effective settings: each from the request's overrides, else the nearest target on the chain
 * whose `print` sets it to a usable value (a site stands alone: its chain is itself), else the
 * default; and where each came from. A stored value that cannot be used is skipped and logged,
 * never a 500.
 */
export function resolveSettings(chain: readonly TargetNode[], overrides: SettingsOverrides = {}): { settings: PrintSettings; sources: Record<keyof PrintSettings, SettingSource> } {
  const sources = {} as Record<keyof PrintSettings, SettingSource>;
  const pick = <K extends keyof PrintSettings>(key: K, fallback: PrintSettings[K]): PrintSettings[K] => {
    if (overrides[key] !== undefined) {
      sources[key] = "request";
      return overrides[key] as PrintSettings[K];
    }
    for (let i = chain.length - 1; i >= 0; i--) {
      const stored = ownSetting(chain[i].data, key);
      if (stored === undefined || stored === null) continue;
      const usable = CHECKS[key](stored, chain[i].path);
      if (usable !== undefined) {
        sources[key] = chain[i].path;
        return usable;
      }
      logs.unusablePrintSetting(chain[i].path, key);
    }
    sources[key] = "default";
    return fallback;
  };
  const settings = Object.fromEntries(SETTING_KEYS.map((key) => [key, pick(key, DEFAULT_SETTINGS[key])])) as unknown as PrintSettings;
  return { settings, sources };
}

/**
 * The locale a PDF is printed with when neither the request nor a target sets one: dates, numbers and
 * words in the default locale (en-GB), the document's language (its /Lang) and direction taken from its
 * text by the renderer (render/text: a document mostly in Arabic or Hebrew is laid out right to left).
 * The default's own value would lay every document out left to right and call it English.
 */
export const LOCALE_FROM_TEXT = "";

/** The settings a PDF is printed with: resolveSettings', the locale LOCALE_FROM_TEXT where none is set. */
export function effectiveSettings(chain: readonly TargetNode[], overrides: SettingsOverrides = {}): PrintSettings {
  const { settings, sources } = resolveSettings(chain, overrides);
  return sources.locale === "default" ? { ...settings, locale: LOCALE_FROM_TEXT } : settings;
}

/** A setting as a target's document stores it under `print`. */
export function ownSetting(data: Record<string, unknown>, key: keyof PrintSettings): unknown {
  const print = data.print;
  return print && typeof print === "object" ? (print as Record<string, unknown>)[key] : undefined;
}

/** What a target may set besides the request's overrides: its branding. */
export const brandingSettings = {
  // "#rrggbb", e.g. "#1f4e79".
  // Checked for contrast by the route (accentColorProblem), which knows the colour the target has already.
  accentColor: z
    .string()
    .regex(ACCENT_COLOR, "must be a colour as #rrggbb")
    .optional()
    .meta({ description: `Colour of headings and rules, #rrggbb; a new one needs a contrast of at least ${MIN_ACCENT_CONTRAST}:1 against white (WCAG 2 AA: headings are 12 pt bold)`, examples: ["#1f4e79"] }),
  // One line, at most 200 characters.
  footerText: z
    .string()
    .max(MAX_FOOTER_TEXT)
    .regex(ONE_LINE, ONE_LINE_MESSAGE)
    // A report is evidence: nothing may make its text read in another order than stored (render/text/bidiControls.ts).
    .refine((v) => !HAS_BIDI_CONTROL.test(v), BIDI_CONTROL_MESSAGE)
    .optional()
    .meta({ description: "A line under every page's footer (one line, at most 200 characters, no bidirectional embedding, override or isolate controls)" }),
  // A storage path in the target's own uploads folder (checked by the route, which knows the target).
  logo: z
    .string()
    .max(1024)
    // Cloud Storage names no object with them; stored, such a path would print no logo without a word.
    .regex(ONE_LINE, "must be a storage path without control characters or line breaks")
    .optional()
    .meta({ description: "Storage path of a PNG or JPEG logo under uploads/{target path}/ (PUT print-settings/logo uploads one there)", examples: ["uploads/tenants/acme-north/print-settings/logo.png"] }),
};

/** What only ADMIN sets through PUT print-settings, never a request: whether PDFs are signed. */
export const signSetting = {
  sign: z.boolean().optional().meta({ description: "Sign every PDF printed for this target (print, send-pdf, print jobs) with the service's key: PAdES baseline B-B, checked by POST /print/{target}/verify. Default false." }),
};

/**
 * A short hash of the settings (and the pictures' and logo's versions), part of the stored PDF's name:
 * other settings, another file. `sign` counts only when on: an unsigned PDF keeps the name it had
 * before the setting existed (stored PDFs stay valid), a signed one has another.
 */
export function settingsKey(settings: PrintSettings, pictures = ""): string {
  const values: unknown[] = SETTING_KEYS.filter((key) => key !== "sign").map((key) => settings[key]);
  return createHash("sha256").update(JSON.stringify([...values, pictures, ...(settings.sign ? ["signed"] : [])])).digest("hex").slice(0, 12);
}
