import { createApp } from "../http/app";
import { preview } from "./routes/preview";
import { print } from "./routes/print";
import { cancelPrintJob, createPrintJob, getPrintJob, listPrintJobs } from "./routes/printJobs";
import { sendPdf } from "./routes/sendPdf";
import { verifyPdf } from "./routes/verify";

/** The print routes (SPEC.md sections 4.1 and 4.2, print jobs: issue 34, verify: issue 36), under /print/{targetPath}. */
export const printRoutes = [print, sendPdf, preview, createPrintJob, listPrintJobs, getPrintJob, cancelPrintJob, verifyPdf];

export const PRINT_INFO = {
  title: "Print API",
  description: "PDF renditions of object instances: a download URL (signed for 15 minutes in production), or the PDF emailed as an attachment.",
  mountPath: "/print",
};

export const createPrintApp = () => createApp(PRINT_INFO, printRoutes);
