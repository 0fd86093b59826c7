import { createChromium } from "./chromium";
import { createOurs } from "./ours";
import { createPdfmake } from "./pdfmake";
import { createTypst } from "./typst";
import type { Engine, EngineName } from "./types";

export function createEngine(name: EngineName): Promise<Engine> {
  switch (name) {
    case "ours":
      return createOurs({ tagged: true });
    case "ours-untagged":
      return createOurs({ tagged: false });
    case "chromium":
      return createChromium({ tagged: false });
    case "chromium-tagged":
      return createChromium({ tagged: true });
    case "pdfmake":
      return createPdfmake();
    case "typst":
      return createTypst({ tagged: false });
    case "typst-warm":
      return createTypst({ tagged: false, warm: true });
    case "typst-tagged":
      return createTypst({ tagged: true });
  }
}

export * from "./types";
