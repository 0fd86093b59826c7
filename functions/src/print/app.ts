import { createApp } from "../http/app";
import { preview } from "./routes/preview";
import { print } from "./routes/print";
import { cancelPrintJob, createPrintJob, getPrintJob, listPrintJobs } from "./routes/printJobs";
import { sendPdf } from "./routes/sendPdf";

/** The print routes (SPEC.md sections 4.1 and 4.2, and print jobs: issue 34), under /print/{targetPath}. */
export const printRoutes = [print, sendPdf, preview, createPrintJob, listPrintJobs, getPrintJob, cancelPrintJob];

export const PRINT_INFO = {
  title: "Print API",
  description: "PDF renditions of object instances: a download URL (signed for 15 minutes in production), or the PDF emailed as an attachment.",
  mountPath: "/print",
};

export const createPrintApp = () => createApp(PRINT_INFO, printRoutes);
