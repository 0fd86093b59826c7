import type { Permission } from "../../http/access";

/** Both print routes: any one of these on the target (SPEC.md section 5). */
export const PRINT_PERMISSIONS: readonly Permission[] = ["READ", "MANAGE_FORM", "MANAGE_OBJECTS", "ADMIN"];
