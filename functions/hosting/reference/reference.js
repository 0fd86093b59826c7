// Both functions' OpenAPI documents, rendered by Swagger UI (swagger-ui-dist, served from this origin).
window.ui = SwaggerUIBundle({
  urls: [
    { url: "/api/openapi.json", name: "api: user administration, audit trail, print settings" },
    { url: "/print/openapi.json", name: "print: PDFs and email" },
  ],
  dom_id: "#ui",
  deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
  layout: "StandaloneLayout",
});
