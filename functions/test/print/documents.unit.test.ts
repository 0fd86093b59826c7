import { describe, expect, it } from "vitest";
import { contentDisposition, safeFileName } from "../../src/print/documents";
import { missingMailSettings } from "../../src/print/mail";
import { assertAttachable } from "../../src/print/routes/sendPdf";

describe("safeFileName", () => {
  it.each([
    ["Boiler Inspection B-12", "Boiler Inspection B-12.pdf"],
    ["Zoë's report.PDF", "Zoe_s report.pdf"],
    ["../../etc/passwd", "etc_passwd.pdf"],
    ["Προδιαγραφή", "document.pdf"],
    ["Spécification: v2/3", "Specification_ v2_3.pdf"],
    ["", "document.pdf"],
    ["a\r\nb", "a_b.pdf"],
  ])("%j -> %j", (name, expected) => {
    expect(safeFileName(name)).toBe(expected);
  });

  it("is at most 84 characters", () => {
    expect(safeFileName("x".repeat(500)).length).toBe(84);
  });
});

describe("contentDisposition", () => {
  it("names the file safely and gives the exact title in RFC 5987 form, without quotes or line breaks", () => {
    expect(contentDisposition('Προδιαγραφή "A"\r\n')).toBe(`attachment; filename="A.pdf"; filename*=UTF-8''${encodeURIComponent("Προδιαγραφή A.pdf")}`);
  });
});

describe("missingMailSettings", () => {
  it("names each missing setting", () => {
    expect(missingMailSettings("", "")).toEqual(["the SENDGRID_API_KEY secret", "the MAIL_FROM_EMAIL param"]);
    expect(missingMailSettings("SG.x", "")).toEqual(["the MAIL_FROM_EMAIL param"]);
    expect(missingMailSettings("SG.x", "a@example.com")).toEqual([]);
  });
});

describe("contentDisposition, RFC 5987", () => {
  it("percent-encodes the characters encodeURIComponent leaves alone but RFC 5987 forbids", () => {
    expect(contentDisposition("It's (final)*!")).toBe(`attachment; filename="It_s _final.pdf"; filename*=UTF-8''It%27s%20%28final%29%2A%21.pdf`);
  });
});

describe("assertAttachable", () => {
  it("lets a PDF of up to 20 MB through and refuses a larger one with 413", () => {
    expect(() => assertAttachable(20 * 1024 * 1024)).not.toThrow();
    expect(() => assertAttachable(20 * 1024 * 1024 + 1)).toThrow(expect.objectContaining({ statusCode: 413, message: expect.stringMatching(/limited to 20971520 bytes/) }));
  });
});
