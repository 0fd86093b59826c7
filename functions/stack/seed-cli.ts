/**
 * `npm run seed [-- fixture.json]`: loads a fixture (default: emulator-data/demo.json) into the
 * running local stack. Users are created or updated, documents overwritten; nothing is deleted.
 */
import { join, resolve } from "node:path";
import { ROOT_DIR } from "./config";
import { readFixture } from "./seed";
import { seedStack } from "./seedStack";

async function main(): Promise<void> {
  const file = process.argv[2] ? resolve(process.cwd(), process.argv[2]) : join(ROOT_DIR, "emulator-data", "demo.json");
  const seeded = await seedStack(readFixture(file));
  console.log(`Seeded ${seeded.users} users, ${seeded.documents} documents and ${seeded.pictures} pictures from ${file}.`);
  process.exit(0);
}

main().catch((error: unknown) => {
  console.error(`Seeding failed: ${error instanceof Error ? error.message : String(error)}`);
  console.error("Is the local stack running (`npm start`)?");
  process.exit(1);
});
