// bench:tagging's worker (taggingCost.ts): plain Node.js running the compiled renderer from a file,
// as a function instance does, rendering one case `count` times and nothing else.
// Usage: node taggingWorker.cjs <renderer module> <case.json> <tagged: true|false> <count>
const { readFileSync } = require("node:fs");

const [rendererModule, caseFile, tagged, count] = process.argv.slice(2);
const { instance, options } = JSON.parse(readFileSync(caseFile, "utf8"));
const renderer = require(rendererModule);
const render = { ...options, generatedAt: new Date(options.generatedAt), tagged: tagged === "true" };

(async () => {
  for (let i = 0; i < Number(count); i++) await renderer.renderInstancePdf(instance, render);
})();
