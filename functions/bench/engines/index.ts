import { createChromium } from "./chromium";
import { createOurs } from "./ours";
import { createPdfmake } from "./pdfmake";
import { createTypst } from "./typst";
import type { Engine, EngineName } from "./types";

export function createEngine(name: EngineName): Promise<Engine> {
  switch (name) {
    case "ours":
      return createOurs();
    case "chromium":
      return createChromium({ tagged: false });
    case "chromium-tagged":
      return createChromium({ tagged: true });
    case "pdfmake":
      return createPdfmake();
    case "typst":
      return createTypst();
  }
}

export * from "./types";
