// TrueType reading for the renderer: character-to-glyph lookup (cmap formats 4 and 12), metrics, and
// a minimal subsetter for embedding (PDF 1.7, 9.9 "Embedded font programs": a CIDFontType2 program
// needs head, hhea, loca, maxp, cvt, prep, glyf, hmtx and fpgm; glyphs are addressed by
// CID = glyph index through /CIDToGIDMap /Identity, so the subset needs no cmap).
//
// Why not fontkit (@pdf-lib/fontkit), which pdf-lib's embedFont uses: its subsetter (1) breaks fonts
// whose glyph records have odd lengths (it writes a short `loca` with truncated offsets; Noto Sans from
// Google Fonts is such a font), and (2) delivers its bytes through a browser `process.nextTick` shim
// built on setTimeout, adding milliseconds of idle time per font to every document; its text layout
// costs 0.3-1 ms per string; and loading the module alone takes about 230 ms of a cold start. The
// tables read here are few and simple; the tests check every mapping and glyph against fontkit.

import { closeSync, fstatSync, openSync, readSync } from "node:fs";

interface Table {
  offset: number;
  length: number;
}

/** Tables a subset or a render reads besides the glyph outlines (glyf): what a file read in part reads at once. */
const TABLES_READ_AT_ONCE = new Set(["head", "hhea", "maxp", "hmtx", "loca", "cmap", "OS/2", "post", "name", "cvt ", "fpgm", "prep"]);

/** A font file read in part (TrueTypeSource.open): the file, and which glyph records are in memory. */
interface PartFile {
  fd: number;
  glyphsRead: Uint8Array;
}

const ARG_1_AND_2_ARE_WORDS = 0x0001;
const WE_HAVE_A_SCALE = 0x0008;
const MORE_COMPONENTS = 0x0020;
const WE_HAVE_AN_X_AND_Y_SCALE = 0x0040;
const WE_HAVE_A_TWO_BY_TWO = 0x0080;

function checksum(data: Uint8Array): number {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  let sum = 0;
  const whole = data.length & ~3;
  for (let i = 0; i < whole; i += 4) sum = (sum + view.getUint32(i)) >>> 0;
  if (whole < data.length) {
    let last = 0;
    for (let i = whole; i < whole + 4; i++) last = (last << 8) | (i < data.length ? data[i] : 0);
    sum = (sum + (last >>> 0)) >>> 0;
  }
  return sum;
}

/** Font-wide metrics, in font units (except italicAngle, in degrees). */
export interface FontMetrics {
  unitsPerEm: number;
  ascent: number;
  descent: number;
  capHeight: number;
  italicAngle: number;
  bbox: { minX: number; minY: number; maxX: number; maxY: number };
}

/** A parsed TrueType font (glyf outlines): glyph lookup, metrics, and subsets. */
export class TrueTypeSource {
  private readonly bytes: Uint8Array;
  private readonly view: DataView;
  private readonly tables = new Map<string, Table>();
  /** Where loca starts, and whether its offsets are 32-bit (else 16-bit, stored halved). */
  private readonly loca: number;
  private readonly longLoca: boolean;
  readonly numGlyphs: number;
  private readonly numberOfHMetrics: number;
  readonly metrics: FontMetrics;
  readonly postscriptName: string;
  private readonly lookupCmap: (cp: number) => number;

