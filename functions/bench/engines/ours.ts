// Our renderer, compiled (lib/print/render), exactly as the print function calls it.

import { RENDERER_MODULE, renderOptions, type RendererModule } from "../cases";
import type { Engine } from "./types";

export async function createOurs(): Promise<Engine> {
  const renderer = require(RENDERER_MODULE) as RendererModule;
  return {
    async render(c) {
      const { bytes, pageCount } = await renderer.renderInstancePdf(c.instance, renderOptions(c));
      return { bytes, pageCount };
    },
    async close() {},
  };
}
