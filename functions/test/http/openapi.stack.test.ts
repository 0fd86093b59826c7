import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import type { Express } from "express";
import { beforeAll, describe, expect, it } from "vitest";
import { createApiApp } from "../../src/api/app";
import { createPrintApp } from "../../src/print/app";
import { freshUid, putUserRecord } from "../api/fixtures";
import { BASES, call, idTokenFor, type CallResult } from "../helpers";

type Doc = { openapi: string; paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: object }> }>; security?: unknown[] }>>; components: { schemas: Record<string, object>; securitySchemes: Record<string, object> } };

/** Every method + path the Express app answers, in OpenAPI path syntax. */
function registeredRoutes(app: Express): string[] {
  const found: string[] = [];
  const walk = (stack: any[], prefix: string) => {  
    for (const layer of stack) {
      if (layer.route) {
        // (_all: the 405 of a route's path asked with another method, not an operation.)
        for (const method of Object.keys(layer.route.methods).filter((m) => m !== "_all")) found.push(`${method} ${prefix}${layer.route.path}`.replace(/:(\w+)/g, "{$1}"));
      } else if (layer.handle?.stack) {
        walk(layer.handle.stack, prefix + (layer.matchers ? "" : ""));
      }
    }
  };
  walk((app as unknown as { router: { stack: unknown[] } }).router.stack, "");
  // A route that takes a file is registered twice: its body parser, then its pipeline.
  return [...new Set(found)].sort();
}

