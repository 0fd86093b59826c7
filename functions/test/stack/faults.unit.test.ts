import { describe, expect, it } from "vitest";
import { storageFaultApplies } from "../../stack/faults";

describe("storageFaultApplies (which Storage requests a fault acts on)", () => {
  const upload = "/upload/storage/v1/b/demo.appspot.com/o?name=generated-pdfs%2Ftenants%2Facme-north%2Fjobs%2Fj1%2Fparts%2F00000-0.pack&uploadType=multipart";
  const logo = "/upload/storage/v1/b/demo.appspot.com/o?name=logos%2Ftenants%2Facme-north%2Flogo.png&uploadType=multipart";

  it("limits a fault to the objects whose decoded name contains `match`", () => {
    expect(storageFaultApplies({ mode: "unavailable", match: "/parts/" }, "POST", upload)).toBe(true);
    expect(storageFaultApplies({ mode: "unavailable", match: "/parts/" }, "POST", logo)).toBe(false);
  });

  it("combines `match` with `only`", () => {
    expect(storageFaultApplies({ mode: "exit-worker", only: "uploads", match: "/jobs/" }, "POST", upload)).toBe(true);
    expect(storageFaultApplies({ mode: "exit-worker", only: "reads", match: "/jobs/" }, "POST", upload)).toBe(false);
    expect(storageFaultApplies({ mode: "exit-worker", only: "reads", match: "/jobs/" }, "GET", "/storage/v1/b/demo.appspot.com/o/generated-pdfs%2Fx%2Fjobs%2Fj1%2Fj1.zip")).toBe(true);
  });

  it("matches a URL that is not valid percent-encoding as it is", () => {
    expect(storageFaultApplies({ mode: "reset", match: "%E0" }, "GET", "/o/%E0")).toBe(true);
  });
});
