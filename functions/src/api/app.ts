import { createApp } from "../http/app";
import { notImplemented } from "../http/errors";
import { targetRouter, type RouteDefinition } from "../http/routes";

const pending = (what: string): RouteDefinition["handle"] => async () => {
  throw notImplemented(`${what} is not available yet.`);
};

/** The user-administration routes of SPEC.md sections 4.3 to 4.6. */
export const apiRoutes: RouteDefinition[] = [
  { method: "get", path: "/user/:userId/auth-ownership-status", anyOf: ["ADMIN", "MANAGE_PEOPLE"], feature: "PEOPLE_MANAGEMENT", handle: pending("Auth ownership status") },
  { method: "post", path: "/user/:userId/restore", anyOf: ["ADMIN"], feature: "PEOPLE_MANAGEMENT", handle: pending("Restoring a user") },
  { method: "delete", path: "/user/:userId", anyOf: ["ADMIN"], feature: "PEOPLE_MANAGEMENT", handle: pending("Soft-deleting a user") },
  { method: "get", path: "/roles", anyOf: ["ADMIN"], handle: pending("Listing roles") },
  { method: "post", path: "/user/:userId/claim-auth-ownership", anyOf: ["ADMIN", "MANAGE_PEOPLE"], feature: "PEOPLE_MANAGEMENT", handle: pending("Claiming auth ownership") },
  { method: "post", path: "/user/:userId/release-auth-ownership", anyOf: ["ADMIN", "MANAGE_PEOPLE"], feature: "PEOPLE_MANAGEMENT", handle: pending("Releasing auth ownership") },
];

export const createApiApp = () => createApp("/api", targetRouter(apiRoutes));