const documented = (doc: Doc) => Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m} ${path}`)).sort();

describe.each([
  ["api", createApiApp, "/api"],
  ["print", createPrintApp, "/print"],
] as const)("the OpenAPI document of %s", (fn, createApp, mountPath) => {
  let doc: Doc;
  beforeAll(async () => {
    const res = await call(`${BASES[fn].hosting}/openapi.json`);
    expect(res.status).toBe(200);
    doc = res.json;
  });

  it("is served without authentication, as OpenAPI 3.1 with both security schemes", () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(["basicAuth", "bearerAuth"]);
  });

  // "Try it out" of a deployed reference page once sent the user's token to http://127.0.0.1:5000,
  // whatever listened on their own machine. The server is relative to where the document is served.
  it("names no absolute server: its server, resolved against the document's URL, reaches the function through Hosting and its own URL", async () => {
    const servers = (doc as unknown as { servers: { url: string }[] }).servers;
    expect(servers.length).toBeGreaterThan(0);
    for (const { url } of servers) expect(URL.canParse(url), url).toBe(false); // not absolute: no loopback, no host at all
    for (const base of [BASES[fn].hosting, BASES[fn].functionUrl]) {
      const documentUrl = `${base}/openapi.json`;
      const served = (await call(documentUrl)).json as Doc & { servers: { url: string }[] };
      // As Swagger UI builds a request URL: the server resolved against the document's URL, then the path.
      const server = new URL(served.servers[0].url, documentUrl).href.replace(/\/$/, "");
      expect((await call(`${server}${mountPath}/openapi.json`)).json, documentUrl).toEqual(served);
      const [path, operations] = Object.entries(served.paths).find(([p]) => p.startsWith(`${mountPath}/tenant/{tenantId}/`))!;
      const method = Object.keys(operations)[0];
      const res = await call(`${server}${path.replace("{tenantId}", "acme-north").replace(/\{\w+\}/g, "x")}`, { method });
      expect([res.status, res.json?.message], `${method} ${path} from ${documentUrl}`).toEqual([401, expect.stringMatching(/^Authentication required/)]);
    }
  });

  it("describes exactly the routes the function answers, no more, no fewer", () => {
    // The app mounts its routes under mountPath; the registered patterns are relative to it.
    const registered = registeredRoutes(createApp())
      .map((r) => (r.includes("/openapi.json") ? r : r.replace(" /", ` ${mountPath}/`)))
      .sort();
    expect(registered.length).toBeGreaterThan(6);
    expect(documented(doc)).toEqual(registered);
  });

  it("gives every operation a success body schema, the error schema, and path parameters with limits", () => {
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops) as [string, any][]) {  
        const statuses = Object.keys(op.responses);
        expect(statuses.some((s) => s.startsWith("2")), `${method} ${path}`).toBe(true);
        if (path.endsWith("openapi.json")) continue;
        expect(op.responses["401"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/Error" });
        for (const p of op.parameters.filter((x: { in: string }) => x.in === "path")) expect(p.schema).toMatchObject({ maxLength: 128, minLength: 1 });
      }
    }
  });
});

describe("the target kinds of each operation", () => {
  it("names its path's target kind and the kinds the route serves (x-target-kind, x-target-kinds), which the playground offers routes by", async () => {
    const doc = (await call(`${BASES.api.hosting}/openapi.json`)).json as { paths: Record<string, Record<string, Record<string, unknown>>> };
    const kinds = (path: string, method = "get") => [doc.paths[path][method]["x-target-kind"], doc.paths[path][method]["x-target-kinds"]];
    expect(kinds("/api/tenant/{tenantId}/division/{divisionId}/roles")).toEqual(["division", ["organization", "tenant"]]);
    expect(kinds("/api/organization/{organizationId}/tenant/{tenantId}/user/{userId}/restore", "post")).toEqual(["tenant", ["organization", "tenant"]]);
    expect(kinds("/api/site/{siteId}/audit-events")).toEqual(["site", ["site", "tenant", "division", "organization"]]);
    // Every operation says both, and a path's own kind is served exactly when its description says nothing of a 400.
    for (const [path, operations] of Object.entries(doc.paths)) {
      if (path.endsWith("/openapi.json")) continue;
      for (const [method, op] of Object.entries(operations)) {
        const served = (op["x-target-kinds"] as string[]).includes(op["x-target-kind"] as string);
        expect(String(op.description).includes("answers 400"), `${method} ${path}`).toBe(!served);
      }
    }
  });
});

describe("the query parameters of the api document", () => {
  it.each([
    ["/api/tenant/{tenantId}/roles", ["limit", "offset"], 200],
    // Its query ends in a transform (the page token decoded): documented all the same.
    ["/api/tenant/{tenantId}/audit-events", ["action", "limit", "pageToken", "since", "subject", "until"], 100],
  ])("lists every parameter %s validates, with its constraints", async (path, names, maxLimit) => {
    const doc = (await call(`${BASES.api.hosting}/openapi.json`)).json as { paths: Record<string, { get: { parameters: { name: string; in: string; schema: Record<string, unknown> }[] } }> };
    const query = doc.paths[path].get.parameters.filter((p) => p.in === "query");
    expect(query.map((p) => p.name).sort()).toEqual(names);
    expect(query.find((p) => p.name === "limit")?.schema).toMatchObject({ minimum: 1, maximum: maxLimit });
  });
});

describe("real answers of the stack match the documented schemas", () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  const docs: Record<string, Doc> = {};
  beforeAll(async () => {
    for (const fn of ["api", "print"] as const) {
      docs[fn] = (await call(`${BASES[fn].hosting}/openapi.json`)).json;
      ajv.addSchema(docs[fn].components.schemas.Error, `#/components/schemas/Error-${fn}`);
    }
  });

  /** Finds the documented schema for the answer of `method path`, and validates the body against it. */
  function expectDocumented(fn: "api" | "print", method: string, path: string, res: CallResult): void {
    const template = Object.keys(docs[fn].paths).find((t) => new RegExp(`^${t.replace(/\{\w+\}/g, "[^/]+")}$`).test(path));
    expect(template, `${method} ${path} is documented`).toBeDefined();
    const response = docs[fn].paths[template!][method].responses[String(res.status)];
    expect(response, `${method} ${template} documents ${res.status}`).toBeDefined();
    let schema = response.content!["application/json"].schema as { $ref?: string };
    if (schema.$ref) schema = docs[fn].components.schemas.Error;
    const valid = ajv.validate(schema, res.json);
    expect(valid, `${method} ${path} ${res.status}: ${ajv.errorsText()}`).toBe(true);
  }

  it("for every route's success and its usual errors", async () => {
    const admin = { bearer: await idTokenFor("north-admin@acme.test") };
    const api = (p: string) => `${BASES.api.functionUrl}${p}`;
    const print = (p: string) => `${BASES.print.functionUrl}${p}`;
    const deleted = freshUid("openapi-deleted");
    const unclaimed = freshUid("openapi-unclaimed");
    await putUserRecord("tenants/acme-north", deleted, true);
    await putUserRecord("tenants/acme-north", unclaimed);
    const template = freshUid("openapi-template");
    const templateUrl = api(`/tenant/acme-north/print-templates/${template}`);

    const cases: [("api" | "print"), string, string, () => Promise<CallResult>][] = [
      ["api", "get", "/api/tenant/acme-north/user/north-reader/auth-ownership-status", () => call(api("/tenant/acme-north/user/north-reader/auth-ownership-status"), { auth: admin })],
      ["api", "post", `/api/tenant/acme-north/user/${deleted}/restore`, () => call(api(`/tenant/acme-north/user/${deleted}/restore`), { method: "POST", auth: admin })],
      ["api", "delete", `/api/tenant/acme-north/user/${deleted}`, () => call(api(`/tenant/acme-north/user/${deleted}`), { method: "DELETE", auth: admin })],
      ["api", "get", "/api/organization/acme/tenant/acme-north/roles", () => call(api("/organization/acme/tenant/acme-north/roles?limit=3"), { auth: admin })],
      ["api", "post", `/api/tenant/acme-north/user/${unclaimed}/claim-auth-ownership`, () => call(api(`/tenant/acme-north/user/${unclaimed}/claim-auth-ownership`), { method: "POST", auth: admin })],
      ["api", "post", `/api/tenant/acme-north/user/${unclaimed}/release-auth-ownership`, () => call(api(`/tenant/acme-north/user/${unclaimed}/release-auth-ownership`), { method: "POST", auth: admin })],
      ["api", "post", `/api/tenant/acme-north/user/${unclaimed}/release-auth-ownership`, () => call(api(`/tenant/acme-north/user/${unclaimed}/release-auth-ownership`), { method: "POST", auth: admin })],
      ["api", "get", "/api/tenant/acme-north/roles", () => call(api("/tenant/acme-north/roles?limit=0"), { auth: admin })],
      ["api", "get", "/api/tenant/acme-north/roles", () => call(api("/tenant/acme-north/roles"))],
      ["api", "get", "/api/tenant/nope/roles", () => call(api("/tenant/nope/roles"), { auth: admin })],
      // A template of no object type: it never changes what the demo prints, and is deleted below.
      ["api", "put", `/api/tenant/acme-north/print-templates/${template}`, () => call(templateUrl, { method: "PUT", auth: admin, body: { name: "OpenAPI", objectTypeNames: [], footer: { right: "{page}/{pages}" } } })],
      ["api", "put", `/api/tenant/acme-north/print-templates/${template}`, () => call(templateUrl, { method: "PUT", auth: admin, body: { name: "", objectTypeNames: [] } })],
      ["api", "get", `/api/tenant/acme-north/print-templates/${template}`, () => call(templateUrl, { auth: admin })],
      ["api", "get", "/api/tenant/acme-north/print-templates", () => call(api("/tenant/acme-north/print-templates"), { auth: admin })],
      ["api", "delete", `/api/tenant/acme-north/print-templates/${template}`, () => call(templateUrl, { method: "DELETE", auth: admin })],
      ["api", "delete", `/api/tenant/acme-north/print-templates/${template}`, () => call(templateUrl, { method: "DELETE", auth: admin })],
      ["print", "post", "/print/tenant/acme-north/print", () => call(print("/tenant/acme-north/print"), { method: "POST", auth: admin, body: { objectInstanceId: "inspection-short" } })],
      ["print", "post", "/print/tenant/acme-north/send-pdf", () => call(print("/tenant/acme-north/send-pdf"), { method: "POST", auth: admin, body: { objectInstanceId: "inspection-short", to: "docs@example.com" } })],
      ["print", "post", "/print/tenant/acme-north/print", () => call(print("/tenant/acme-north/print"), { method: "POST", auth: admin, body: { objectInstanceId: "south-report" } })],
      ["print", "post", "/print/tenant/acme-north/print", () => call(print("/tenant/acme-north/print"), { method: "POST", auth: admin, body: "x", headers: { "content-type": "text/plain" } })],
    ];
    const seen = new Set<number>();
    for (const [fn, method, path, make] of cases) {
      const res = await make();
      seen.add(res.status);
      expectDocumented(fn, method, path, res);
    }
    expect([...seen].sort()).toEqual([200, 201, 400, 401, 404, 409, 415]);
  });
});
