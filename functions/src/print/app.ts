import { createApp } from "../http/app";
import { notImplemented } from "../http/errors";
import { targetRouter, type RouteDefinition } from "../http/routes";

const PRINT_PERMISSIONS = ["READ", "MANAGE_FORM", "MANAGE_OBJECTS", "ADMIN"] as const;

/** The print routes of SPEC.md sections 4.1 and 4.2. */
export const printRoutes: RouteDefinition[] = [
  { method: "post", path: "/print", anyOf: PRINT_PERMISSIONS, handle: async () => { throw notImplemented("Printing is not available yet."); } },
  { method: "post", path: "/send-pdf", anyOf: PRINT_PERMISSIONS, handle: async () => { throw notImplemented("Sending a PDF is not available yet."); } },
];

export const createPrintApp = () => createApp("/print", targetRouter(printRoutes));