  /**
   * A font in `bytes`: the whole file, or (`partFile`) a buffer of the file's size holding only the
   * tables TABLES_READ_AT_ONCE lists, the glyph records read from the file when a subset needs them.
   */
  constructor(
    bytes: Uint8Array,
    private partFile?: PartFile,
  ) {
    this.bytes = bytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const numTables = this.view.getUint16(4);
    for (let i = 0; i < numTables; i++) {
      const rec = 12 + 16 * i;
      const tag = String.fromCharCode(bytes[rec], bytes[rec + 1], bytes[rec + 2], bytes[rec + 3]);
      this.tables.set(tag, { offset: this.view.getUint32(rec + 8), length: this.view.getUint32(rec + 12) });
    }
    for (const tag of ["head", "hhea", "maxp", "hmtx", "loca", "glyf"]) {
      if (!this.tables.has(tag)) throw new Error(`not a TrueType (glyf) font: no ${tag} table`);
    }
    const head = this.table("head");
    this.longLoca = this.view.getInt16(head.offset + 50) === 1;
    this.numGlyphs = this.view.getUint16(this.table("maxp").offset + 4);
    this.numberOfHMetrics = this.view.getUint16(this.table("hhea").offset + 34);
    this.loca = this.table("loca").offset;
    if (this.loca + (this.numGlyphs + 1) * (this.longLoca ? 4 : 2) > bytes.length) throw new Error("not a TrueType font: its loca table runs past the file");
    const hhea = this.table("hhea").offset;
    const os2 = this.tables.get("OS/2");
    const post = this.tables.get("post");
    const ascent = this.view.getInt16(hhea + 4);
    this.metrics = {
      unitsPerEm: this.view.getUint16(head.offset + 18),
      ascent,
      descent: this.view.getInt16(hhea + 6),
      capHeight: os2 && this.view.getUint16(os2.offset) >= 2 && os2.length >= 90 ? this.view.getInt16(os2.offset + 88) : ascent,
      italicAngle: post ? this.view.getInt32(post.offset + 4) / 65536 : 0,
      bbox: {
        minX: this.view.getInt16(head.offset + 36),
        minY: this.view.getInt16(head.offset + 38),
        maxX: this.view.getInt16(head.offset + 40),
        maxY: this.view.getInt16(head.offset + 42),
      },
    };
    this.postscriptName = this.readPostscriptName();
    this.lookupCmap = this.readCmap();
  }

