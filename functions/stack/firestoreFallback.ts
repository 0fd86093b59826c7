/**
 * Firestore for the local stack where Google's emulator (a Java 21 JAR) cannot run: the
 * JavaScript emulator from @firestore-emulator/server, which speaks the real gRPC protocol.
 * Its published version gets several semantics wrong; the fixes live in stack/patches and are
 * applied on install by patch-package (root package.json). The patched server binds loopback only.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { FirestoreServer } = require("@firestore-emulator/server") as {
  FirestoreServer: new () => {
    start(port: number, host?: string): Promise<void>;
    stop(): void;
    state: { clear(): void };
  };
};

export interface FirestoreFallback {
  stop(): Promise<void>;
  /** Deletes every document of every project. */
  clear(): void;
}

export async function startFirestoreFallback(port: number, host = "127.0.0.1"): Promise<FirestoreFallback> {
  const server = new FirestoreServer();
  await server.start(port, host);
  return {
    stop: async () => server.stop(),
    clear: () => server.state.clear(),
  };
}
