// Lint for the functions package (runs before every deploy, firebase.json predeploy).
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["lib/**", "node_modules/**", "hosting/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_" }],
    },
  },
  {
    // Plain Node scripts that run before anything is installed (stack/withProductionNode.mjs).
    files: ["**/*.mjs"],
    languageOptions: { globals: { process: "readonly", console: "readonly", setInterval: "readonly", clearInterval: "readonly" } },
  },
  {
    // Tests and the local stack read loosely typed JSON and firebase-tools internals.
    files: ["test/**", "stack/**", "bench/**"],
    rules: { "@typescript-eslint/no-explicit-any": "off", "@typescript-eslint/no-require-imports": "off" },
  },
);
