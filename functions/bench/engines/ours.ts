// Our renderer, compiled (lib/print/render), exactly as the print function calls it; a case's
// pictures are prepared first as the print function prepares what it downloaded (lib/print/pictures:
// sharp, EXIF orientation, scaled into PICTURE_LIMITS.box), inside the timing.

import type { File } from "@google-cloud/storage";
import { resolve } from "node:path";
import { FUNCTIONS_DIR, RENDERER_MODULE, bytesOf, renderOptions, type BenchCase, type RendererModule } from "../cases";
import type { PdfSignatureOptions } from "../../src/print/render/types";
import type { Engine } from "./types";

type PicturesModule = typeof import("../../src/print/pictures");
const PICTURES_MODULE = resolve(FUNCTIONS_DIR, "lib", "print", "pictures.js");

/** Renders so far: each render's pictures are a new generation, so that none is taken from the pictures an instance keeps (pictures.ts). */
let renders = 0;
/** The case's pictures as the print function's objects: their bytes already downloaded, each render a new upload (prepared anew, as a new instance's photos are). */
const pictureObjects = (c: BenchCase) => {
  const generation = String(++renders);
  return Object.entries(c.pictures ?? {}).map(([path, picture]) => {
    const bytes = bytesOf(picture);
    return { path, generation, size: bytes.length, file: { download: async () => [bytes] } as unknown as File };
  });
};

/** `signature`: what a signing target's print adds to the options (bench/pairs.ts measures it). */
export async function createOurs({ tagged, signature }: { tagged: boolean; signature?: (c: BenchCase) => PdfSignatureOptions }): Promise<Engine> {
  const renderer = require(RENDERER_MODULE) as RendererModule;
  const pictures = require(PICTURES_MODULE) as PicturesModule;
  return {
    async render(c) {
      const images = c.pictures ? await pictures.preparePictures(pictureObjects(c), (operation) => operation()) : undefined;
      const { bytes, pageCount } = await renderer.renderInstancePdf(c.instance, { ...renderOptions(c), images, tagged, ...(signature && { signature: signature(c) }) });
      return { bytes, pageCount };
    },
    async close() {},
  };
}