  /**
   * A font file read in part: the table directory and the tables a render needs first, not the glyph
   * outlines (a CJK file is 5-10 MB, nearly all outlines; reading the files whole took about 40 ms of a
   * process's first world-scripts render, under the profiler). The buffer has the file's size.
   */
  static open(path: string): TrueTypeSource {
    const fd = openSync(path, "r");
    try {
      // Not zeroed (Buffer.allocUnsafeSlow): only the parts read from the file are ever read from it.
      const buffer = Buffer.allocUnsafeSlow(fstatSync(fd).size);
      const bytes = new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
      readSync(fd, bytes, 0, 12, 0);
      const numTables = (bytes[4] << 8) | bytes[5];
      readSync(fd, bytes, 12, 16 * numTables, 12);
      const view = new DataView(bytes.buffer);
      for (let i = 0; i < numTables; i++) {
        const rec = 12 + 16 * i;
        const tag = String.fromCharCode(bytes[rec], bytes[rec + 1], bytes[rec + 2], bytes[rec + 3]);
        const offset = view.getUint32(rec + 8);
        const length = Math.min(view.getUint32(rec + 12), bytes.length - offset);
        if (TABLES_READ_AT_ONCE.has(tag) && length > 0) readSync(fd, bytes, offset, length, offset);
      }
      const source = new TrueTypeSource(bytes, { fd, glyphsRead: new Uint8Array(0) });
      source.partFile!.glyphsRead = new Uint8Array(source.numGlyphs);
      return source;
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }

  /** The whole file's bytes (HarfBuzz shapes with them): what was not read is read now. */
  get fileBytes(): Uint8Array {
    if (this.partFile) {
      readSync(this.partFile.fd, this.bytes, 0, this.bytes.length, 0);
      closeSync(this.partFile.fd);
      this.partFile = undefined;
    }
    return this.bytes;
  }

  /**
   * Where a glyph's record starts in glyf, read from loca when asked: copying loca out for every
   * glyph took most of a CJK face's first load (30,000 glyphs in cold code) for the few a document uses.
   */
  private glyphOffset(gid: number): number {
    return this.longLoca ? this.view.getUint32(this.loca + 4 * gid) : this.view.getUint16(this.loca + 2 * gid) * 2;
  }

  /** Makes sure a glyph's record is in memory (a file read in part reads it now). */
  private readGlyph(gid: number): void {
    const part = this.partFile;
    if (!part || part.glyphsRead[gid]) return;
    const offset = this.glyphOffset(gid);
    const start = this.table("glyf").offset + offset;
    const length = this.glyphOffset(gid + 1) - offset;
    if (length > 0 && start + length <= this.bytes.length) readSync(part.fd, this.bytes, start, length, start);
    part.glyphsRead[gid] = 1;
  }

  /** The glyph id of a code point, 0 (.notdef) when the font has none. */
  glyphId(cp: number): number {
    const gid = this.lookupCmap(cp);
    return gid > 0 && gid < this.numGlyphs ? gid : 0;
  }

  /** A glyph's advance width, in font units. */
  advanceWidth(gid: number): number {
    const hmtx = this.table("hmtx").offset;
    return this.view.getUint16(hmtx + 4 * (gid < this.numberOfHMetrics ? gid : this.numberOfHMetrics - 1));
  }

  private readPostscriptName(): string {
    const name = this.tables.get("name");
    if (!name) return "Font";
    const v = this.view;
    const count = v.getUint16(name.offset + 2);
    const strings = name.offset + v.getUint16(name.offset + 4);
    let fallback = "";
    for (let i = 0; i < count; i++) {
      const rec = name.offset + 6 + 12 * i;
      if (v.getUint16(rec + 6) !== 6) continue;
      const platform = v.getUint16(rec);
      const length = v.getUint16(rec + 8);
      const start = strings + v.getUint16(rec + 10);
      let text = "";
      if (platform === 3 || platform === 0) {
        for (let k = 0; k + 1 < length; k += 2) text += String.fromCharCode(v.getUint16(start + k));
        return text;
      }
      for (let k = 0; k < length; k++) text += String.fromCharCode(this.bytes[start + k]);
      fallback = text;
    }
    return fallback || "Font";
  }

  /** A lookup over the best Unicode cmap subtable: format 12 (full Unicode) or format 4 (BMP). */
  private readCmap(): (cp: number) => number {
    const cmap = this.tables.get("cmap");
    if (!cmap) return () => 0;
    const v = this.view;
    const count = v.getUint16(cmap.offset + 2);
    let format4 = -1;
    let format12 = -1;
    for (let i = 0; i < count; i++) {
      const rec = cmap.offset + 4 + 8 * i;
      const platform = v.getUint16(rec);
      const encoding = v.getUint16(rec + 2);
      const sub = cmap.offset + v.getUint32(rec + 4);
      const unicode = platform === 0 || (platform === 3 && (encoding === 1 || encoding === 10));
      if (!unicode) continue;
      const format = v.getUint16(sub);
      if (format === 12 && format12 < 0) format12 = sub;
      if (format === 4 && format4 < 0) format4 = sub;
    }
    if (format12 >= 0) {
      const groups = v.getUint32(format12 + 12);
      const base = format12 + 16;
      return (cp) => {
        let lo = 0;
        let hi = groups - 1;
        while (lo <= hi) {
          const mid = (lo + hi) >>> 1;
          const g = base + 12 * mid;
          if (cp < v.getUint32(g)) hi = mid - 1;
          else if (cp > v.getUint32(g + 4)) lo = mid + 1;
          else return v.getUint32(g + 8) + (cp - v.getUint32(g));
        }
        return 0;
      };
    }
    if (format4 >= 0) {
      const segCount = v.getUint16(format4 + 6) / 2;
      const ends = format4 + 14;
      const starts = ends + 2 * segCount + 2;
      const deltas = starts + 2 * segCount;
      const rangeOffsets = deltas + 2 * segCount;
      return (cp) => {
        if (cp > 0xffff) return 0;
        let lo = 0;
        let hi = segCount - 1;
        while (lo < hi) {
          const mid = (lo + hi) >>> 1;
          if (v.getUint16(ends + 2 * mid) < cp) lo = mid + 1;
          else hi = mid;
        }
        const start = v.getUint16(starts + 2 * lo);
        if (cp < start || cp > v.getUint16(ends + 2 * lo)) return 0;
        const delta = v.getUint16(deltas + 2 * lo);
        const rangeOffset = v.getUint16(rangeOffsets + 2 * lo);
        if (rangeOffset === 0) return (cp + delta) & 0xffff;
        const at = rangeOffsets + 2 * lo + rangeOffset + 2 * (cp - start);
        if (at + 2 > this.bytes.length) return 0;
        const gid = v.getUint16(at);
        return gid === 0 ? 0 : (gid + delta) & 0xffff;
      };
    }
    return () => 0;
  }

  private table(tag: string): Table {
    return this.tables.get(tag)!;
  }

  private tableBytes(tag: string): Uint8Array | undefined {
    const t = this.tables.get(tag);
    return t ? this.bytes.subarray(t.offset, t.offset + t.length) : undefined;
  }

  /** Advance width and left side bearing of a glyph, in font units. */
  private horizontalMetrics(gid: number): [number, number] {
    const hmtx = this.table("hmtx").offset;
    if (gid < this.numberOfHMetrics) {
      return [this.view.getUint16(hmtx + 4 * gid), this.view.getInt16(hmtx + 4 * gid + 2)];
    }
    const advance = this.view.getUint16(hmtx + 4 * (this.numberOfHMetrics - 1));
    const lsb = this.view.getInt16(hmtx + 4 * this.numberOfHMetrics + 2 * (gid - this.numberOfHMetrics));
    return [advance, lsb];
  }

  /** Calls `visit` with the offset (in the font file) of each component's glyph index of a composite glyph. */
  private forEachComponent(record: number, length: number, visit: (at: number) => void): void {
    let p = 10;
    for (;;) {
      if (p + 4 > length) break;
      const flags = this.view.getUint16(record + p);
      visit(record + p + 2);
      p += 4 + (flags & ARG_1_AND_2_ARE_WORDS ? 4 : 2);
      if (flags & WE_HAVE_A_SCALE) p += 2;
      else if (flags & WE_HAVE_AN_X_AND_Y_SCALE) p += 4;
      else if (flags & WE_HAVE_A_TWO_BY_TWO) p += 8;
      if (!(flags & MORE_COMPONENTS)) break;
    }
  }

  /**
   * A font holding `gids` as glyphs 0..n-1 in that order (gids[0] should be 0, .notdef; repeats
   * allowed), followed by
   * any glyphs their composites refer to. Returns the font file's bytes.
   */
  subset(gids: readonly number[]): Uint8Array {
    const order: number[] = [];
    const newId = new Map<number, number>();
    const add = (gid: number): number => {
      const safe = gid >= 0 && gid < this.numGlyphs ? gid : 0;
      let id = newId.get(safe);
      if (id === undefined) {
        id = order.length;
        order.push(safe);
        newId.set(safe, id);
      }
      return id;
    };
    // Every requested entry is a glyph of its own, duplicates included (a glyph may be listed twice,
    // once per text it stands for); components refer to the first copy.
    for (const gid of gids) {
      const safe = gid >= 0 && gid < this.numGlyphs ? gid : 0;
      if (!newId.has(safe)) newId.set(safe, order.length);
      order.push(safe);
    }

    const glyf = this.table("glyf").offset;
    const view = this.view;
    // Pass 1 (`order` grows while composites pull in their components): the glyphs and their sizes.
    let glyfSize = 0;
    for (let i = 0; i < order.length; i++) {
      this.readGlyph(order[i]);
      const start = this.glyphOffset(order[i]);
      const end = this.glyphOffset(order[i] + 1);
      const length = end > start ? end - start : 0;
      glyfSize += (length + 3) & ~3;
      if (length >= 10 && view.getInt16(glyf + start) < 0) {
        this.forEachComponent(glyf + start, length, (at) => add(view.getUint16(at)));
      }
    }
    // Pass 2: copy each glyph record once, renumbering a composite's components in the copy.
    const count = order.length;
    const glyfOut = new Uint8Array(glyfSize);
    const glyfView = new DataView(glyfOut.buffer);
    const locaOut = new Uint8Array(4 * (count + 1));
    const locaView = new DataView(locaOut.buffer);
    const hmtxOut = new Uint8Array(4 * count);
    const hmtxView = new DataView(hmtxOut.buffer);
    let at = 0;
    for (let i = 0; i < count; i++) {
      const start = this.glyphOffset(order[i]);
      const end = this.glyphOffset(order[i] + 1);
      const length = end > start ? end - start : 0;
      locaView.setUint32(4 * i, at);
      if (length > 0) {
        glyfOut.set(this.bytes.subarray(glyf + start, glyf + end), at);
        if (length >= 10 && view.getInt16(glyf + start) < 0) {
          const delta = at - (glyf + start);
          this.forEachComponent(glyf + start, length, (p) => glyfView.setUint16(p + delta, add(view.getUint16(p))));
        }
      }
      at += (length + 3) & ~3;
      const [advance, lsb] = this.horizontalMetrics(order[i]);
      hmtxView.setUint16(4 * i, advance);
      hmtxView.setInt16(4 * i + 2, lsb);
    }
    locaView.setUint32(4 * count, at);

    const head = this.tableBytes("head")!.slice();
    const headView = new DataView(head.buffer);
    headView.setUint32(8, 0); // checkSumAdjustment, set below
    headView.setInt16(50, 1); // indexToLocFormat: long
    const hhea = this.tableBytes("hhea")!.slice();
    new DataView(hhea.buffer).setUint16(34, count);
    const maxp = this.tableBytes("maxp")!.slice();
    new DataView(maxp.buffer).setUint16(4, count);

    // Tables in tag order, as the directory requires.
    const out: [string, Uint8Array][] = [];
    const optional = (tag: string): void => {
      const bytes = this.tableBytes(tag);
      if (bytes) out.push([tag, bytes]);
    };
    optional("cvt ");
    optional("fpgm");
    out.push(["glyf", glyfOut], ["head", head], ["hhea", hhea], ["hmtx", hmtxOut], ["loca", locaOut], ["maxp", maxp]);
    optional("prep");
    out.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));

