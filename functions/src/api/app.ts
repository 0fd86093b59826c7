import { createApp } from "../http/app";
import { authOwnershipStatus } from "./routes/authOwnershipStatus";
import { claimAuthOwnership } from "./routes/claimAuthOwnership";
import { listAuditEvents } from "./routes/listAuditEvents";
import { listRoles } from "./routes/listRoles";
import { getPrintSettings, patchPrintSettings, putPrintSettings } from "./routes/printSettings";
import { putPrintSettingsLogo } from "./routes/printSettingsLogo";
import { deletePrintTemplate, getPrintTemplate, listPrintTemplates, putPrintTemplate } from "./routes/printTemplates";
import { releaseAuthOwnership } from "./routes/releaseAuthOwnership";
import { restoreUser } from "./routes/restoreUser";
import { softDeleteUser } from "./routes/softDeleteUser";

/** The user-administration routes (SPEC.md sections 4.3 to 4.6), the audit trail, the print settings and print templates, under /api/{targetPath}. */
export const apiRoutes = [
  authOwnershipStatus,
  restoreUser,
  softDeleteUser,
  listRoles,
  claimAuthOwnership,
  releaseAuthOwnership,
  listAuditEvents,
  getPrintSettings,
  putPrintSettings,
  patchPrintSettings,
  putPrintSettingsLogo,
  listPrintTemplates,
  getPrintTemplate,
  putPrintTemplate,
  deletePrintTemplate,
];

export const API_INFO = {
  title: "User administration API",
  description: "Auth-ownership status, soft delete and restore of users, roles, claiming and releasing auth ownership, the audit trail, print settings and print templates, scoped to an organization, tenant, division or site.",
  mountPath: "/api",
};

export const createApiApp = () => createApp(API_INFO, apiRoutes);
