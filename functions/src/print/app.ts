import { createApp } from "../http/app";
import { targetRouter } from "../http/routes";
import { print } from "./routes/print";
import { sendPdf } from "./routes/sendPdf";

/** The print routes (SPEC.md sections 4.1 and 4.2), under /print/{targetPath}. */
export const printRoutes = [print, sendPdf];

export const createPrintApp = () => createApp("/print", targetRouter(printRoutes));