    const numTables = out.length;
    let searchRange = 1;
    let entrySelector = 0;
    while (searchRange * 2 <= numTables) {
      searchRange *= 2;
      entrySelector++;
    }
    const headerSize = 12 + 16 * numTables;
    let total = headerSize;
    for (const [, bytes] of out) total += (bytes.length + 3) & ~3;
    const file = new Uint8Array(total);
    const fv = new DataView(file.buffer);
    fv.setUint32(0, 0x00010000);
    fv.setUint16(4, numTables);
    fv.setUint16(6, searchRange * 16);
    fv.setUint16(8, entrySelector);
    fv.setUint16(10, numTables * 16 - searchRange * 16);
    let offset = headerSize;
    let headOffset = 0;
    out.forEach(([tag, bytes], i) => {
      const rec = 12 + 16 * i;
      for (let k = 0; k < 4; k++) file[rec + k] = tag.charCodeAt(k);
      fv.setUint32(rec + 4, checksum(bytes));
      fv.setUint32(rec + 8, offset);
      fv.setUint32(rec + 12, bytes.length);
      file.set(bytes, offset);
      if (tag === "head") headOffset = offset;
      offset += (bytes.length + 3) & ~3;
    });
    fv.setUint32(headOffset + 8, (0xb1b0afba - checksum(file)) >>> 0);
    return file;
  }
}
